import SQLKit
import TesseraCore

/// Storage of passkeys, the one owner of `passkey_users`, `passkey_credentials` and
/// `passkey_challenges`. Methods take the caller's transaction handle.
package protocol PasskeyRepository: Sendable {
    /// The user's handle at this client, created as `candidate` when it has none yet.
    func userHandle(clientId: String, userId: String, candidate: String, now: Int64, in sql: any SQLDatabase) async throws -> String
    /// Stores a new passkey; a credential ID the client has already fails with a unique violation.
    func insert(_ credential: PasskeyCredential, in sql: any SQLDatabase) async throws
    /// The client's active passkey with this credential ID.
    func credential(clientId: String, credentialId: String, in sql: any SQLDatabase) async throws -> PasskeyCredential?
    /// The user's active passkeys (at `clientId`, or at every client), oldest first.
    func list(userId: String, clientId: String?, in sql: any SQLDatabase) async throws -> [PasskeyCredential]
    /// Records a sign-in: the new counter and backup state, the time of use.
    func recordUse(id: String, signCount: Int64, backedUp: Bool, now: Int64, in sql: any SQLDatabase) async throws
    /// Whether the passkey with this ID is active (not revoked): a result token it signed in is live only then.
    func isActive(id: String, in sql: any SQLDatabase) async throws -> Bool
    /// Flags a passkey whose counter went back (kept active: the admin decides).
    func flag(id: String, now: Int64, in sql: any SQLDatabase) async throws
    /// Renames an active passkey (of `userId` when given); false when there is none.
    func rename(id: String, userId: String?, name: String, in sql: any SQLDatabase) async throws -> Bool
    /// Revokes an active passkey (of `userId` when given); the revoked record, nil when there is none.
    func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> PasskeyCredential?
    func insertChallenge(_ challenge: PasskeyChallenge, in sql: any SQLDatabase) async throws
    /// Marks the challenge used and returns it when it is this client's and binding's, of this
    /// ceremony, unused and not expired at `now`; nil otherwise (a second use finds nothing).
    func consumeChallenge(
        id: String, clientId: String, binding: String, ceremony: PasskeyChallenge.Ceremony, now: Int64, in sql: any SQLDatabase
    ) async throws -> PasskeyChallenge?
    /// Deletes challenges that expired before `before` (the janitor).
    func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws
}

