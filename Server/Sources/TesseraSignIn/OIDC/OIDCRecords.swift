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
}
