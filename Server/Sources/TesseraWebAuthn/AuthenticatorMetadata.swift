import Crypto
import Foundation
import SwiftASN1
import _CryptoExtras
@_spi(FixedExpiryValidationTime) import X509

/// A FIDO Metadata Service (MDS3) BLOB the operator downloaded (https://mds3.fidoalliance.org/): a JWT whose
/// header's `x5c` chain must lead to the FIDO root (GlobalSign Root CA – R3, or another root given for tests) and
/// whose signature (RS256 or ES256) must verify with the chain's leaf. Its entries, by AAGUID, give each
/// authenticator model's attestation roots (trusted for that model's registrations when a client requires
/// attestation) and its status reports (a model whose latest status reports a compromise or revocation is
/// refused). Only what Tessera uses is read; an entry it cannot read is skipped.
public struct AuthenticatorMetadata: Sendable {
    /// One authenticator model.
    public struct Entry: Sendable {
        /// The AAGUID, 16 bytes.
        public var aaguid: [UInt8]
        /// The model's description (`metadataStatement.description`).
        public var description: String
        /// Its attestation roots (`metadataStatement.attestationRootCertificates`).
        public var roots: [Certificate]
        /// The latest status report's status (`FIDO_CERTIFIED_L1`, `REVOKED`, …).
        public var status: String?
    }

    /// The BLOB's serial number (`no`).
    public let number: Int
    /// When the next BLOB is due (`nextUpdate`, YYYY-MM-DD).
    public let nextUpdate: String
    /// The entries that have an AAGUID (FIDO2 authenticators), by AAGUID.
    public let entries: [[UInt8]: Entry]

    /// Statuses that refuse a model's registrations (MDS3 §3.1.4: the authenticator or its keys are compromised, or
    /// it is revoked).
    public static let refusedStatuses: Set<String> = [
        "REVOKED", "USER_VERIFICATION_BYPASS", "ATTESTATION_KEY_COMPROMISE", "USER_KEY_REMOTE_COMPROMISE", "USER_KEY_PHYSICAL_COMPROMISE",
    ]

    /// Why a BLOB was refused.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Verifies and reads a BLOB: `jwt` the file's text, `root` the FIDO root, `time` the moment the chain is checked at.
    public init(jwt: String, root: Certificate, time: Date) async throws(Invalid) {
        let parts = jwt.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])), let payloadBytes = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2]))
        else { throw Invalid("not a JWT (three base64url parts)") }
        struct Header: Decodable { var alg: String; var x5c: [String]? }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else { throw Invalid("the JWT header is not JSON with alg") }
        guard let x5c = header.x5c, !x5c.isEmpty, x5c.count <= 8 else { throw Invalid("the JWT header has no x5c chain") }
        var chain: [Certificate] = []
        for item in x5c {
            guard let der = Data(base64Encoded: item), let certificate = try? Certificate(derEncoded: Array(der)) else {
                throw Invalid("an x5c entry is not a base64 DER certificate")
            }
            chain.append(certificate)
        }
        var verifier = Verifier(rootCertificates: CertificateStore([root])) { RFC5280Policy(fixedExpiryValidationTime: time) }
        guard case .validCertificate = await verifier.validate(leaf: chain[0], intermediates: CertificateStore(chain.dropFirst())) else {
            throw Invalid("the x5c chain does not lead to the FIDO root")
        }
        var spki = DER.Serializer()
        do { try spki.serialize(chain[0].publicKey) } catch { throw Invalid("the signing certificate's key cannot be read") }
        let signed = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard Self.verify(alg: header.alg, key: spki.serializedBytes, signature: signature, over: signed) else {
            throw Invalid("the JWT signature (\(header.alg)) does not verify with the x5c leaf")
        }
        guard let payload = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any],
              let number = payload["no"] as? Int, let nextUpdate = payload["nextUpdate"] as? String, let items = payload["entries"] as? [[String: Any]]
        else { throw Invalid("the payload lacks no, nextUpdate or entries") }
        self.number = number
        self.nextUpdate = nextUpdate
        var entries: [[UInt8]: Entry] = [:]
        for item in items {
            guard let text = item["aaguid"] as? String, let aaguid = AAGUID.bytes(text) else { continue }
            let statement = item["metadataStatement"] as? [String: Any] ?? [:]
            let roots = (statement["attestationRootCertificates"] as? [String] ?? []).compactMap { base64 in
                Data(base64Encoded: base64).flatMap { try? Certificate(derEncoded: Array($0)) }
            }
            let status = (item["statusReports"] as? [[String: Any]] ?? []).last?["status"] as? String
            entries[aaguid] = Entry(aaguid: aaguid, description: statement["description"] as? String ?? "", roots: roots, status: status)
        }
        self.entries = entries
    }

    /// The entry of an AAGUID (16 bytes).
    public func entry(aaguid: [UInt8]) -> Entry? { entries[aaguid] }

    /// Why registrations of this model are refused, or nil.
    public func refusal(aaguid: [UInt8]) -> String? {
        guard let entry = entries[aaguid], let status = entry.status, Self.refusedStatuses.contains(status) else { return nil }
        return "the FIDO metadata reports \(entry.description.isEmpty ? "this authenticator" : entry.description) as \(status)"
    }

    static func verify(alg: String, key: [UInt8], signature: [UInt8], over message: [UInt8]) -> Bool {
        switch alg {
        case "RS256":
            guard let rsa = try? _RSA.Signing.PublicKey(derRepresentation: key) else { return false }
            return rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        case "ES256":
            guard let ec = try? P256.Signing.PublicKey(derRepresentation: key), let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                return false
            }
            return ec.isValidSignature(parsed, for: SHA256.hash(data: message))
        default:
            return false
        }
    }
}
