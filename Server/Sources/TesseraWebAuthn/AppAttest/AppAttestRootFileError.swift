/// Why ``AppAttestRoot/certificates(pemFile:)`` could not read a file of trusted roots; the description names the
/// file (the caller adds the setting that named it).
public enum AppAttestRootFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist, cannot be read, or is not UTF-8 text.
    case unreadable(String)
    /// The file holds no certificate, or something besides PEM certificates.
    case notCertificates(String)

    /// A sentence naming the file.
    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .notCertificates(let path): "\(path) must hold one or more PEM certificates (-----BEGIN CERTIFICATE-----)"
        }
    }
}
