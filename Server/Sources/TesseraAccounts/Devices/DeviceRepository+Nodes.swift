import SQLKit
import TesseraCore

extension SQLDeviceRepository {
    package func nodeRecords(deviceIds: [String]) async throws -> [String: NodeDeviceRecord] {
        guard !deviceIds.isEmpty else { return [:] }
        return try await database.read { sql in
            var records: [String: NodeDeviceRecord] = [:]
            let rows = try await sql.select().columns("id", "client_id", "user_id", "device_key", "uv_key", "status").from("devices")
                .where("id", .in, Array(Set(deviceIds))).all()
            for row in rows {
                let record = NodeDeviceRecord(
                    deviceId: try row.decode(column: "id", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
                    userId: try row.decode(column: "user_id", as: String.self), deviceKey: try row.decode(column: "device_key", as: String.self),
                    userVerificationKey: try row.decode(column: "uv_key", as: String.self),
                    status: try row.decode(column: "status", as: String.self) == "active" ? "active" : "revoked"
                )
                records[record.deviceId] = record
            }
            return records
        }
    }
}
