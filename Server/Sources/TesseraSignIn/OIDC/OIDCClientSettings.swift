import Foundation

/// A client's OpenID Connect settings.
public struct OIDCClientSettings: Sendable, Codable, Equatable {
    /// The redirect URIs, matched exactly.
    public var redirectUris: [String]
    /// Number matching on the hosted sign-in page: the page shows two digits that the phone asks the
    /// user to pick (against push fatigue). Missing means false.
    public var numberMatching: Bool
    /// How the client's ID tokens are signed (OIDC Dynamic Client Registration's
    /// `id_token_signed_response_alg`): `ES256` (the default) or `RS256`.
    public var idTokenSignedResponseAlg: String
    /// Where the end-session endpoint may send the browser after a logout (RP-Initiated Logout 1.0
    /// `post_logout_redirect_uris`), matched exactly. Missing means none.
    public var postLogoutRedirectUris: [String]
    /// Where a logout token is POSTed when one of the client's sessions ends (Back-Channel Logout 1.0
    /// `backchannel_logout_uri`); nil: the client is not told.
    public var backchannelLogoutUri: String?

    public init(
        redirectUris: [String], numberMatching: Bool = false, idTokenSignedResponseAlg: String = "ES256", postLogoutRedirectUris: [String] = [],
        backchannelLogoutUri: String? = nil
    ) {
        self.redirectUris = redirectUris
        self.numberMatching = numberMatching
        self.idTokenSignedResponseAlg = idTokenSignedResponseAlg
        self.postLogoutRedirectUris = postLogoutRedirectUris
        self.backchannelLogoutUri = backchannelLogoutUri
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        redirectUris = try container.decode([String].self, forKey: .redirectUris)
        // Missing means the default; an explicit null is a wrong type (400), as the schema says.
        numberMatching = container.contains(.numberMatching) ? try container.decode(Bool.self, forKey: .numberMatching) : false
        idTokenSignedResponseAlg = container.contains(.idTokenSignedResponseAlg)
            ? try container.decode(String.self, forKey: .idTokenSignedResponseAlg) : "ES256"
        postLogoutRedirectUris = container.contains(.postLogoutRedirectUris)
            ? try container.decode([String].self, forKey: .postLogoutRedirectUris) : []
        backchannelLogoutUri = container.contains(.backchannelLogoutUri) ? try container.decode(String.self, forKey: .backchannelLogoutUri) : nil
    }
}
