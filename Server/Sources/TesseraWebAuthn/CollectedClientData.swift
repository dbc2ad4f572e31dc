import Foundation

/// The client data a browser collected and the authenticator signed a hash of (W3C WebAuthn
/// Level 3, §5.8.1), parsed from `clientDataJSON`.
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge, decoded from base64url.
    public let challenge: [UInt8]
    /// The origin of the page that ran the ceremony.
    public let origin: String
    /// Whether the ceremony ran in a cross-origin iframe.
    public let crossOrigin: Bool
    /// The top-level origin, for a cross-origin ceremony.
    public let topOrigin: String?

    private struct Wire: Decodable {
        var type: String
        var challenge: String
        var origin: String
        var crossOrigin: Bool?
        var topOrigin: String?
    }

    /// Parses `json` (UTF-8 JSON; members beyond those above are ignored, as §5.8.1.2 requires).
    public init(_ json: [UInt8]) throws(WebAuthnError) {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(json)) else {
            throw .malformed("clientDataJSON is not JSON with type, challenge and origin")
        }
        guard let challenge = Base64URL.decode(wire.challenge) else { throw .malformed("the challenge is not base64url") }
        type = wire.type
        self.challenge = challenge
        origin = wire.origin
        crossOrigin = wire.crossOrigin ?? false
        topOrigin = wire.topOrigin
    }
}
