import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// One device to wake for one relying-party request, as claimed by a worker.
package struct PushDelivery: Sendable, Equatable {
    package var id: String
    package var channelId: String
    package var clientId: String
    package var deviceId: String
    /// When the request expires (ms): the push is useless after it (`apns-expiration`).
    package var expiresAt: Int64
    package var attempts: Int
}

/// A client's push settings with the provider's private key (PEM), unsealed for sending.
package struct ClientPushSettings: Sendable {
    package var provider: PushProvider
    package var view: PushSettingsView
    package var privateKey: String


    package init(

        provider: PushProvider,

        view: PushSettingsView,

        privateKey: String

    ) {

        self.provider = provider

        self.view = view

        self.privateKey = privateKey

    }
}

/// The push domain's storage, the one owner of `push_outbox` and `client_push_settings`. Another
/// domain only enqueues, inside its own transaction (``enqueue(channelId:clientId:deviceIds:expiresAt:in:)``),
/// so a push exists exactly when its request does. Claims, renewals and retries are the shared
/// ``LeasedQueue``'s.
package protocol PushRepository: Sendable {
    /// How long a claimed push is reserved for one worker.
    var lease: Duration { get }
    /// Adds one push per device inside the caller's transaction.
    func enqueue(channelId: String, clientId: String, deviceIds: [String], expiresAt: Int64, in sql: any SQLDatabase) async throws
    /// The client's push provider, nil without push settings (read inside the caller's transaction).
    func provider(clientId: String, in sql: any SQLDatabase) async throws -> PushProvider?
    /// Reserves up to `limit` due pushes for the worker `claimant`.
    func claimDue(limit: Int, claimant: String) async throws -> [PushDelivery]
    /// Runs `body` while renewing the leases of `ids` for `claimant`.
    func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T
    /// Records pushes that need no more tries: `sent` (the provider took it) or `dropped` (no token, expired, unregistered).
    func settle(ids: [String], status: PushSettlement) async throws
    /// Schedules another try (after `retryAfter` when the provider said so), or gives up after the last attempt.
    func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws
    /// Pushes by status ('pending', 'sent', 'dropped', 'failed').
    func counts() async throws -> [String: Int]
    /// The client's settings with the private key unsealed; nil when none or they cannot be unsealed.
    func settings(clientId: String) async throws -> ClientPushSettings?
    /// Stores (replaces) the client's settings, sealing the private key.
    func save(_ settings: ClientPushSettings, clientId: String) async throws
    /// Removes the client's settings; false when it had none.
    func delete(clientId: String) async throws -> Bool
    /// Deletes settled pushes created before `cutoff`.
    func purge(settledBefore cutoff: Int64) async throws
}

/// How a push ended without another try.
package enum PushSettlement: String, Sendable {
    case sent
    case dropped
}

