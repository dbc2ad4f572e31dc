import SQLKit
import TesseraCore

/// `node_app_attest`: one row per device the node heard App Attest news of (a record with evidence, or with
/// `appAttestRequired` set).
extension SQLNodeRegistryRepository {
    func appAttest(deviceId: String, in sql: any SQLDatabase) async throws -> (required: Bool, outcome: NodeAppAttestOutcome?)? {
        guard let row = try await sql.raw(
            "SELECT required, status, failure, key_id, verified_at FROM node_app_attest WHERE device_id = \(bind: deviceId)"
        ).first() else {
            return nil
        }
        let required = try row.decode(column: "required", as: Int.self) != 0
        guard let status = try row.decode(column: "status", as: String?.self) else { return (required, nil) }
        let outcome = NodeAppAttestOutcome(
            status: status, failure: try row.decode(column: "failure", as: String?.self),
            keyId: try row.decode(column: "key_id", as: String?.self) ?? "", verifiedAt: try row.decode(column: "verified_at", as: Int64?.self) ?? 0
        )
        return (required, outcome)
    }

    func saveAppAttest(deviceId: String, required: Bool, outcome: NodeAppAttestOutcome?, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO node_app_attest (device_id, required, status, failure, key_id, verified_at)
            VALUES (\(bind: deviceId), \(bind: required ? 1 : 0), \(bind: outcome?.status), \(bind: outcome?.failure),
                    \(bind: outcome?.keyId), \(bind: outcome?.verifiedAt))
            ON CONFLICT (device_id) DO UPDATE SET required = excluded.required, status = excluded.status, failure = excluded.failure,
                key_id = excluded.key_id, verified_at = excluded.verified_at
            """
        ).run()
    }
}
