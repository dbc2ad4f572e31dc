import Crypto
import Foundation
import TesseraCore
import TesseraSignIn
import TesseraWebAuthn

/// A WebAuthn authenticator in software for the tests and the benchmark's load generator (a test double of a
/// real one, named so; never part of the server): a P-256 (ES256) credential, `none`
/// attestation, canonical CBOR; it answers the options the server gives as a browser's `toJSON()` would.
package struct SoftwareAuthenticator: Sendable {
    package var origin: String
    package var key = P256.Signing.PrivateKey()
    package var credentialId: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    package var userHandle: [UInt8] = []
    package var counter: UInt32 = 0
    /// Flags: UP, UV, and BE/BS for a synced passkey.
    package var userVerified = true
    package var synced = false
    /// The model it claims (16 bytes; zeros: it does not say).
    package var aaguid = [UInt8](repeating: 0, count: 16)
    /// When set, registrations carry a `packed` attestation (W3C WebAuthn §8.2, x5c) signed with this key and
    /// its certificate (DER) instead of `none`.
    package var packedAttestation: (key: P256.Signing.PrivateKey, certificate: [UInt8])?

    package init(origin: String) { self.origin = origin }

    package static func b64(_ bytes: some Sequence<UInt8>) -> String { Base64URL.encode(bytes) }

    package func clientData(_ type: String, _ challenge: String, origin: String? = nil) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin ?? self.origin)","crossOrigin":false}"#.utf8)
    }

    package func flags(attested: Bool) -> UInt8 {
        var flags: UInt8 = 0x01
        if userVerified { flags |= 0x04 }
        if synced { flags |= 0x18 }
        if attested { flags |= 0x40 }
        return flags
    }

    package var coseKey: [UInt8] {
        let raw = [UInt8](key.publicKey.rawRepresentation)
        return CBOR.map([(CBOR.int(1), CBOR.int(2)), (CBOR.int(3), CBOR.int(-7)), (CBOR.int(-1), CBOR.int(1)),
                         (CBOR.int(-2), CBOR.bytes(Array(raw.prefix(32)))), (CBOR.int(-3), CBOR.bytes(Array(raw.suffix(32))))])
    }

    package func authData(rpId: String, attested: Bool) -> [UInt8] {
        var data = [UInt8](SHA256.hash(data: Data(rpId.utf8))) + [flags(attested: attested)]
        data += withUnsafeBytes(of: counter.bigEndian) { Array($0) }
        if attested {
            data += aaguid + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)] + credentialId + coseKey
        }
        return data
    }

    /// Answers creation options: a `none` attestation of a new credential (or `packed`, see ``packedAttestation``).
    package mutating func create(_ options: PasskeyJSON.CreationOptions, origin: String? = nil) -> PasskeyJSON.RegistrationResponse {
        userHandle = Base64URL.decode(options.user.id) ?? []
        let clientData = clientData("webauthn.create", options.challenge, origin: origin)
        let data = authData(rpId: options.rp.id, attested: true)
        var format = "none", statement = CBOR.map([])
        if let packed = packedAttestation, let signature = try? packed.key.signature(for: data + SHA256.hash(data: clientData)).derRepresentation {
            format = "packed"
            statement = CBOR.map([(CBOR.text("alg"), CBOR.int(-7)), (CBOR.text("sig"), CBOR.bytes(Array(signature))),
                                  (CBOR.text("x5c"), CBOR.array([CBOR.bytes(packed.certificate)]))])
        }
        let object = CBOR.map([(CBOR.text("fmt"), CBOR.text(format)), (CBOR.text("attStmt"), statement), (CBOR.text("authData"), CBOR.bytes(data))])
        return .init(id: Self.b64(credentialId), rawId: Self.b64(credentialId), type: "public-key",
                     response: .init(clientDataJSON: Self.b64(clientData), attestationObject: Self.b64(object), transports: ["internal"]))
    }

    /// Answers request options: an assertion, the counter one higher.
    package mutating func get(_ options: PasskeyJSON.RequestOptions, origin: String? = nil) throws -> PasskeyJSON.AuthenticationResponse {
        counter += 1
        let clientData = clientData("webauthn.get", options.challenge, origin: origin)
        let data = authData(rpId: options.rpId, attested: false)
        let signature = try key.signature(for: data + SHA256.hash(data: clientData)).derRepresentation
        return .init(id: Self.b64(credentialId), rawId: Self.b64(credentialId), type: "public-key",
                     response: .init(clientDataJSON: Self.b64(clientData), authenticatorData: Self.b64(data), signature: Self.b64(signature),
                                     userHandle: Self.b64(userHandle)))
    }
}

/// Canonical CBOR for the few shapes the software authenticator writes.
package enum CBOR {
    package static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        switch value {
        case 0..<24: [major << 5 | UInt8(value)]
        case 24..<0x100: [major << 5 | 24, UInt8(value)]
        case 0x100..<0x1_0000: [major << 5 | 25] + withUnsafeBytes(of: UInt16(value).bigEndian) { Array($0) }
        default: [major << 5 | 26] + withUnsafeBytes(of: UInt32(value).bigEndian) { Array($0) }
        }
    }

    package static func int(_ value: Int) -> [UInt8] { value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value)) }
    package static func bytes(_ value: [UInt8]) -> [UInt8] { head(2, UInt64(value.count)) + value }
    package static func text(_ value: String) -> [UInt8] { head(3, UInt64(value.utf8.count)) + Array(value.utf8) }
    package static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, UInt64(items.count)) + items.flatMap { $0 } }
    package static func map(_ pairs: [([UInt8], [UInt8])]) -> [UInt8] { head(5, UInt64(pairs.count)) + pairs.flatMap { $0.0 + $0.1 } }
}
