import Foundation
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

extension IntrospectionResponse: JSONObjectWritable {
    func write(to writer: inout JSONObjectWriter) {
        writer.add("active", active)
        writer.add("amr", amr)
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
/// token of a revoked device, an expired or revoked session, or another client's token is inactive.
struct Introspection: Sendable {
    let database: any Database
    let devices: any DeviceRepository
    let sessions: any SessionRepository
    let tokens: ResultTokens
    let hasher: SecretHasher
    let clock: WallClock
    var sessionIdleTimeout: Duration = .seconds(7 * 86400)

    func introspect(token: String, client: Client) async throws -> IntrospectionResponse {
        guard token.utf8.count <= 8192 else { return .inactive }
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
        let devices = self.devices
        return try await database.read { try await devices.isActive(deviceId: deviceId, in: $0) }
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
