import Foundation
import TesseraCore

/// An RFC 7662 introspection answer. Inactive tokens answer only `{"active": false}`.
package struct IntrospectionResponse: Codable, Sendable, Equatable {
    package var active: Bool
    package var tokenType: String?
    package var clientId: String?
    package var sub: String?
    package var iss: String?
    package var aud: String?
    package var iat: Int64?
    package var exp: Int64?
    package var jti: String?
    package var deviceId: String?
    package var amr: [String]?
    package var nodes: [String]?
    /// The result token's `app_attest` claim (issue 41): `attested` or `none`; absent when the policy is off.
    package var appAttest: String?
    /// The result token's `app_attest_nodes` claim: how many nodes verified the attestation themselves.
    package var appAttestNodes: Int?

    package init(
        active: Bool,
        tokenType: String? = nil,
        clientId: String? = nil,
        sub: String? = nil,
        iss: String? = nil,
        aud: String? = nil,
        iat: Int64? = nil,
        exp: Int64? = nil,
        jti: String? = nil,
        deviceId: String? = nil,
        amr: [String]? = nil,
        nodes: [String]? = nil,
        appAttest: String? = nil,
        appAttestNodes: Int? = nil
    ) {
        self.active = active
        self.tokenType = tokenType
        self.clientId = clientId
        self.sub = sub
        self.iss = iss
        self.aud = aud
        self.iat = iat
        self.exp = exp
        self.jti = jti
        self.deviceId = deviceId
        self.amr = amr
        self.nodes = nodes
        self.appAttest = appAttest
        self.appAttestNodes = appAttestNodes
    }

    package enum CodingKeys: String, CodingKey {
        case active, sub, iss, aud, iat, exp, jti, amr, nodes
        case tokenType = "token_type"
        case clientId = "client_id"
        case deviceId = "device_id"
        case appAttest = "app_attest"
        case appAttestNodes = "app_attest_nodes"
    }

    package static let inactive = IntrospectionResponse(active: false)
}

extension IntrospectionResponse: JSONObjectWritable {
    package func write(to writer: inout JSONObjectWriter) {
        writer.add("active", active)
        writer.add("amr", amr)
        writer.add("app_attest", appAttest)
        writer.add("app_attest_nodes", appAttestNodes)
        writer.add("aud", aud)
        writer.add("client_id", clientId)
        writer.add("device_id", deviceId)
        writer.add("exp", exp)
        writer.add("iat", iat)
        writer.add("iss", iss)
        writer.add("jti", jti)
        writer.add("nodes", nodes)
        writer.add("sub", sub)
        writer.add("token_type", tokenType)
    }
}

/// Introspection of result tokens (JWT) and session tokens for the client they were issued to. A
/// token of a revoked device or passkey, an expired or revoked session, or another client's token is inactive.
package struct Introspection: Sendable {
    package let database: any Database
    package let devices: any DeviceRepository
    package let sessions: any SessionRepository
    package let tokens: ResultTokens
    package let hasher: SecretHasher
    package let clock: WallClock
    package var sessionIdleTimeout: Duration = .seconds(7 * 86400)
    /// The passkeys: a result token of a passkey sign-in in an app (`device_id` `pk_…`) is live while its passkey is.
    package let passkeys: any PasskeyRepository
    /// Whether a device is active: on PostgreSQL the lookups of concurrent introspections go in one statement.
    private let lookups: DeviceLookups

    package init(
        database: any Database,
        devices: any DeviceRepository,
        sessions: any SessionRepository,
        tokens: ResultTokens,
        hasher: SecretHasher,
        clock: WallClock,
        sessionIdleTimeout: Duration = .seconds(7 * 86400),
        passkeys: any PasskeyRepository = SQLPasskeyRepository()
    ) {
        self.database = database
        self.devices = devices
        self.sessions = sessions
        self.tokens = tokens
        self.hasher = hasher
        self.clock = clock
        self.sessionIdleTimeout = sessionIdleTimeout
        self.passkeys = passkeys
        self.lookups = DeviceLookups(database: database, devices: devices)
    }

    package func introspect(token: String, client: Client) async throws -> IntrospectionResponse {
        guard token.utf8.count <= 8192 else { return .inactive }
        if token.hasPrefix("tss_") { return try await session(token, client: client) }
        guard let claims = try? await tokens.verify(token), claims.aud.value.contains(client.clientKey), claims.clientId == client.clientKey,
              try await deviceActive(claims.deviceId)
        else { return .inactive }
        return IntrospectionResponse(
            active: true, tokenType: "result_token", clientId: client.clientKey, sub: claims.sub.value, iss: claims.iss.value,
            aud: client.clientKey, iat: Int64(claims.iat.value.timeIntervalSince1970), exp: Int64(claims.exp.value.timeIntervalSince1970),
            jti: claims.jti.value, deviceId: claims.deviceId, amr: claims.amr, nodes: claims.nodes, appAttest: claims.appAttest,
            appAttestNodes: claims.appAttestNodes
        )
    }

    private func deviceActive(_ deviceId: String) async throws -> Bool {
        let passkeys = self.passkeys
        if deviceId.hasPrefix("pk_") { return try await database.read { try await passkeys.isActive(id: deviceId, in: $0) } }
        return try await lookups.isActive(deviceId: deviceId)
    }

    private func session(_ token: String, client: Client) async throws -> IntrospectionResponse {
        let hash = hasher.hash(token, domain: SessionService.tokenDomain)
        let now = clock.now()
        let sessions = self.sessions, usedSince = now - sessionIdleTimeout.millis
        let found = try await database.read { sql in
            try await sessions.introspect(tokenHash: hash, clientId: client.id, now: now, usedSince: usedSince, in: sql)
        }
        guard let found else { return .inactive }
        return IntrospectionResponse(
            active: true, tokenType: "session", clientId: client.clientKey, sub: found.user_key, iat: found.created_at / 1000,
            exp: found.expires_at / 1000, deviceId: found.device_id
        )
    }
}
