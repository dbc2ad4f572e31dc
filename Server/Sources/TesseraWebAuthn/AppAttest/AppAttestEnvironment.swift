/// The App Attest environment a client's app runs in, as the client's settings say: it decides which AAGUID
/// an attestation must carry (Apple's step 8).
public enum AppAttestEnvironment: String, Sendable, Hashable, CaseIterable {
    /// Apps signed for development (`com.apple.developer.devicecheck.appattest-environment` = `development`).
    case development
    /// Apps from the App Store, TestFlight or signed for distribution.
    case production

    /// The 16-byte AAGUID of attestations made in this environment: ASCII `appattestdevelop`, or ASCII
    /// `appattest` followed by seven zero bytes.
    public var aaguid: [UInt8] {
        switch self {
        case .development: Array("appattestdevelop".utf8)
        case .production: Array("appattest".utf8) + [UInt8](repeating: 0, count: 7)
        }
    }
}
