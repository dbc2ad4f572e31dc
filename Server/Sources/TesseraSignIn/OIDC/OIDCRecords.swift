import Foundation

/// A pending authorization of the hosted sign-in page.
package struct OIDCPendingRequest: Sendable {
    package var id: String
    package var clientId: String
    package var clientKey: String
    package var redirectUri: String
    package var state: String
    package var nonce: String
    package var codeChallenge: String
    package var scope: String
    package var csrfHash: String
    package var channelId: String?
    package var identifiedAt: Int64?
    package var createdAt: Int64
    package var expiresAt: Int64
    package var completedAt: Int64?
    /// The page's language that `ui_locales` asked for (a catalogue's tag); nil: the browser's `Accept-Language`.
    package var locale: String?


    package init(

        id: String,

        clientId: String,

        clientKey: String,

        redirectUri: String,

        state: String,

        nonce: String,

        codeChallenge: String,

        scope: String,

        csrfHash: String,

        channelId: String? = nil,

        identifiedAt: Int64? = nil,

        createdAt: Int64,

        expiresAt: Int64,

        completedAt: Int64? = nil,

        locale: String? = nil

    ) {

        self.id = id

        self.clientId = clientId

        self.clientKey = clientKey

        self.redirectUri = redirectUri

        self.state = state

        self.nonce = nonce

        self.codeChallenge = codeChallenge

        self.scope = scope

        self.csrfHash = csrfHash

        self.channelId = channelId

        self.identifiedAt = identifiedAt

        self.createdAt = createdAt

        self.expiresAt = expiresAt

        self.completedAt = completedAt
        self.locale = locale

    }
}

/// An authorization code as stored (by its keyed hash).
package struct OIDCCode: Sendable {
    package var codeHash: String
    package var requestId: String
    package var clientId: String
    package var redirectUri: String
    package var codeChallenge: String
    package var nonce: String
    package var scope: String
    package var userKey: String
    package var authTime: Int64
    package var amr: [String]
    package var expiresAt: Int64
    package var usedAt: Int64?
    /// The session at Tessera the sign-in started or reused (the ID token's `sid`).
    package var sessionId: String?


    package init(

        codeHash: String,

        requestId: String,

        clientId: String,

        redirectUri: String,

        codeChallenge: String,

        nonce: String,

        scope: String,

        userKey: String,

        authTime: Int64,

        amr: [String],

        expiresAt: Int64,

        usedAt: Int64? = nil,

        sessionId: String? = nil

    ) {

        self.codeHash = codeHash

        self.requestId = requestId

        self.clientId = clientId

        self.redirectUri = redirectUri

        self.codeChallenge = codeChallenge

        self.nonce = nonce

        self.scope = scope

        self.userKey = userKey

        self.authTime = authTime

        self.amr = amr

        self.expiresAt = expiresAt

        self.usedAt = usedAt

        self.sessionId = sessionId

    }
}

/// An access token as stored (by its keyed hash).
package struct OIDCAccessToken: Sendable {
    package var clientId: String
    package var userKey: String
    package var scope: String
    package var expiresAt: Int64
    package var revokedAt: Int64?
    /// The session at Tessera of the sign-in (its end revokes the token).
    package var sessionId: String?

    package init(clientId: String, userKey: String, scope: String, expiresAt: Int64, revokedAt: Int64? = nil, sessionId: String? = nil) {
        self.clientId = clientId
        self.userKey = userKey
        self.scope = scope
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.sessionId = sessionId
    }
}

/// A refresh token as stored (by its keyed hash): one of a family, the tokens of one sign-in.
package struct OIDCRefreshToken: Sendable, Equatable {
    package var tokenHash: String
    /// The hash of the code the sign-in began with (its access tokens' `code_hash`).
    package var family: String
    package var clientId: String
    package var userKey: String
    /// The scope granted at sign-in; a refresh may ask for less for its access token, never for more.
    package var scope: String
    /// When the user approved (the ID token's `auth_time` after every refresh).
    package var authTime: Int64
    package var amr: [String]
    /// The family's end: the sign-in plus the refresh-token lifetime, the same for each token of it.
    package var expiresAt: Int64
    package var usedAt: Int64?
    package var revokedAt: Int64?
    /// The session at Tessera of the sign-in: its `sid` in refreshed ID tokens; its end revokes the family.
    package var sessionId: String?

    package init(
        tokenHash: String, family: String, clientId: String, userKey: String, scope: String, authTime: Int64, amr: [String],
        expiresAt: Int64, usedAt: Int64? = nil, revokedAt: Int64? = nil, sessionId: String? = nil
    ) {
        self.tokenHash = tokenHash
        self.family = family
        self.clientId = clientId
        self.userKey = userKey
        self.scope = scope
        self.authTime = authTime
        self.amr = amr
        self.expiresAt = expiresAt
        self.usedAt = usedAt
        self.revokedAt = revokedAt
        self.sessionId = sessionId
    }
}

/// A session at Tessera: a browser signed in to one client as one user (OIDC Core's End-User session;
/// its ID is the `sid` of Front- and Back-Channel Logout). The browser holds a random token in a cookie;
/// only its keyed hash is stored.
package struct OIDCSession: Sendable, Equatable {
    /// The `sid`.
    package var id: String
    package var browserHash: String
    package var clientId: String
    /// The client's key (the logout token's `aud`).
    package var clientKey: String
    package var userKey: String
    /// When the user last approved on the phone (seconds since 1970): `max_age` is measured from it.
    package var authTime: Int64
    package var amr: [String]
    package var createdAt: Int64
    package var expiresAt: Int64
    package var endedAt: Int64?

    package init(
        id: String, browserHash: String, clientId: String, clientKey: String, userKey: String, authTime: Int64, amr: [String], createdAt: Int64,
        expiresAt: Int64, endedAt: Int64? = nil
    ) {
        self.id = id
        self.browserHash = browserHash
        self.clientId = clientId
        self.clientKey = clientKey
        self.userKey = userKey
        self.authTime = authTime
        self.amr = amr
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.endedAt = endedAt
    }
}
