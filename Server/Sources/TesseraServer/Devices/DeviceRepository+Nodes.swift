import SQLKit
import TesseraCore

extension SQLDeviceRepository {
    func nodeRecord(deviceId: String) async throws -> NodeDeviceRecord? {
        try await database.read { sql in
            guard let row = try await sql.raw(
                "SELECT id, client_id, user_id, device_key, uv_key, status FROM devices WHERE id = \(bind: deviceId)"
            ).first() else { return nil }
            return NodeDeviceRecord(
                deviceId: deviceId, clientId: try row.decode(column: "client_id", as: String.self),
                userId: try row.decode(column: "user_id", as: String.self), deviceKey: try row.decode(column: "device_key", as: String.self),
                userVerificationKey: try row.decode(column: "uv_key", as: String.self),
                status: try row.decode(column: "status", as: String.self) == "active" ? "active" : "revoked"
            )
        }
    }
}
