import SQLKit
import TesseraCore

/// What a node holds of one passkey.
struct NodePasskey: Sendable {
    var record: NodePasskeyRecord
    var keysDigest: String
    var signCount: Int64
}

/// The node's own registry of passkeys, the one owner of `node_passkeys` and `node_passkey_challenges`.
/// Each method runs on the caller's handle.
protocol NodePasskeyRepository: Sendable {
    /// The passkey as stored; nil when it is unknown.
    func passkey(id: String, in sql: any SQLDatabase) async throws -> NodePasskey?
    /// Stores the passkey as active unless it is known already (a revoked passkey stays revoked).
    func enrol(_ record: NodePasskeyRecord, now: Int64, in sql: any SQLDatabase) async throws
    /// Stores the passkey as revoked, known or not: a revocation is permanent.
    func revoke(_ record: NodePasskeyRecord, now: Int64, in sql: any SQLDatabase) async throws
    /// Moves the counter from `from` to `to`; false when another assertion moved it first.
    func advance(id: String, from: Int64, to: Int64, now: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Records a challenge until `expiresAt`; false when it was recorded before (a replay).
    func useChallenge(_ challenge: String, expiresAt: Int64, in sql: any SQLDatabase) async throws -> Bool
    /// Forgets challenges that expired before `now`.
    func purgeChallenges(before now: Int64, in sql: any SQLDatabase) async throws
}

/// ``NodePasskeyRepository`` over SQLKit.
struct SQLNodePasskeyRepository: NodePasskeyRepository {
    private struct Row: Decodable {
        var passkey_id: String
        var client_id: String
        var user_id: String
        var credential_id: String
        var public_key: String
        var user_handle: String
        var rp_id: String
        var origins: String
        var keys_digest: String
        var status: String
        var sign_count: Int64
    }

    func passkey(id: String, in sql: any SQLDatabase) async throws -> NodePasskey? {
        guard let row = try await sql.raw(
            """
            SELECT passkey_id, client_id, user_id, credential_id, public_key, user_handle, rp_id, origins, keys_digest, status, sign_count
            FROM node_passkeys WHERE passkey_id = \(bind: id)
            """
        ).first(decoding: Row.self) else { return nil }
        let record = NodePasskeyRecord(
            passkeyId: row.passkey_id, clientId: row.client_id, userId: row.user_id, credentialId: row.credential_id, publicKey: row.public_key,
            userHandle: row.user_handle, rpId: row.rp_id, origins: row.origins.split(separator: " ").map(String.init), status: row.status
        )
        return NodePasskey(record: record, keysDigest: row.keys_digest, signCount: row.sign_count)
    }

    private func insert(_ record: NodePasskeyRecord, status: String, now: Int64) -> SQLQueryString {
        """
        INSERT INTO node_passkeys (passkey_id, client_id, user_id, credential_id, public_key, user_handle, rp_id, origins, keys_digest, status,
                                   sign_count, updated_at)
        VALUES (\(bind: record.passkeyId), \(bind: record.clientId), \(bind: record.userId), \(bind: record.credentialId), \(bind: record.publicKey),
                \(bind: record.userHandle), \(bind: record.rpId), \(bind: record.origins.joined(separator: " ")), \(bind: record.keysDigest),
                \(bind: status), 0, \(bind: now))
        """
    }

    func enrol(_ record: NodePasskeyRecord, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(insert(record, status: "active", now: now) + " ON CONFLICT (passkey_id) DO NOTHING").run()
    }

    func revoke(_ record: NodePasskeyRecord, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            insert(record, status: "revoked", now: now)
                + " ON CONFLICT (passkey_id) DO UPDATE SET status = 'revoked', updated_at = \(bind: now)"
        ).run()
    }

    func advance(id: String, from: Int64, to: Int64, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            UPDATE node_passkeys SET sign_count = \(bind: to), updated_at = \(bind: now)
            WHERE passkey_id = \(bind: id) AND sign_count = \(bind: from) AND status = 'active' RETURNING passkey_id
            """
        ).first() != nil
    }

    func useChallenge(_ challenge: String, expiresAt: Int64, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw(
            """
            INSERT INTO node_passkey_challenges (challenge, expires_at) VALUES (\(bind: challenge), \(bind: expiresAt))
            ON CONFLICT (challenge) DO NOTHING RETURNING challenge
            """
        ).first() != nil
    }

    func purgeChallenges(before now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM node_passkey_challenges WHERE expires_at < \(bind: now)").run()
    }
}
