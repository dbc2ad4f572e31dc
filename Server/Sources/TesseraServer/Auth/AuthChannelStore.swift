import Foundation
import SQLKit
import TesseraCore

/// An authentication channel as stored.
struct AuthChannelRecord: Sendable {
    var id: String
    var clientId: String
    var userId: String
    var deviceId: String?
    /// `device` or `rp`.
    var initiator: String
    var challenge: String
    var connectIp: String
    var message: String
    var outcome: AuthOutcome
    /// `created`, `verifying`, `attested`, `completed` (or where it stopped).
    var step: String
    var code: Int?
    var nodes: [String]
    var tokenSealed: String?
    var createdAt: Int64
    var verifyStartedAt: Int64?
    var attestedAt: Int64?
    var endedAt: Int64?
    var expiresAt: Int64

    /// The events so far, rebuilt from the row (for late listeners and other instances).
    var events: [AuthEvent] {
        var list = [AuthEvent(status: .createChannel, at: createdAt)]
        if let verifyStartedAt {
            list.append(AuthEvent(status: .selectNodes, at: verifyStartedAt))
            list.append(AuthEvent(status: .startVerificationOfNodes, at: verifyStartedAt))
        }
        if let attestedAt { list.append(AuthEvent(status: .completeVerificationOfNodes, at: attestedAt)) }
        if outcome.isFinal { list.append(AuthEvent(outcome: outcome, code: code, at: endedAt ?? expiresAt)) }
        return list
    }

    /// The channel as it stands at `now`: one still open past its lifetime is expired, whether or not
    /// the expiry service has written that yet.
    func settled(now: Int64) -> AuthChannelRecord {
        guard !outcome.isFinal, now >= expiresAt else { return self }
        var lapsed = self
        lapsed.outcome = .expired
        lapsed.code = ErrorCode.authChannelExpired.rawValue
        lapsed.endedAt = expiresAt
        return lapsed
    }

    /// The error that describes why this channel cannot take the next step, if any.
    func refusal(now: Int64) -> AppError? {
        switch settled(now: now).outcome {
        case .cancelled: return AppError(.authChannelCancelled, .conflict, "The authentication was cancelled")
        case .declined: return AppError(.authDeclined, .conflict, "The user declined the authentication")
        case .expired: return AppError(.authChannelExpired, .gone, "The authentication channel expired")
        case .completed, .failed: return AppError(.authChannelState, .conflict, "The authentication has already ended (\(outcome.rawValue))")
        case .pending, .inProgress: return nil
        }
    }
}

/// SQL for channels. Every state change is one conditional `UPDATE … RETURNING`, so two requests
/// racing on a channel cannot both move it.
struct AuthChannelStore: Sendable {
    let database: any Database

    static let columns = """
        id, client_id, user_id, device_id, initiator, challenge, connect_ip, message, outcome, step, code, nodes, token_sealed, \
        created_at, verify_started_at, attested_at, ended_at, expires_at
        """

