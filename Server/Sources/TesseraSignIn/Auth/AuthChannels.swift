import Foundation
import SQLKit
import TesseraCore

/// What both flows do with a channel: open it, end it, and tell its listeners. Every change is
/// written to the row first (``AuthChannelRepository``) and then published (``AuthEventHub``), so a
/// listener that reads the row never misses a step it was told about.
package struct AuthChannels: Sendable {
    package let store: AuthChannelRepository
    package let hub: AuthEventHub
    package let random: RandomSource
    package let clock: WallClock
    package let lifetime: Duration
    /// Counts the channels that end, by outcome (`tessera_logins_total`).
    package let metrics: (any LoginMetrics)?

    /// Creates and announces a new channel (`CreateChannel`). `alongside` writes what must exist
    /// exactly when the channel does (a relying-party request's pushes) in the same transaction.
    /// `numberMatch` is stored with the channel (a relying-party request that asked for number matching).
    package func open(
        clientId: String, userId: String, deviceId: String?, initiator: AuthInitiator, ip: String, message: String,
        numberMatch: NumberMatch? = nil,
        alongside: (@Sendable (AuthChannelRecord, any SQLDatabase) async throws -> Void)? = nil
    ) async throws -> AuthChannelRecord {
        let channel = record(
            clientId: clientId, userId: userId, deviceId: deviceId, initiator: initiator, ip: ip, message: message, numberMatch: numberMatch
        )
        if let alongside {
            try await write(channel, inserting: true, alongside: alongside)
        } else {
            try await store.insert(channel)
        }
        hub.publish(channel.id, AuthEvent(status: .createChannel, at: channel.createdAt))
        return channel
    }

    /// The database work of ``open(clientId:userId:deviceId:initiator:ip:message:numberMatch:alongside:)`` with
    /// `alongside`, opening nothing: the same transaction and statements, the channel's insert matching
    /// no row, `alongside` given a channel of no user (`userId` empty). For a caller that must not
    /// reveal by its timing that there was no one to ask. Returns that channel (never stored).
    package func openNothing(
        clientId: String, initiator: AuthInitiator, ip: String, message: String, numberMatch: NumberMatch? = nil,
        alongside: @escaping @Sendable (AuthChannelRecord, any SQLDatabase) async throws -> Void
    ) async throws -> AuthChannelRecord {
        let channel = record(
            clientId: clientId, userId: "", deviceId: nil, initiator: initiator, ip: ip, message: message, numberMatch: numberMatch
        )
        try await write(channel, inserting: false, alongside: alongside)
        return channel
    }

    private func record(
        clientId: String, userId: String, deviceId: String?, initiator: AuthInitiator, ip: String, message: String, numberMatch: NumberMatch?
    ) -> AuthChannelRecord {
        let now = clock.now()
        return AuthChannelRecord(
            id: random.identifier(prefix: "ch_"), clientId: clientId, userId: userId, deviceId: deviceId, initiator: initiator,
            challenge: random.token(), connectIp: ip, message: message, outcome: initiator.initialOutcome, state: .created,
            code: nil, nodes: [], tokenSealed: nil, createdAt: now, verifyStartedAt: nil, attestedAt: nil, endedAt: nil,
            expiresAt: now + lifetime.millis, numberMatch: numberMatch
        )
    }

    private func write(
        _ channel: AuthChannelRecord, inserting: Bool, alongside: @escaping @Sendable (AuthChannelRecord, any SQLDatabase) async throws -> Void
    ) async throws {
        let store = store
        try await store.database.transaction { sql in
            try await store.insert(channel, writing: inserting, in: sql)
            try await alongside(channel, sql)
        }
    }

    /// Announces a step the store has just recorded.
    package func announce(_ channelId: String, _ status: AuthStatus, at time: Int64) {
        hub.publish(channelId, AuthEvent(status: status, at: time))
    }

    /// Throws why the channel could not take the step it was asked to take.
    package func refuse(_ id: String, now: Int64) async throws -> Never {
        if let channel = try await store.find(id), let refusal = channel.refusal(now: now) { throw refusal }
        throw AppError.authChannelState()
    }

    /// Ends an open channel as failed with `code` and tells its listeners (no-op if it had ended).
    package func fail(_ channelId: String, code: ErrorCode, now: Int64) async throws {
        if try await store.finish(channelId, outcome: .failed, code: code, now: now) {
            metrics?.login(.failed)
            hub.publish(channelId, AuthEvent(outcome: .failed, code: code.rawValue, at: now))
        }
    }

    /// Cancels or declines an open channel.
    package func end(_ channel: AuthChannelRecord, outcome: AuthOutcome) async throws {
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        let code: ErrorCode = outcome == .declined ? .authDeclined : .authChannelCancelled
        guard try await store.finish(channel.id, outcome: outcome, code: code, now: now) else { try await refuse(channel.id, now: now) }
        metrics?.login(outcome)
        hub.publish(channel.id, AuthEvent(outcome: outcome, code: code.rawValue, at: now))
    }

    /// Marks expired channels and tells their listeners.
    package func expireDue() async throws {
        let now = clock.now()
        for id in try await store.expireDue(now: now) {
            metrics?.login(.expired)
            hub.publish(id, AuthEvent(outcome: .expired, code: ErrorCode.authChannelExpired.rawValue, at: now))
        }
    }
}