/// ``PushRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLPushRepository: PushRepository {
    package let database: any Database
    /// Seals the providers' private keys (``ServerKeys/pushKey``).
    package let key: SymmetricKey
    package let clock: WallClock
    package let random: RandomSource
    package var lease: Duration = .seconds(30)
    package var maxAttempts = 8


    package init(

        database: any Database,

        key: SymmetricKey,

        clock: WallClock,

        random: RandomSource,

        lease: Duration = .seconds(30),

        maxAttempts: Int = 8

    ) {

        self.database = database

        self.key = key

        self.clock = clock

        self.random = random

        self.lease = lease

        self.maxAttempts = maxAttempts

    }

    package var queue: LeasedQueue { LeasedQueue(database: database, table: "push_outbox", clock: clock, lease: lease, maxAttempts: maxAttempts) }

    package func enqueue(channelId: String, clientId: String, deviceIds: [String], expiresAt: Int64, in sql: any SQLDatabase) async throws {
        let now = clock.now()
        for deviceId in deviceIds {
            try await sql.raw(
                """
                INSERT INTO push_outbox (id, channel_id, client_id, device_id, expires_at, status, attempts, next_attempt_at, created_at)
                VALUES (\(bind: random.identifier(prefix: "push_")), \(bind: channelId), \(bind: clientId), \(bind: deviceId), \(bind: expiresAt),
                        'pending', 0, \(bind: now), \(bind: now))
                """
            ).run()
        }
    }

    package func provider(clientId: String, in sql: any SQLDatabase) async throws -> PushProvider? {
        try await sql.raw("SELECT provider FROM client_push_settings WHERE client_id = \(bind: clientId)").first()
            .flatMap { PushProvider(rawValue: try $0.decode(column: "provider", as: String.self)) }
    }

    private struct ClaimedRow: Decodable, Sendable {
        var id: String
        var channel_id: String
        var client_id: String
        var device_id: String
        var expires_at: Int64
        var attempts: Int
    }

    package func claimDue(limit: Int, claimant: String) async throws -> [PushDelivery] {
        try await queue.claimDue(
            limit: limit, claimant: claimant, returning: "id, channel_id, client_id, device_id, expires_at, attempts", as: ClaimedRow.self
        ).map {
            PushDelivery(id: $0.id, channelId: $0.channel_id, clientId: $0.client_id, deviceId: $0.device_id, expiresAt: $0.expires_at, attempts: $0.attempts)
        }
    }

    package func whileRenewingLeases<T: Sendable>(of ids: [String], claimant: String, logger: Logger, _ body: () async -> T) async -> T {
        await queue.whileRenewingLeases(of: ids, claimant: claimant, logger: logger, body)
    }

    package func settle(ids: [String], status: PushSettlement) async throws {
        try await queue.settle(ids: ids, status: status.rawValue)
    }

    package func markFailed(id: String, attempts: Int, error: String, retryAfter: Duration?) async throws {
        try await queue.markFailed(id: id, attempts: attempts, error: error, retryAfter: retryAfter)
    }

    package func counts() async throws -> [String: Int] {
        try await queue.counts()
    }

    package func settings(clientId: String) async throws -> ClientPushSettings? {
        let row = try await database.read { sql in
            try await sql.raw("SELECT settings, sealed_secret FROM client_push_settings WHERE client_id = \(bind: clientId)").first()
        }
        guard let row,
              let view = try? JSONDecoder().decode(PushSettingsView.self, from: Data(try row.decode(column: "settings", as: String.self).utf8)),
              let provider = view.provider,
              let sealed = Data(base64Encoded: try row.decode(column: "sealed_secret", as: String.self)),
              let box = try? AES.GCM.SealedBox(combined: sealed),
              let opened = try? AES.GCM.open(box, using: key, authenticating: Data(clientId.utf8))
        else { return nil }
        return ClientPushSettings(provider: provider, view: view, privateKey: String(decoding: opened, as: UTF8.self))
    }

    package func save(_ settings: ClientPushSettings, clientId: String) async throws {
        let view = String(decoding: try JSONEncoder().encode(settings.view), as: UTF8.self)
        let sealed = try Sealing.seal(Data(settings.privateKey.utf8), using: key, authenticating: Data(clientId.utf8)).base64EncodedString()
        let now = clock.now()
        try await database.withSQL { sql in
            try await sql.raw(
                """
                INSERT INTO client_push_settings (client_id, provider, settings, sealed_secret, updated_at)
                VALUES (\(bind: clientId), \(bind: settings.provider.rawValue), \(bind: view), \(bind: sealed), \(bind: now))
                ON CONFLICT (client_id) DO UPDATE SET provider = excluded.provider, settings = excluded.settings,
                    sealed_secret = excluded.sealed_secret, updated_at = excluded.updated_at
                """
            ).run()
        }
    }

    package func delete(clientId: String) async throws -> Bool {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM client_push_settings WHERE client_id = \(bind: clientId) RETURNING client_id").first() != nil
        }
    }

    package func purge(settledBefore cutoff: Int64) async throws {
        try await database.withSQL { sql in
            try await sql.raw("DELETE FROM push_outbox WHERE status <> 'pending' AND created_at < \(bind: cutoff)").run()
        }
    }
}
