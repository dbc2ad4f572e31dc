import Crypto
import Foundation
import TesseraCore

/// What the SDK hands `DCAppAttestService` and the server for App Attest, in plain Swift: the attestation's
/// `clientDataHash` (SHA-256 of the challenge's raw bytes) and an assertion's client data (a JSON object whose
/// `challenge` member is the challenge's text, beside the members of the request it is for).
enum AppAttestClientData {
    /// The challenge's bytes: base64url without padding, as the server issues it; `ErrorCode.invalidResponse` otherwise.
    static func challengeBytes(_ challenge: String) throws -> Data {
        var base64 = challenge.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard !challenge.isEmpty, !challenge.contains("="), !challenge.contains("+"), !challenge.contains("/"),
              let data = Data(base64Encoded: base64)
        else {
            throw TesseraError(code: .invalidResponse, message: "The server's App Attest challenge is not base64url")
        }
        return data
    }

    /// The attestation's `clientDataHash`: SHA-256 of the challenge's raw bytes (not of its text), as the server
    /// computes the nonce SHA-256(authData ‖ SHA-256(challenge)).
    static func attestationHash(challenge: String) throws -> Data {
        Data(SHA256.hash(data: try challengeBytes(challenge)))
    }

    /// An assertion's client data: `members` and `challenge`, as JSON with sorted keys. A `challenge` among `members`
    /// is refused (`ErrorCode.fieldInvalid`): the SDK sets it.
    static func assertion(challenge: String, members: [String: String]) throws -> Data {
        try check(members)
        var object = members
        object["challenge"] = challenge
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(object)
    }

    /// Refuses `members` with a `challenge` (`ErrorCode.fieldInvalid`): the SDK sets it.
    static func check(_ members: [String: String]) throws {
        guard members["challenge"] == nil else {
            throw TesseraError(code: .fieldInvalid, message: "The client data's challenge member is the SDK's: leave it out of clientData")
        }
    }

    /// An assertion's `clientDataHash`: SHA-256 of the client data's bytes, exactly as they are sent.
    static func assertionHash(_ clientData: Data) -> Data {
        Data(SHA256.hash(data: clientData))
    }
}
