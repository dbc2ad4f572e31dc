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

        completedAt: Int64? = nil

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

        usedAt: Int64? = nil

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

    }
}

/// An access token as stored (by its keyed hash).
package struct OIDCAccessToken: Sendable {
    package var clientId: String
    package var userKey: String
    package var scope: String
    package var expiresAt: Int64
    package var revokedAt: Int64?

    package init(clientId: String, userKey: String, scope: String, expiresAt: Int64, revokedAt: Int64? = nil) {
        self.clientId = clientId
        self.userKey = userKey
        self.scope = scope
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
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

    package init(
        tokenHash: String, family: String, clientId: String, userKey: String, scope: String, authTime: Int64, amr: [String],
        expiresAt: Int64, usedAt: Int64? = nil, revokedAt: Int64? = nil
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
    }
}
