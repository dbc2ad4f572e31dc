import TesseraWebAuthn
import X509

extension ServerConfiguration {
    /// The certificates of `appAttest.roots` (one PEM file, one or more certificates), which replace Apple's App
    /// Attestation Root CA; nil when the key is not set (Apple's root, pinned in the binary). A file that cannot be read
    /// or holds anything but certificates stops the start, naming the key and the file.
    func appAttestTrustedRoots() throws -> [Certificate]? {
        guard let path = appAttestRoots else { return nil }
        do { return try AppAttestRoot.certificates(pemFile: path) } catch { throw ConfigurationError("appAttest.roots: \(error)") }
    }
}
