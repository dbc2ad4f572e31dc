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
    /// The name the hosted page shows ("Sign in to …"); nil: the client's name.
    public var displayName: String?
    /// The hosted page's accent colour (buttons, links, progress) as `#rrggbb`, with a contrast of at
    /// least 4.5:1 against white (WCAG AA); nil: Tessera's blue.
    public var accentColor: String?
    /// Whether the hosted page offers to add a passkey after a phone-approved sign-in (W3C WebAuthn
    /// registration, the user's passkeys excluded). Missing means false.
    public var offerPasskeys: Bool
    /// The SHA-256 of the client's logo, if it has one (set through the logo endpoint; not part of the JSON).
    package var logoDigest: String?

    public init(
        redirectUris: [String], numberMatching: Bool = false, idTokenSignedResponseAlg: String = "ES256", postLogoutRedirectUris: [String] = [],
        backchannelLogoutUri: String? = nil, displayName: String? = nil, accentColor: String? = nil, offerPasskeys: Bool = false
    ) {
        self.redirectUris = redirectUris
        self.numberMatching = numberMatching
        self.idTokenSignedResponseAlg = idTokenSignedResponseAlg
        self.postLogoutRedirectUris = postLogoutRedirectUris
        self.backchannelLogoutUri = backchannelLogoutUri
        self.displayName = displayName
        self.accentColor = accentColor
        self.offerPasskeys = offerPasskeys
    }

    package init(
        redirectUris: [String], numberMatching: Bool, idTokenSignedResponseAlg: String, postLogoutRedirectUris: [String],
        backchannelLogoutUri: String?, displayName: String?, accentColor: String?, logoDigest: String?, offerPasskeys: Bool
    ) {
        self.init(
            redirectUris: redirectUris, numberMatching: numberMatching, idTokenSignedResponseAlg: idTokenSignedResponseAlg,
            postLogoutRedirectUris: postLogoutRedirectUris, backchannelLogoutUri: backchannelLogoutUri, displayName: displayName,
            accentColor: accentColor, offerPasskeys: offerPasskeys
        )
        self.logoDigest = logoDigest
    }

    enum CodingKeys: String, CodingKey {
        case redirectUris, numberMatching, idTokenSignedResponseAlg, postLogoutRedirectUris, backchannelLogoutUri, displayName, accentColor, offerPasskeys
    }

    /// What the JSON shows but a client does not send: whether a logo is set (the console shows it only then).
    enum OutputKeys: String, CodingKey { case hasLogo }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(redirectUris, forKey: .redirectUris)
        try container.encode(numberMatching, forKey: .numberMatching)
        try container.encode(idTokenSignedResponseAlg, forKey: .idTokenSignedResponseAlg)
        try container.encode(postLogoutRedirectUris, forKey: .postLogoutRedirectUris)
        try container.encodeIfPresent(backchannelLogoutUri, forKey: .backchannelLogoutUri)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(accentColor, forKey: .accentColor)
        try container.encode(offerPasskeys, forKey: .offerPasskeys)
        var output = encoder.container(keyedBy: OutputKeys.self)
        try output.encode(logoDigest != nil, forKey: .hasLogo)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        redirectUris = try container.decode([String].self, forKey: .redirectUris)
        // Missing means the default; an explicit null is a wrong type (400), as the schema says.
        func optional<T: Decodable>(_ key: CodingKeys, _ type: T.Type) throws -> T? {
            container.contains(key) ? try container.decode(type, forKey: key) : nil
        }
        numberMatching = try optional(.numberMatching, Bool.self) ?? false
        idTokenSignedResponseAlg = try optional(.idTokenSignedResponseAlg, String.self) ?? "ES256"
        postLogoutRedirectUris = try optional(.postLogoutRedirectUris, [String].self) ?? []
        backchannelLogoutUri = try optional(.backchannelLogoutUri, String.self)
        displayName = try optional(.displayName, String.self)
        accentColor = try optional(.accentColor, String.self)
        offerPasskeys = try optional(.offerPasskeys, Bool.self) ?? false
    }
}
