import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore

/// Node-quorum authentication (the GCCS flow): a channel per authentication, the device's signed
/// challenge verified by a quorum of independent nodes, the user-verification signature, and the
/// result token. Started by the device or by the relying party.
struct AuthService: Sendable {
    struct Settings: Sendable {
        var nodesPerAuthentication = 3
        var quorum = 2
        var nodeTimeout: Duration = .milliseconds(2000)
        var channelLifetime: Duration = .seconds(120)
    }

    let database: any Database
    let channels: AuthChannelStore
    let directory: NodeDirectory
    let tokens: ResultTokens
    let hub: AuthEventHub
    /// Seals result tokens kept for the relying party's long-poll.
    let sealKey: SymmetricKey
    let random: RandomSource
    let clock: WallClock
    let settings: Settings
    let logger: Logger

    /// A device and what the flow needs of its user and client.
    struct DeviceContext: Sendable {
        var deviceId: String
        var userId: String
        var clientId: String
        var clientKey: String
        var userKey: String
        var localAuthType: String
        var deviceKey: P256.Signing.PublicKey
        var userVerificationKey: P256.Signing.PublicKey
        var active: Bool
    }

    func device(_ deviceId: String) async throws -> DeviceContext? {
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT d.user_id, d.client_id, d.device_key, d.uv_key, d.status, u.user_key, u.local_auth_type, c.client_key
                FROM devices d JOIN users u ON u.id = d.user_id JOIN clients c ON c.id = d.client_id WHERE d.id = \(bind: deviceId)
                """
            ).first()
        }
        guard let row, let deviceKey = P256.Signing.PublicKey(x963Base64: try row.decode(column: "device_key", as: String.self)),
              let uvKey = P256.Signing.PublicKey(x963Base64: try row.decode(column: "uv_key", as: String.self))
        else { return nil }
        return DeviceContext(
            deviceId: deviceId, userId: try row.decode(column: "user_id", as: String.self),
            clientId: try row.decode(column: "client_id", as: String.self), clientKey: try row.decode(column: "client_key", as: String.self),
            userKey: try row.decode(column: "user_key", as: String.self), localAuthType: try row.decode(column: "local_auth_type", as: String.self),
            deviceKey: deviceKey, userVerificationKey: uvKey, active: try row.decode(column: "status", as: String.self) == "active"
        )
    }

    private func requireDevice(_ deviceId: String, client: Client) async throws -> DeviceContext {
        guard let device = try await device(deviceId), device.clientId == client.id else {
            throw AppError(.deviceUnknown, .unauthorized, "Unknown device")
        }
        guard device.active else { throw AppError(.deviceRevoked, .forbidden, "Device revoked") }
        return device
    }

    private func answer(_ channel: AuthChannelRecord, device: DeviceContext, now: Int64) -> AuthChannelResponse {
        AuthChannelResponse(
            channelId: channel.id, challenge: channel.challenge, authType: device.localAuthType, connectIp: channel.connectIp,
            message: channel.message, userKey: device.userKey, clientKey: device.clientKey,
            expiresIn: Int(max(0, channel.expiresAt - now) / 1000)
        )
    }

    private func newChannel(clientId: String, userId: String, deviceId: String?, initiator: String, ip: String, message: String, now: Int64)
        -> AuthChannelRecord
    {
        AuthChannelRecord(
            id: random.identifier(prefix: "ch_"), clientId: clientId, userId: userId, deviceId: deviceId, initiator: initiator,
            challenge: random.token(), connectIp: ip, message: message, outcome: initiator == "rp" ? .pending : .inProgress, step: "created",
            code: nil, nodes: [], tokenSealed: nil, createdAt: now, verifyStartedAt: nil, attestedAt: nil, endedAt: nil,
            expiresAt: now + settings.channelLifetime.millis
        )
    }

    // MARK: Device

    /// Opens a channel for the signing device (`CreateChannel`).
    func open(deviceId: String, client: Client, ip: String?) async throws -> AuthChannelResponse {
        let device = try await requireDevice(deviceId, client: client)
        let now = clock.now()
        let channel = newChannel(
            clientId: client.id, userId: device.userId, deviceId: deviceId, initiator: "device", ip: ip ?? "", message: "", now: now
        )
        try await channels.insert(channel)
        hub.publish(channel.id, AuthEvent(status: .createChannel, at: now))
        return answer(channel, device: device, now: now)
    }

    /// Relying-party requests waiting for this device's user.
    func pending(deviceId: String, client: Client) async throws -> PendingAuthResponse {
        let device = try await requireDevice(deviceId, client: client)
        let now = clock.now()
        return PendingAuthResponse(requests: try await channels.pending(userId: device.userId, now: now).map { answer($0, device: device, now: now) })
    }

    /// A channel this device may act on: its own, or a pending relying-party request for its user.
    private func channel(_ id: String, for device: DeviceContext) async throws -> AuthChannelRecord {
        guard let channel = try await channels.find(id), channel.userId == device.userId, channel.clientId == device.clientId,
              channel.deviceId == nil || channel.deviceId == device.deviceId
        else { throw AppError(.authChannelUnknown, .notFound, "No such authentication channel") }
        return channel
    }

    private func refuse(_ id: String, now: Int64) async throws -> Never {
        if let channel = try await channels.find(id), let refusal = channel.refusal(now: now) { throw refusal }
        throw AppError(.authChannelState, .conflict, "The channel is not at that step")
    }

    /// Checks the device's signature over the challenge, asks the nodes, and waits for a quorum
    /// (`SelectNodes`, `StartVerificationOfNodes`, `CompleteVerificationOfNodes`).
    func start(channelId: String, deviceId: String, client: Client, request: AuthStartRequest) async throws -> AuthStartResponse {
        let device = try await requireDevice(deviceId, client: client)
        let channel = try await channel(channelId, for: device)
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        guard channel.step == "created" else { throw AppError(.authChannelState, .conflict, "The channel was already started") }
        let statement = AuthStatement.challenge(channelId: channelId, deviceId: deviceId, challenge: channel.challenge)
        guard let raw = Data(base64Encoded: request.challengeSignature),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              device.deviceKey.isValidSignature(signature, for: statement)
        else { throw AppError(.authChallengeSignatureInvalid, .unauthorized, "The challenge signature does not verify") }
        guard try await channels.beginVerification(channelId, deviceId: deviceId, now: now) else { try await refuse(channelId, now: now) }

        let nodes = try await directory.select(settings.nodesPerAuthentication)
        hub.publish(channelId, AuthEvent(status: .selectNodes, at: clock.now()))
        hub.publish(channelId, AuthEvent(status: .startVerificationOfNodes, at: clock.now()))
        let attestRequest = NodeAttestRequest(
            channelId: channelId, deviceId: deviceId, challenge: channel.challenge, challengeSignature: request.challengeSignature
        )
        let (attested, failures) = await attest(attestRequest, nodes: nodes)
        let end = clock.now()
        guard attested.count >= settings.quorum else {
            if try await channels.finish(channelId, outcome: .failed, code: .authQuorumNotReached, now: end) {
                hub.publish(channelId, AuthEvent(outcome: .failed, code: ErrorCode.authQuorumNotReached.rawValue, at: end))
            }
            logger.warning("node quorum not reached", metadata: ["channel": .string(channelId), "failures": .string(failures.joined(separator: "; "))])
            throw AppError(
                .authQuorumNotReached, .serviceUnavailable, "Not enough verifier nodes attested",
                detail: "\(attested.count) of the \(settings.quorum) attestations needed (\(nodes.count) nodes asked)"
            )
        }
        guard try await channels.markAttested(channelId, nodes: attested, now: end) else { try await refuse(channelId, now: end) }
        hub.publish(channelId, AuthEvent(status: .completeVerificationOfNodes, at: end))
        return AuthStartResponse(authType: device.localAuthType, nodes: attested)
    }

    /// Fans the request out to `nodes` at once; returns as soon as a quorum verified (the rest are
    /// cancelled) or every node answered or timed out.
    private func attest(_ request: NodeAttestRequest, nodes: [NodeDirectory.Node]) async -> (attested: [String], failures: [String]) {
        let timeout = settings.nodeTimeout, quorum = settings.quorum, directory = self.directory
        return await withTaskGroup(of: Result<String, NodeCallError>.self) { group in
            for node in nodes {
                group.addTask {
                    do {
                        let attestation = try await withTimeout(timeout, nodeId: node.entry.nodeId) { try await node.client.attest(request) }
                        let statement = AuthStatement.attestation(
                            nodeId: node.entry.nodeId, channelId: request.channelId, deviceId: request.deviceId,
                            challenge: request.challenge, signedAt: attestation.signedAt
                        )
                        guard attestation.nodeId == node.entry.nodeId, let signature = Data(base64Encoded: attestation.signature),
                              node.publicKey.isValidSignature(signature, for: statement)
                        else { return .failure(NodeCallError(nodeId: node.entry.nodeId, code: nil, message: "attestation does not verify")) }
                        directory.markHealthy(node.entry.nodeId)
                        return .success(node.entry.nodeId)
                    } catch let error as NodeCallError {
                        if error.code == nil { directory.markFailed(node.entry.nodeId) }
                        return .failure(error)
                    } catch {
                        return .failure(NodeCallError(nodeId: node.entry.nodeId, code: nil, message: String(describing: error)))
                    }
                }
            }
            var attested: [String] = [], failures: [String] = []
            for await result in group {
                switch result {
                case .success(let id): attested.append(id)
                case .failure(let error): failures.append(error.description)
                }
                if attested.count >= quorum {
                    group.cancelAll()
                    break
                }
            }
            return (attested, failures)
        }
    }

    /// Checks the user-verification signature and issues the result token.
    func complete(channelId: String, deviceId: String, client: Client, request: AuthResultRequest) async throws -> AuthResultResponse {
        let device = try await requireDevice(deviceId, client: client)
        let channel = try await channel(channelId, for: device)
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        guard channel.step == "attested" else {
            throw AppError(.authChannelState, .conflict, "The nodes have not attested this channel yet", detail: "Call start first")
        }
        guard request.isSecondaryCertification else {
            try await fail(channelId, code: .authSecondaryFailed, now: now)
            throw AppError(.authSecondaryFailed, .unauthorized, "Secondary verification failed")
        }
        let statement = AuthStatement.userVerification(channelId: channelId, deviceId: deviceId, challenge: channel.challenge)
        guard let raw = request.userVerificationSignature.flatMap({ Data(base64Encoded: $0) }),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              device.userVerificationKey.isValidSignature(signature, for: statement)
        else {
            try await fail(channelId, code: .authUserVerificationInvalid, now: now)
            throw AppError(.authUserVerificationInvalid, .unauthorized, "The user-verification signature does not verify")
        }
        let token = try await tokens.issue(
            userKey: device.userKey, clientKey: device.clientKey, clientId: device.clientKey, deviceId: deviceId, channelId: channelId,
            amr: ["hwk", ResultClaims.method(forLocalAuth: device.localAuthType)], nodes: channel.nodes
        )
        let sealed = channel.initiator == "rp"
            ? try AES.GCM.seal(Data(token.utf8), using: sealKey, authenticating: Data(channelId.utf8)).combined!.base64EncodedString() : nil
        guard try await channels.complete(channelId, tokenSealed: sealed, now: now) else { try await refuse(channelId, now: now) }
        hub.publish(channelId, AuthEvent(outcome: .completed, at: now))
        return AuthResultResponse(token: token, expiresIn: Int(tokens.lifetime.components.seconds))
    }

    private func fail(_ channelId: String, code: ErrorCode, now: Int64) async throws {
        if try await channels.finish(channelId, outcome: .failed, code: code, now: now) {
            hub.publish(channelId, AuthEvent(outcome: .failed, code: code.rawValue, at: now))
        }
    }

    /// The device cancels (any open channel of its own) or declines (a relying-party request).
    func end(channelId: String, deviceId: String, client: Client, outcome: AuthOutcome) async throws {
        let device = try await requireDevice(deviceId, client: client)
        let channel = try await channel(channelId, for: device)
        if outcome == .declined, channel.initiator != "rp" {
            throw AppError(.authChannelState, .conflict, "Only a relying party's request can be declined", detail: "Cancel it instead")
        }
        try await end(channel, outcome: outcome)
    }

    private func end(_ channel: AuthChannelRecord, outcome: AuthOutcome) async throws {
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        let code: ErrorCode = outcome == .declined ? .authDeclined : .authChannelCancelled
        guard try await channels.finish(channel.id, outcome: outcome, code: code, now: now) else { try await refuse(channel.id, now: now) }
        hub.publish(channel.id, AuthEvent(outcome: outcome, code: code.rawValue, at: now))
    }

    // MARK: Relying party

    /// The relying party asks for an authentication of one of its users.
    func rpCreate(client: Client, request: RPAuthRequest) async throws -> RPAuthState {
        let message = request.message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard message.count <= 200 else { throw AppError.invalidField("message", "message must be at most 200 characters") }
        guard request.connectIp.count <= 64 else { throw AppError.invalidField("connectIp", "connectIp must be at most 64 characters") }
        guard request.userKey.count <= 100 else { throw AppError(.authUserUnknown, .notFound, "No such user") }
        let row = try await database.read { sql in
            try await sql.raw(
                """
                SELECT u.id FROM users u WHERE u.client_id = \(bind: client.id) AND u.user_key = \(bind: request.userKey)
                  AND EXISTS (SELECT 1 FROM devices d WHERE d.user_id = u.id AND d.status = 'active')
                """
            ).first()
        }
        guard let userId = try row?.decode(column: "id", as: String.self) else {
            throw AppError(.authUserUnknown, .notFound, "No such user, or the user has no active device")
        }
        let now = clock.now()
        let channel = newChannel(clientId: client.id, userId: userId, deviceId: nil, initiator: "rp", ip: request.connectIp, message: message, now: now)
        try await channels.insert(channel)
        hub.publish(channel.id, AuthEvent(status: .createChannel, at: now))
        return try state(channel, now: now)
    }

    private func state(_ channel: AuthChannelRecord, now: Int64) throws -> RPAuthState {
        var token: String?
        if let sealed = channel.tokenSealed, let combined = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: combined),
           let opened = try? AES.GCM.open(box, using: sealKey, authenticating: Data(channel.id.utf8))
        {
            token = String(decoding: opened, as: UTF8.self)
        }
        let current = channel.settled(now: now)
        return RPAuthState(
            requestId: channel.id, outcome: current.outcome, code: current.code, token: token,
            expiresIn: Int(max(0, channel.expiresAt - now) / 1000)
        )
    }

    private func rpChannel(_ id: String, client: Client) async throws -> AuthChannelRecord {
        guard let channel = try await channels.find(id), channel.clientId == client.id, channel.initiator == "rp" else {
            throw AppError(.authChannelUnknown, .notFound, "No such authentication request")
        }
        return channel
    }

    /// The request's state; with `wait`, holds the answer until the outcome is final or `wait` passed (long-poll).
    func rpState(client: Client, id: String, wait: Duration) async throws -> RPAuthState {
        var channel = try await rpChannel(id, client: client)
        let deadline = clock.now() + wait.millis
        if !channel.outcome.isFinal, wait > .zero {
            let (stream, continuation) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .bufferingNewest(8))
            let token = hub.register(id, continuation)
            defer { hub.unregister(id, token) }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    continuation.yield(AuthEvent(at: 0))
                }
            }
            defer { ticker.cancel() }
            channel = try await rpChannel(id, client: client)
            for await _ in stream {
                channel = try await rpChannel(id, client: client)
                let now = clock.now()
                if channel.outcome.isFinal || now >= deadline || now >= channel.expiresAt { break }
            }
        }
        return try state(channel, now: clock.now())
    }

    func rpCancel(client: Client, id: String) async throws {
        try await end(try await rpChannel(id, client: client), outcome: .cancelled)
    }

    // MARK: Streams and upkeep

    /// The channel's events: those that already happened, then each new one as it happens, ending
    /// with the outcome (or when the channel expires).
    func events(channelId: String) async throws -> AsyncStream<AuthEvent> {
        let (merged, input) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
        let token = hub.register(channelId, input)
        guard let first = try await channels.find(channelId) else {
            hub.unregister(channelId, token)
            throw AppError(.authChannelUnknown, .notFound, "No such authentication channel")
        }
        // What happened before the listener came, then the live events.
        for event in first.events { input.yield(event) }
        let channels = self.channels, clock = self.clock, hub = self.hub
        // Replays the row every second: events another instance wrote, and the expiry.
        let poller = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard !Task.isCancelled, let channel = try? await channels.find(channelId) else { break }
                for event in channel.settled(now: clock.now()).events { input.yield(event) }
            }
        }
        return AsyncStream { output in
            let relay = Task {
                // Statuses go out exactly once and in their order. A live event that skips ahead (the
                // listener joined mid-way) makes the relay read the row, which each step writes before
                // it announces itself, and send what is missing first.
                var next = 0
                var ended = false
                func send(_ event: AuthEvent) {
                    guard !ended else { return }
                    if let status = event.status, let index = AuthStatus.allCases.firstIndex(of: status), index == next {
                        output.yield(event)
                        next += 1
                    } else if event.outcome != nil {
                        output.yield(event)
                        ended = true
                    }
                }
                for await event in merged {
                    let index = event.status.flatMap { AuthStatus.allCases.firstIndex(of: $0) }
                    if let index, index < next { continue }
                    if event.status == nil && event.outcome == nil { continue }
                    if index == next {
                        send(event)
                    } else if let channel = try? await channels.find(channelId) {
                        for stored in channel.events where stored.outcome == nil { send(stored) }
                        if let index, index == next { send(event) }
                        if event.outcome != nil { send(event) }
                    }
                    if ended { break }
                }
                output.finish()
            }
            output.onTermination = { _ in
                relay.cancel()
                poller.cancel()
                hub.unregister(channelId, token)
                input.finish()
            }
        }
    }

    /// Marks expired channels and tells their listeners.
    func expireDue() async throws {
        let now = clock.now()
        for id in try await channels.expireDue(now: now) {
            hub.publish(id, AuthEvent(outcome: .expired, code: ErrorCode.authChannelExpired.rawValue, at: now))
        }
    }

    /// The history page of the user a result token names.
    func history(claims: ResultClaims, limit: Int, before: String?) async throws -> AuthHistoryPage {
        guard let device = try await device(claims.deviceId), device.active, device.clientKey == claims.clientId else {
            throw AppError(.tokenInvalid, .unauthorized, "Invalid token", detail: "The device that authenticated is revoked")
        }
        var cursor: (Int64, String)?
        if let before {
            let parts = before.split(separator: "_", maxSplits: 1)
            guard parts.count == 2, let at = Int64(parts[0]) else { throw AppError.invalidField("before", "before must be a nextCursor value") }
            cursor = (at, String(parts[1]))
        }
        let rows = try await channels.history(userId: device.userId, before: cursor, limit: limit + 1)
        let now = clock.now()
        let items = rows.prefix(limit).map { stored in
            let channel = stored.settled(now: now)
            return AuthHistoryItem(
                channelId: channel.id, createdAt: channel.createdAt, endedAt: channel.endedAt, deviceId: channel.deviceId ?? "",
                clientKey: device.clientKey, connectIp: channel.connectIp, initiator: channel.initiator, outcome: channel.outcome,
                code: channel.code, nodes: channel.nodes
            )
        }
        let next = rows.count > limit ? items.last.map { "\($0.createdAt)_\($0.channelId)" } : nil
        return AuthHistoryPage(items: Array(items), nextCursor: next)
    }
}

/// Runs `body`, failing with a node error when it takes longer than `timeout`.
func withTimeout<T: Sendable>(_ timeout: Duration, nodeId: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw NodeCallError(nodeId: nodeId, code: nil, message: "timed out after \(timeout)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
