import Crypto
import _CryptoExtras
import Foundation

/// A credential public key in COSE_Key form (RFC 9052/9053, WebAuthn §5.8.5), of the algorithms
/// Tessera accepts: ES256 (EC2, P-256), EdDSA (OKP, Ed25519) and RS256 (RSA, at least 2048 bits).
public struct COSEKey: Sendable, Equatable {
    /// A COSE algorithm identifier Tessera verifies.
    public enum Algorithm: Int64, Sendable, CaseIterable {
        /// ECDSA with P-256 and SHA-256.
        case es256 = -7
        /// EdDSA with Ed25519.
        case edDSA = -8
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = -257

        /// The name WebAuthn and JOSE use.
        public var name: String {
            switch self {
            case .es256: "ES256"
            case .edDSA: "EdDSA"
            case .rs256: "RS256"
            }
        }
    }

    enum Material: Sendable, Equatable {
        case p256(x: [UInt8], y: [UInt8])
        case ed25519([UInt8])
        case rsa(n: [UInt8], e: [UInt8])
        case rsaDER([UInt8])
    }

    /// The key's algorithm (its `alg` label).
    public let algorithm: Algorithm
    let material: Material

    /// Parses a COSE_Key map; the `alg` must be one of ``Algorithm`` and the key parameters must match it.
    public init(_ value: CBORValue) throws(WebAuthnError) {
        guard value.map != nil else { throw .invalidPublicKey("not a map") }
        guard let kty = value[int: 1]?.int, let alg = value[int: 3]?.int else { throw .invalidPublicKey("kty or alg missing") }
        guard let algorithm = Algorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
        self.algorithm = algorithm
        switch algorithm {
        case .es256:
            guard kty == 2, value[int: -1]?.int == 1, let x = value[int: -2]?.bytes, let y = value[int: -3]?.bytes, x.count == 32, y.count == 32
            else { throw .invalidPublicKey("ES256 needs kty 2 (EC2), crv 1 (P-256) and 32-byte x and y") }
            material = .p256(x: x, y: y)
            guard (try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)) != nil else { throw .invalidPublicKey("the point is not on P-256") }
        case .edDSA:
            guard kty == 1, value[int: -1]?.int == 6, let x = value[int: -2]?.bytes, x.count == 32
            else { throw .invalidPublicKey("EdDSA needs kty 1 (OKP), crv 6 (Ed25519) and a 32-byte x") }
            material = .ed25519(x)
        case .rs256:
            guard kty == 3, let n = value[int: -1]?.bytes, let e = value[int: -2]?.bytes, !n.isEmpty, !e.isEmpty, e.count <= 8
            else { throw .invalidPublicKey("RS256 needs kty 3 (RSA), n and e") }
            material = .rsa(n: n, e: e)
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else {
                throw .invalidPublicKey("the RSA key is not valid or shorter than 2048 bits")
            }
        }
    }

    /// The key from a certificate's subject public key (attestation certificates): P-256 ECDSA
    /// (ES256), Ed25519 (EdDSA) or RSA (RS256).
    init(certificateKey der: [UInt8], algorithm: Algorithm) throws(WebAuthnError) {
        self.algorithm = algorithm
        switch algorithm {
        case .es256:
            guard let key = try? P256.Signing.PublicKey(derRepresentation: der) else { throw .invalidAttestation("the certificate's key is not P-256") }
            let raw = [UInt8](key.rawRepresentation)
            material = .p256(x: Array(raw.prefix(32)), y: Array(raw.suffix(32)))
        case .edDSA:
            guard let key = try? Curve25519.Signing.PublicKey(derRepresentation: der) else {
                throw .invalidAttestation("the certificate's key is not Ed25519")
            }
            material = .ed25519([UInt8](key.rawRepresentation))
        case .rs256:
            guard (try? _RSA.Signing.PublicKey(derRepresentation: der)) != nil else { throw .invalidAttestation("the certificate's key is not RSA") }
            material = .rsaDER(der)
        }
    }

    /// Whether `signature` (DER for ES256, raw for EdDSA, PKCS #1 v1.5 for RS256) signs `message`.
    public func verify(signature: [UInt8], over message: [UInt8]) -> Bool {
        switch material {
        case .p256(let x, let y):
            guard let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y),
                  let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature)
            else { return false }
            return key.isValidSignature(parsed, for: SHA256.hash(data: message))
        case .ed25519(let x):
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else { return false }
            return key.isValidSignature(signature, for: message)
        case .rsa(let n, let e):
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        case .rsaDER(let der):
            guard let key = try? _RSA.Signing.PublicKey(derRepresentation: der) else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        }
    }

    /// The key as the uncompressed P-256 point `04 ‖ x ‖ y` (FIDO U2F's form), for an ES256 key.
    var uncompressedPoint: [UInt8]? {
        if case .p256(let x, let y) = material { [0x04] + x + y } else { nil }
    }
}
