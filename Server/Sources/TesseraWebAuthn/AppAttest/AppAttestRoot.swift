import Foundation
import X509

/// The root of every App Attest certificate chain: Apple App Attestation Root CA, as Apple publishes it at
/// https://www.apple.com/certificateauthority/Apple_App_Attestation_Root_CA.pem (subject
/// `CN=Apple App Attestation Root CA, O=Apple Inc., ST=California`, serial 0BF3BE0EF1CDD2E0FB8C6E721F621798,
/// P-384, valid 2020-03-18 to 2045-03-15), SHA-256 fingerprint ``sha256Fingerprint``.
///
/// ``AppAttestVerifier`` trusts it unless its configuration names other roots (a test gives its own).
public enum AppAttestRoot {
    /// The certificate, PEM.
    public static let pem = """
    -----BEGIN CERTIFICATE-----
    MIICITCCAaegAwIBAgIQC/O+DvHN0uD7jG5yH2IXmDAKBggqhkjOPQQDAzBSMSYw
    JAYDVQQDDB1BcHBsZSBBcHAgQXR0ZXN0YXRpb24gUm9vdCBDQTETMBEGA1UECgwK
    QXBwbGUgSW5jLjETMBEGA1UECAwKQ2FsaWZvcm5pYTAeFw0yMDAzMTgxODMyNTNa
    Fw00NTAzMTUwMDAwMDBaMFIxJjAkBgNVBAMMHUFwcGxlIEFwcCBBdHRlc3RhdGlv
    biBSb290IENBMRMwEQYDVQQKDApBcHBsZSBJbmMuMRMwEQYDVQQIDApDYWxpZm9y
    bmlhMHYwEAYHKoZIzj0CAQYFK4EEACIDYgAERTHhmLW07ATaFQIEVwTtT4dyctdh
    NbJhFs/Ii2FdCgAHGbpphY3+d8qjuDngIN3WVhQUBHAoMeQ/cLiP1sOUtgjqK9au
    Yen1mMEvRq9Sk3Jm5X8U62H+xTD3FE9TgS41o0IwQDAPBgNVHRMBAf8EBTADAQH/
    MB0GA1UdDgQWBBSskRBTM72+aEH/pwyp5frq5eWKoTAOBgNVHQ8BAf8EBAMCAQYw
    CgYIKoZIzj0EAwMDaAAwZQIwQgFGnByvsiVbpTKwSga0kP0e8EeDS4+sQmTvb7vn
    53O5+FRXgeLhpJ06ysC5PrOyAjEAp5U4xDgEgllF7En3VcE3iexZZtKeYnpqtijV
    oyFraWVIyd/dganmrduC1bmTBGwD
    -----END CERTIFICATE-----
    """

    /// SHA-256 of the certificate's DER bytes, lowercase hex (what Apple's page and independent verifiers list).
    public static let sha256Fingerprint = "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"

    /// The certificate.
    public static func certificate() throws -> Certificate { try Certificate(pemEncoded: pem) }
}

extension AppAttestRoot {
    /// The certificates of a PEM file of one or more certificates, to trust instead of ``certificate()`` (tests
    /// only: the server's `appAttest.roots`, a node's `--app-attest-roots`). Throws, naming the file, when it cannot
    /// be read or holds anything but certificates.
    public static func certificates(pemFile path: String) throws(AppAttestRootFileError) -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw .unreadable(path)
        }
        let end = "-----END CERTIFICATE-----"
        let blocks = text.components(separatedBy: end).dropLast().map { $0 + end }
        let roots = blocks.compactMap { try? Certificate(pemEncoded: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard !roots.isEmpty, roots.count == blocks.count else { throw .notCertificates(path) }
        return roots
    }
}