    func insert(_ channel: AuthChannelRecord) async throws {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO auth_channels (\(unsafeRaw: Self.columns))
                VALUES (\(bind: channel.id), \(bind: channel.clientId), \(bind: channel.userId), \(bind: channel.deviceId),
                        \(bind: channel.initiator), \(bind: channel.challenge), \(bind: channel.connectIp), \(bind: channel.message),
                        \(bind: channel.outcome.rawValue), \(bind: channel.step), NULL, '', NULL, \(bind: channel.createdAt), NULL, NULL, NULL,
                        \(bind: channel.expiresAt))
                """
            ).run()
        }
    }

    func find(_ id: String) async throws -> AuthChannelRecord? {
        guard id.count <= 100 else { return nil }
        return try await database.read { sql in
            try await sql.raw("SELECT \(unsafeRaw: Self.columns) FROM auth_channels WHERE id = \(bind: id)").first().map(Self.decode)
        }
    }

    /// `created` → `verifying` for this device (an RP channel is bound to the device that picks it up).
    func beginVerification(_ id: String, deviceId: String, now: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE auth_channels SET step = 'verifying', outcome = 'in_progress', device_id = \(bind: deviceId), verify_started_at = \(bind: now)
                WHERE id = \(bind: id) AND step = 'created' AND outcome IN ('pending', 'in_progress') AND expires_at > \(bind: now)
                  AND (device_id IS NULL OR device_id = \(bind: deviceId))
                RETURNING id
                """
            ).first() != nil
        }
    }

    func markAttested(_ id: String, nodes: [String], now: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE auth_channels SET step = 'attested', attested_at = \(bind: now), nodes = \(bind: nodes.joined(separator: ","))
                WHERE id = \(bind: id) AND step = 'verifying' AND outcome = 'in_progress' AND expires_at > \(bind: now)
                RETURNING id
                """
            ).first() != nil
        }
    }

    func complete(_ id: String, tokenSealed: String?, now: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE auth_channels SET step = 'completed', outcome = 'completed', ended_at = \(bind: now), token_sealed = \(bind: tokenSealed)
                WHERE id = \(bind: id) AND step = 'attested' AND outcome = 'in_progress' AND expires_at > \(bind: now)
                RETURNING id
                """
            ).first() != nil
        }
    }

    /// Ends an open channel with `outcome`; false if it had already ended.
    func finish(_ id: String, outcome: AuthOutcome, code: ErrorCode, now: Int64) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE auth_channels SET outcome = \(bind: outcome.rawValue), code = \(bind: code.rawValue), ended_at = \(bind: now)
                WHERE id = \(bind: id) AND outcome IN ('pending', 'in_progress')
                RETURNING id
                """
            ).first() != nil
        }
    }

    /// Marks open channels past their expiry as expired; returns their IDs.
    func expireDue(now: Int64) async throws -> [String] {
        try await database.withSQL { sql in
            try await sql.raw(
                """
                UPDATE auth_channels SET outcome = 'expired', code = \(bind: ErrorCode.authChannelExpired.rawValue), ended_at = expires_at
                WHERE outcome IN ('pending', 'in_progress') AND expires_at <= \(bind: now)
                RETURNING id
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
        }
    }

    /// Relying-party requests waiting for a device of this user.
    func pending(userId: String, now: Int64) async throws -> [AuthChannelRecord] {
        try await database.read { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM auth_channels
                WHERE user_id = \(bind: userId) AND initiator = 'rp' AND outcome = 'pending' AND expires_at > \(bind: now)
                ORDER BY created_at LIMIT 20
                """
            ).all().map(Self.decode)
        }
    }

    /// A user's channels, newest first, before the cursor `(createdAt, id)`.
    func history(userId: String, before: (Int64, String)?, limit: Int) async throws -> [AuthChannelRecord] {
        try await database.read { sql in
            if let (at, id) = before {
                return try await sql.raw(
                    """
                    SELECT \(unsafeRaw: Self.columns) FROM auth_channels
                    WHERE user_id = \(bind: userId) AND (created_at < \(bind: at) OR (created_at = \(bind: at) AND id < \(bind: id)))
                    ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)
                    """
                ).all().map(Self.decode)
            }
            return try await sql.raw(
                """
                SELECT \(unsafeRaw: Self.columns) FROM auth_channels WHERE user_id = \(bind: userId)
                ORDER BY created_at DESC, id DESC LIMIT \(bind: limit)
                """
            ).all().map(Self.decode)
        }
    }

    /// Drops ended channels older than `cutoff` (history retention).
    func purge(endedBefore cutoff: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM auth_channels WHERE ended_at IS NOT NULL AND ended_at < \(bind: cutoff)").run()
    }

    static func decode(_ row: any SQLRow) throws -> AuthChannelRecord {
        let nodes = try row.decode(column: "nodes", as: String.self)
        return AuthChannelRecord(
            id: try row.decode(column: "id", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
            userId: try row.decode(column: "user_id", as: String.self), deviceId: try row.decode(column: "device_id", as: String?.self),
            initiator: try row.decode(column: "initiator", as: String.self), challenge: try row.decode(column: "challenge", as: String.self),
            connectIp: try row.decode(column: "connect_ip", as: String.self), message: try row.decode(column: "message", as: String.self),
            outcome: AuthOutcome(rawValue: try row.decode(column: "outcome", as: String.self)) ?? .failed,
            step: try row.decode(column: "step", as: String.self), code: try row.decode(column: "code", as: Int?.self),
            nodes: nodes.isEmpty ? [] : nodes.split(separator: ",").map(String.init),
            tokenSealed: try row.decode(column: "token_sealed", as: String?.self), createdAt: try row.decode(column: "created_at", as: Int64.self),
            verifyStartedAt: try row.decode(column: "verify_started_at", as: Int64?.self),
            attestedAt: try row.decode(column: "attested_at", as: Int64?.self), endedAt: try row.decode(column: "ended_at", as: Int64?.self),
            expiresAt: try row.decode(column: "expires_at", as: Int64.self)
        )
    }
}
