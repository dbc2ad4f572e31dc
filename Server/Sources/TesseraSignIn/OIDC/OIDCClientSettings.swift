import Foundation

/// A client's OpenID Connect settings.
public struct OIDCClientSettings: Sendable, Codable, Equatable {
    /// The redirect URIs, matched exactly.
    public var redirectUris: [String]
    /// Number matching on the hosted sign-in page: the page shows two digits that the phone asks the
    /// user to pick (against push fatigue). Missing means false.
    public var numberMatching: Bool

    public init(redirectUris: [String], numberMatching: Bool = false) {
        self.redirectUris = redirectUris
        self.numberMatching = numberMatching
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        redirectUris = try container.decode([String].self, forKey: .redirectUris)
        // Missing means false; an explicit null is a wrong type (400), as the schema says.
        numberMatching = container.contains(.numberMatching) ? try container.decode(Bool.self, forKey: .numberMatching) : false
    }
}