/// ``PasskeyRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLPasskeyRepository: PasskeyRepository {
    package init() {}

    private struct Row: Decodable {
        var id: String
        var client_id: String
        var user_id: String
        var credential_id: String
        var user_handle: String
        var public_key: String
        var algorithm: Int
        var sign_count: Int64
        var aaguid: String
        var backup_eligible: Int
        var backed_up: Int
        var attestation_format: String
        var attestation_type: String
        var transports: String
        var name: String
        var created_at: Int64
        var last_used_at: Int64?
        var flagged_at: Int64?

        var record: PasskeyCredential {
            PasskeyCredential(
                id: id, clientId: client_id, userId: user_id, credentialId: credential_id, userHandle: user_handle, publicKey: public_key,
                algorithm: algorithm, signCount: sign_count, aaguid: aaguid, backupEligible: backup_eligible != 0, backedUp: backed_up != 0,
                attestationFormat: attestation_format, attestationType: attestation_type,
                transports: transports.split(separator: ",").map(String.init), name: name, createdAt: created_at,
                lastUsedAt: last_used_at, flaggedAt: flagged_at
            )
        }
    }

    private static let columns = """
        id, client_id, user_id, credential_id, user_handle, public_key, algorithm, sign_count, aaguid, backup_eligible, backed_up,
        attestation_format, attestation_type, transports, name, created_at, last_used_at, flagged_at
        """

    private struct Handle: Decodable { var user_handle: String }

    package func userHandle(clientId: String, userId: String, candidate: String, now: Int64, in sql: any SQLDatabase) async throws -> String {
        try await sql.raw(
            """
            INSERT INTO passkey_users (client_id, user_id, user_handle, created_at) VALUES (\(bind: clientId), \(bind: userId), \(bind: candidate), \(bind: now))
            ON CONFLICT (client_id, user_id) DO NOTHING
            """
        ).run()
        guard let row = try await sql.raw(
            "SELECT user_handle FROM passkey_users WHERE client_id = \(bind: clientId) AND user_id = \(bind: userId)"
        ).first(decoding: Handle.self) else { throw AppError.internalError(detail: "the passkey user handle was not stored") }
        return row.user_handle
    }

    package func insert(_ c: PasskeyCredential, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO passkey_credentials (\(unsafeRaw: Self.columns), status)
            VALUES (\(bind: c.id), \(bind: c.clientId), \(bind: c.userId), \(bind: c.credentialId), \(bind: c.userHandle), \(bind: c.publicKey),
                    \(bind: c.algorithm), \(bind: c.signCount), \(bind: c.aaguid), \(bind: c.backupEligible ? 1 : 0), \(bind: c.backedUp ? 1 : 0),
                    \(bind: c.attestationFormat), \(bind: c.attestationType), \(bind: c.transports.joined(separator: ",")), \(bind: c.name), \(bind: c.createdAt), \(bind: c.lastUsedAt),
                    \(bind: c.flaggedAt), 'active')
            """
        ).run()
    }

    package func credential(clientId: String, credentialId: String, in sql: any SQLDatabase) async throws -> PasskeyCredential? {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: Self.columns) FROM passkey_credentials
            WHERE client_id = \(bind: clientId) AND credential_id = \(bind: credentialId) AND status = 'active'
            """
        ).first(decoding: Row.self)?.record
    }

    package func list(userId: String, clientId: String?, in sql: any SQLDatabase) async throws -> [PasskeyCredential] {
        if let clientId {
            return try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM passkey_credentials
                WHERE user_id = \(bind: userId) AND client_id = \(bind: clientId) AND status = 'active' ORDER BY created_at, id
                """
            ).all(decoding: Row.self).map(\.record)
        }
        return try await sql.raw(
            "SELECT \(unsafeRaw: Self.columns) FROM passkey_credentials WHERE user_id = \(bind: userId) AND status = 'active' ORDER BY created_at, id"
        ).all(decoding: Row.self).map(\.record)
    }

    package func recordUse(id: String, signCount: Int64, backedUp: Bool, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            UPDATE passkey_credentials SET sign_count = \(bind: signCount), backed_up = \(bind: backedUp ? 1 : 0), last_used_at = \(bind: now)
            WHERE id = \(bind: id)
            """
        ).run()
    }

    package func isActive(id: String, in sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT id FROM passkey_credentials WHERE id = \(bind: id) AND status = 'active'").first() != nil
    }

    package func flag(id: String, now: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("UPDATE passkey_credentials SET flagged_at = \(bind: now) WHERE id = \(bind: id) AND flagged_at IS NULL").run()
    }

    package func rename(id: String, userId: String?, name: String, in sql: any SQLDatabase) async throws -> Bool {
        if let userId {
            return try await sql.raw(
                """
                UPDATE passkey_credentials SET name = \(bind: name)
                WHERE id = \(bind: id) AND user_id = \(bind: userId) AND status = 'active' RETURNING id
                """
            ).first() != nil
        }
        return try await sql.raw(
            "UPDATE passkey_credentials SET name = \(bind: name) WHERE id = \(bind: id) AND status = 'active' RETURNING id"
        ).first() != nil
    }

    package func revoke(id: String, userId: String?, now: Int64, in sql: any SQLDatabase) async throws -> PasskeyCredential? {
        if let userId {
            return try await sql.raw(
                """
                UPDATE passkey_credentials SET status = 'revoked', revoked_at = \(bind: now)
                WHERE id = \(bind: id) AND user_id = \(bind: userId) AND status = 'active' RETURNING \(unsafeRaw: Self.columns)
                """
            ).first(decoding: Row.self)?.record
        }
        return try await sql.raw(
            """
            UPDATE passkey_credentials SET status = 'revoked', revoked_at = \(bind: now)
            WHERE id = \(bind: id) AND status = 'active' RETURNING \(unsafeRaw: Self.columns)
            """
        ).first(decoding: Row.self)?.record
    }

    package func insertChallenge(_ c: PasskeyChallenge, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO passkey_challenges (id, client_id, ceremony, user_id, binding, challenge, created_at, expires_at)
            VALUES (\(bind: c.id), \(bind: c.clientId), \(bind: c.ceremony.rawValue), \(bind: c.userId), \(bind: c.binding), \(bind: c.challenge),
                    \(bind: c.createdAt), \(bind: c.expiresAt))
            """
        ).run()
    }

    private struct ChallengeRow: Decodable {
        var id: String
        var client_id: String
        var ceremony: String
        var user_id: String?
        var binding: String
        var challenge: String
        var created_at: Int64
        var expires_at: Int64
    }

    package func consumeChallenge(
        id: String, clientId: String, binding: String, ceremony: PasskeyChallenge.Ceremony, now: Int64, in sql: any SQLDatabase
    ) async throws -> PasskeyChallenge? {
        guard let row = try await sql.raw(
            """
            UPDATE passkey_challenges SET used_at = \(bind: now)
            WHERE id = \(bind: id) AND client_id = \(bind: clientId) AND binding = \(bind: binding) AND ceremony = \(bind: ceremony.rawValue)
              AND used_at IS NULL AND expires_at > \(bind: now)
            RETURNING id, client_id, ceremony, user_id, binding, challenge, created_at, expires_at
            """
        ).first(decoding: ChallengeRow.self) else { return nil }
        return PasskeyChallenge(
            id: row.id, clientId: row.client_id, ceremony: ceremony, userId: row.user_id, binding: row.binding, challenge: row.challenge,
            createdAt: row.created_at, expiresAt: row.expires_at
        )
    }

    package func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM passkey_challenges WHERE expires_at < \(bind: before)").run()
    }
}
