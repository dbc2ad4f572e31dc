import Foundation
import X509

extension ServerConfiguration {
    /// The certificates of `appAttest.roots` (one PEM file, one or more certificates), which replace Apple's App
    /// Attestation Root CA; nil when the key is not set (Apple's root, pinned in the binary). A file that cannot be read
    /// or holds anything but certificates stops the start, naming the key and the file.
    func appAttestTrustedRoots() throws -> [Certificate]? {
        guard let path = appAttestRoots else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError("appAttest.roots: cannot read \(path)")
        }
        let end = "-----END CERTIFICATE-----"
        let blocks = text.components(separatedBy: end).dropLast().map { $0 + end }
        let roots = blocks.compactMap { try? Certificate(pemEncoded: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard !roots.isEmpty, roots.count == blocks.count else {
            throw ConfigurationError("appAttest.roots: \(path) must hold one or more PEM certificates (-----BEGIN CERTIFICATE-----)")
        }
        return roots
    }
}
