import Foundation
import SQLKit
import TesseraCore

/// The relying party's side: its backend asks for an authentication of one of its users, follows
/// it (with a long-poll that holds the answer until the outcome is final), and may cancel it.
package struct RelyingPartyAuthFlow: Sendable {
    package let channels: AuthChannels
    package let devices: any DeviceAuthLookup
    package let sealer: SealedResultToken
    /// Wakes the user's devices (the push domain); nil: devices poll.
    package var push: (any RelyingPartyRequestPush)?

    private var clock: WallClock { channels.clock }

    /// The relying party asks for an authentication of one of its users.
    package func create(client: Client, request: RPAuthRequest) async throws -> RPAuthState {
        let message = request.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard message.count <= 200 else { throw AppError.invalidField("message", "message must be at most 200 characters") }
        guard request.connectIp.count <= 64 else { throw AppError.invalidField("connectIp", "connectIp must be at most 64 characters") }
        guard request.userKey.count <= 100 else { throw AppError.authUserUnknown(detail: "No such user") }
        guard let userId = try await devices.userWithActiveDevice(clientId: client.id, userKey: request.userKey) else {
            throw AppError.authUserUnknown()
        }
        var alongside: (@Sendable (AuthChannelRecord, any SQLDatabase) async throws -> Void)?
        if let push { alongside = { channel, sql in try await push.schedule(channel, in: sql) } }
        let channel = try await channels.open(
            clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty, ip: request.connectIp, message: message,
            numberMatch: request.numberMatching ? NumberMatch.draw(channels.random) : nil, alongside: alongside
        )
        push?.scheduled()
        return state(channel, now: channel.createdAt)
    }

    /// A request for `userKey` that does not tell by its timing whether there was anyone to ask (the
    /// hosted sign-in page): when the user exists and has an active device, a request as ``create(client:request:)``
    /// makes (pushes queued), with `alongside(channelId, createdAt, sql)` in its transaction; otherwise the
    /// same reads and the same transaction run, writing nothing but what `alongside(nil, …)` writes.
    /// `message` and `connectIp` are the caller's (at most 200 and 64 characters); `numberMatch`, when given, is
    /// stored with the request (and written in the same shape when there is no one to ask).
    /// - Returns: The request's ID (nil when there was no one to ask) and the time it was made.
    package func createConcealing(
        client: Client, userKey: String?, connectIp: String, message: String, numberMatch: NumberMatch? = nil,
        alongside: @escaping @Sendable (_ requestId: String?, _ createdAt: Int64, any SQLDatabase) async throws -> Void
    ) async throws -> (requestId: String?, createdAt: Int64) {
        // The same query either way; without a user it looks for a key no user has.
        let found = try await devices.userWithActiveDevice(clientId: client.id, userKey: userKey ?? "")
        let push = self.push
        guard let userKey, !userKey.isEmpty, let userId = found else {
            let decoy = try await channels.openNothing(
                clientId: client.id, initiator: .relyingParty, ip: connectIp, message: message, numberMatch: numberMatch
            ) { channel, sql in
                try await push?.schedule(channel, in: sql)
                try await alongside(nil, channel.createdAt, sql)
            }
            // The sender looks at its queue after every request, whether or not it queued anything.
            push?.scheduled()
            return (nil, decoy.createdAt)
        }
        let channel = try await channels.open(
            clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty, ip: connectIp, message: message, numberMatch: numberMatch
        ) { channel, sql in
            try await push?.schedule(channel, in: sql)
            try await alongside(channel.id, channel.createdAt, sql)
        }
        push?.scheduled()
        return (channel.id, channel.createdAt)
    }

    private func state(_ channel: AuthChannelRecord, now: Int64) -> RPAuthState {
        let token = channel.tokenSealed.flatMap { sealer.open($0, channelId: channel.id) }
        let current = channel.settled(now: now)
        return RPAuthState(
            requestId: channel.id, outcome: current.outcome, code: current.code, token: token,
            expiresIn: Int(max(0, channel.expiresAt - now) / 1000), matchNumber: channel.numberMatch?.number
        )
    }

    private func request(_ id: String, client: Client) async throws -> AuthChannelRecord {
        guard let channel = try await channels.store.find(id), channel.clientId == client.id, channel.initiator == .relyingParty else {
            throw AppError.authChannelUnknown(detail: "No such authentication request")
        }
        return channel
    }

    /// The request's state; with `wait`, holds the answer until the outcome is final, the request
    /// expired, or `wait` passed on the injected clock (long-poll). Events come from this instance's
    /// hub, and from ``AuthEventRelay`` for what other instances wrote.
    package func state(client: Client, id: String, wait: Duration) async throws -> RPAuthState {
        var channel = try await request(id, client: client)
        let deadline = clock.now() + wait.millis
        guard wait > .zero, !channel.settled(now: clock.now()).outcome.isFinal else { return state(channel, now: clock.now()) }
        let (stream, continuation) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let token = channels.hub.register(id, continuation)
        defer { channels.hub.unregister(id, token) }
        // Read again now that the hub holds the listener: nothing that happens from here on is missed.
        let current = try await request(id, client: client)
        let clock = self.clock
        let finished = try await withThrowingTaskGroup(of: AuthChannelRecord?.self) { group in
            group.addTask {
                var latest = current
                if latest.settled(now: clock.now()).outcome.isFinal { return latest }
                for await _ in stream {
                    latest = try await request(id, client: client)
                    if latest.settled(now: clock.now()).outcome.isFinal { return latest }
                }
                return nil
            }
            group.addTask {
                // The long-poll's end: its deadline, or the request's expiry if that comes first.
                try await clock.sleep(.milliseconds(max(0, min(deadline, current.expiresAt) - clock.now())))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        if let finished {
            channel = finished
        } else {
            channel = try await request(id, client: client)
        }
        return state(channel, now: clock.now())
    }

    /// The outcome of the client's relying-party request `id` now (`expired` once past its lifetime); nil when
    /// the client has no such request.
    package func outcome(clientId: String, id: String) async throws -> AuthOutcome? {
        guard let channel = try await channels.store.find(id), channel.clientId == clientId, channel.initiator == .relyingParty else { return nil }
        return channel.settled(now: clock.now()).outcome
    }

    package func cancel(client: Client, id: String) async throws {
        try await channels.end(try await request(id, client: client), outcome: .cancelled)
    }
}
