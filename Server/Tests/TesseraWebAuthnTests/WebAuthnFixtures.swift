import Foundation
import TesseraWebAuthn

/// The W3C WebAuthn Level 3 §16 test vectors (Server/Tests/Fixtures/webauthn/l3_test_vectors.json,
/// copied from the specification's source; see its `source`).
enum WebAuthnFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/webauthn")

    struct Vector: Sendable {
        var name: String
        var format: String
        var coseAlg: Int64
        var rpId: String
        var origin: String
        var credentialId: [UInt8]
        var aaguid: [UInt8]
        var challenge: [UInt8]
        var clientDataJSON: [UInt8]
        var attestationObject: [UInt8]
        var assertion: Assertion?
    }

    struct Assertion: Sendable {
        var challenge: [UInt8]
        var clientDataJSON: [UInt8]
        var authenticatorData: [UInt8]
        var signature: [UInt8]
    }

    static func hex(_ text: String) -> [UInt8] { CBORDecoderTests.hex(text) }

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent("l3_test_vectors.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    static func vectors() throws -> [Vector] {
        let items = try document()["vectors"] as? [[String: Any]] ?? []
        return items.map { item in
            let registration = item["registration"] as? [String: Any] ?? [:]
            let authentication = item["authentication"] as? [String: Any]
            return Vector(
                name: item["name"] as? String ?? "", format: item["attestationFormat"] as? String ?? "",
                coseAlg: (item["coseAlg"] as? NSNumber)?.int64Value ?? 0, rpId: item["rpId"] as? String ?? "",
                origin: item["origin"] as? String ?? "", credentialId: hex(item["credentialId"] as? String ?? ""),
                aaguid: hex(item["aaguid"] as? String ?? ""), challenge: hex(registration["challenge"] as? String ?? ""),
                clientDataJSON: hex(registration["clientDataJSON"] as? String ?? ""),
                attestationObject: hex(registration["attestationObject"] as? String ?? ""),
                assertion: authentication.map {
                    Assertion(
                        challenge: hex($0["challenge"] as? String ?? ""), clientDataJSON: hex($0["clientDataJSON"] as? String ?? ""),
                        authenticatorData: hex($0["authenticatorData"] as? String ?? ""), signature: hex($0["signature"] as? String ?? "")
                    )
                }
            )
        }
    }

    /// The DER certificate of the specification's attestation CA (the root of every x5c chain in the vectors).
    static func attestationRoot() throws -> [UInt8] {
        hex((try document()["attestationCa"] as? [String: Any])?["certificateDer"] as? String ?? "")
    }
}
