import SQLKit
import TesseraCore

extension SQLDeviceRepository {
    package func activeAmong(deviceIds: [String], in sql: any SQLDatabase) async throws -> Set<String> {
        guard !deviceIds.isEmpty else { return [] }
        guard sql.dialect.name == "postgresql" else {
            var active = Set<String>()
            for deviceId in Set(deviceIds) where try await isActive(deviceId: deviceId, in: sql) { active.insert(deviceId) }
            return active
        }
        // One text, whatever the number of keys: prepared once per connection.
        return try await Set(
            sql.statement("SELECT id FROM devices WHERE id = ANY(?) AND status = 'active'", Array(Set(deviceIds))).all()
                .map { try $0.decode(column: "id", as: String.self) }
        )
    }

    package func activeTOTPSecrets(of users: [ClientUserKey], in sql: any SQLDatabase) async throws -> [ClientUserKey: [DeviceTOTPSecret]] {
        guard !users.isEmpty else { return [:] }
        var found: [ClientUserKey: [DeviceTOTPSecret]] = [:]
        guard sql.dialect.name == "postgresql" else {
            for user in Set(users) {
                let secrets = try await activeTOTPSecrets(clientId: user.clientId, userKey: user.userKey, in: sql)
                if !secrets.isEmpty { found[user] = secrets }
            }
            return found
        }
        let users = Array(Set(users))
        let rows = try await sql.statement(
            """
            SELECT k.client_id, k.user_key, d.user_id, d.id AS device_id, d.totp_secret_sealed
            FROM unnest(?::text[], ?::text[]) AS k(client_id, user_key)
            JOIN users u ON u.client_id = k.client_id AND u.user_key = k.user_key
            JOIN devices d ON d.user_id = u.id AND d.status = 'active'
            """,
            users.map(\.clientId), users.map(\.userKey)
        ).all()
        for row in rows {
            let user = ClientUserKey(clientId: try row.decode(column: "client_id", as: String.self), userKey: try row.decode(column: "user_key", as: String.self))
            found[user, default: []].append(
                DeviceTOTPSecret(
                    userId: try row.decode(column: "user_id", as: String.self), deviceId: try row.decode(column: "device_id", as: String.self),
                    totpSecretSealed: try row.decode(column: "totp_secret_sealed", as: String.self)
                )
            )
        }
        return found
    }
}
