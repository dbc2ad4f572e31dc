import SQLKit
import TesseraCore

/// A registration flow as stored.
package struct RegistrationFlowRecord: Sendable, Decodable {
    package var id: String
    package var client_id: String
    package var state: String
    package var phone: String?
    package var dispose_hash: String?
    package var user_id: String?
    package var created_at: Int64
    package var updated_at: Int64
    package var expires_at: Int64

    package var flowState: RegistrationFlowState { RegistrationFlowState(rawValue: state) ?? .created }
}

/// Storage of registration flows, the one owner of `registration_flows`. Every step is one
/// conditional update from the state it expects, so two concurrent calls cannot both move a flow.
/// Methods take the caller's transaction handle.
package protocol RegistrationFlowRepository: Sendable {
    func insert(id: String, clientId: String, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws
    func find(id: String, clientId: String, in sql: any SQLDatabase) async throws -> RegistrationFlowRecord?
    /// Records the phone a code went to (from `created` or `otp_sent`).
    func markOTPSent(id: String, phone: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// `otp_sent` → `verified` for that phone, keeping the dispose token's hash.
    func markVerified(id: String, phone: String, disposeHash: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// `verified` → `finished`; returns the dispose token's hash when this call moved it.
    func markFinished(id: String, userId: String, now: Int64, in sql: any SQLDatabase) async throws -> String?
    /// Deletes flows that expired before `cutoff`.
    func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws
}

/// ``RegistrationFlowRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLRegistrationFlowRepository: RegistrationFlowRepository {

    package init() {}

    package func insert(id: String, clientId: String, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO registration_flows (id, client_id, state, created_at, updated_at, expires_at)
            VALUES (\(bind: id), \(bind: clientId), 'created', \(bind: now), \(bind: now), \(bind: expiresAt))
            """
        ).run()
    }

    package func find(id: String, clientId: String, in sql: any SQLDatabase) async throws -> RegistrationFlowRecord? {
        try await sql.raw("SELECT * FROM registration_flows WHERE id = \(bind: id) AND client_id = \(bind: clientId)")
            .first(decoding: RegistrationFlowRecord.self)
    }

    /// Records the phone a code went to (from `created` or `otp_sent`).
    package func markOTPSent(id: String, phone: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE registration_flows SET state = 'otp_sent', phone = \(bind: phone), updated_at = \(bind: now)
            WHERE id = \(bind: id) AND state IN ('created', 'otp_sent') AND expires_at > \(bind: now) RETURNING id
            """
        ).first() != nil
    }

    /// `otp_sent` → `verified` for that phone, keeping the dispose token's hash.
    package func markVerified(id: String, phone: String, disposeHash: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE registration_flows SET state = 'verified', dispose_hash = \(bind: disposeHash), updated_at = \(bind: now)
            WHERE id = \(bind: id) AND state = 'otp_sent' AND phone = \(bind: phone) AND expires_at > \(bind: now) RETURNING id
            """
        ).first() != nil
    }

    /// `verified` → `finished`; returns the dispose token's hash when this call moved it.
    package func markFinished(id: String, userId: String, now: Int64, in sql: any SQLDatabase) async throws -> String? {
        try await sql.raw(
            """
            UPDATE registration_flows SET state = 'finished', user_id = \(bind: userId), updated_at = \(bind: now)
            WHERE id = \(bind: id) AND state = 'verified' AND expires_at > \(bind: now) RETURNING dispose_hash
            """
        ).first()?.decode(column: "dispose_hash", as: String?.self)
    }

    package func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM registration_flows WHERE expires_at < \(bind: cutoff)").run()
    }
}
