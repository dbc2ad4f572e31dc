import Foundation
import SQLKit
import TesseraCore

/// An RFC 7662 introspection answer. Inactive tokens answer only `{"active": false}`.
struct IntrospectionResponse: Codable, Sendable, Equatable {
    var active: Bool
    var tokenType: String?
    var clientId: String?
    var sub: String?
    var iss: String?
    var aud: String?
    var iat: Int64?
    var exp: Int64?
    var jti: String?
    var deviceId: String?
    var amr: [String]?
    var nodes: [String]?

    enum CodingKeys: String, CodingKey {
        case active, sub, iss, aud, iat, exp, jti, amr, nodes
        case tokenType = "token_type"
        case clientId = "client_id"
        case deviceId = "device_id"
    }

    static let inactive = IntrospectionResponse(active: false)
}

/// Introspection of result tokens (JWT) and session tokens for the client they were issued to. A
/// token of a revoked device, an expired or revoked session, or another client's token is inactive.
struct Introspection: Sendable {
    let database: any Database
    let tokens: ResultTokens
    let hasher: SecretHasher
    let clock: WallClock
    var sessionIdleTimeout: Duration = .seconds(7 * 86400)

    func introspect(token: String, client: Client) async throws -> IntrospectionResponse {
        guard token.count <= 8192 else { return .inactive }
        if token.hasPrefix("tss_") { return try await session(token, client: client) }
        guard let claims = try? await tokens.verify(token), claims.aud.value.contains(client.clientKey), claims.clientId == client.clientKey,
              try await deviceActive(claims.deviceId)
        else { return .inactive }
        return IntrospectionResponse(
            active: true, tokenType: "result_token", clientId: client.clientKey, sub: claims.sub.value, iss: claims.iss.value,
            aud: client.clientKey, iat: Int64(claims.iat.value.timeIntervalSince1970), exp: Int64(claims.exp.value.timeIntervalSince1970),
            jti: claims.jti.value, deviceId: claims.deviceId, amr: claims.amr, nodes: claims.nodes
        )
    }

    private func deviceActive(_ deviceId: String) async throws -> Bool {
        try await database.read { sql in
            try await sql.raw("SELECT 1 AS ok FROM devices WHERE id = \(bind: deviceId) AND status = 'active'").first() != nil
        }
    }

    private func session(_ token: String, client: Client) async throws -> IntrospectionResponse {
        let hash = hasher.hash(token, domain: SessionService.tokenDomain)
        let now = clock.now()
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT s.created_at, s.expires_at, s.device_id, u.user_key FROM sessions s
                JOIN users u ON u.id = s.user_id JOIN devices d ON d.id = s.device_id
                WHERE s.token_hash = \(bind: hash) AND s.revoked_at IS NULL AND s.expires_at > \(bind: now)
                  AND s.last_used_at > \(bind: now - sessionIdleTimeout.millis)
                  AND d.status = 'active' AND u.client_id = \(bind: client.id)
                """
            ).first()
        }
        guard let row else { return .inactive }
        return IntrospectionResponse(
            active: true, tokenType: "session", clientId: client.clientKey, sub: try row.decode(column: "user_key", as: String.self),
            iat: try row.decode(column: "created_at", as: Int64.self) / 1000, exp: try row.decode(column: "expires_at", as: Int64.self) / 1000,
            deviceId: try row.decode(column: "device_id", as: String?.self)
        )
    }
}
