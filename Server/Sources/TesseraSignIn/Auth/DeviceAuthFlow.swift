import Crypto
import Foundation
import Logging
import TesseraCore

/// The device's side of node-quorum authentication (the GCCS flow): open a channel, have a quorum
/// of independent nodes verify the device's signed challenge, check the user-verification
/// signature, issue the result token. Also picks up, declines and cancels relying-party requests.
/// Each step takes the device as the request's signature check read it (`signed`), so that a signed
/// call reads the device once.
package struct DeviceAuthFlow: Sendable {
    package let channels: AuthChannels
    package let devices: any DeviceAuthLookup
    package let nodes: any AttestingNodes
    package let tokens: ResultTokens
    package let sealer: SealedResultToken
    package let nodesPerAuthentication: Int
    package let nodeQuorum: NodeQuorum
    package let logger: Logger
    /// Checks the App Attest assertion an approval carries (nil: none is checked).
    package let appAttest: AppAttestService?

    package init(
        channels: AuthChannels,
        devices: any DeviceAuthLookup,
        nodes: any AttestingNodes,
        tokens: ResultTokens,
        sealer: SealedResultToken,
        nodesPerAuthentication: Int,
        nodeQuorum: NodeQuorum,
        logger: Logger,
        appAttest: AppAttestService? = nil
    ) {
        self.appAttest = appAttest
        self.channels = channels
        self.devices = devices
        self.nodes = nodes
        self.tokens = tokens
        self.sealer = sealer
        self.nodesPerAuthentication = nodesPerAuthentication
        self.nodeQuorum = nodeQuorum
        self.logger = logger
    }

    private var store: AuthChannelRepository { channels.store }
    private var clock: WallClock { channels.clock }

    private func requireDevice(_ deviceId: String, client: Client, signed: DeviceAuthTarget?) async throws -> DeviceAuthTarget {
        try await devices.requireActive(deviceId, client: client, signed: signed)
    }

    private func answer(_ channel: AuthChannelRecord, device: DeviceAuthTarget, now: Int64) -> AuthChannelResponse {
        AuthChannelResponse(
            channelId: channel.id, challenge: channel.challenge, authType: device.localAuthType, connectIp: channel.connectIp,
            message: channel.message, userKey: device.userKey, clientKey: device.clientKey,
            expiresIn: Int(max(0, channel.expiresAt - now) / 1000), numberChoices: channel.numberMatch?.choices,
            appAttestAssertion: appAttest == nil ? nil : AppAttestService.signInAssertion(for: device)
        )
    }

    /// A channel this device may act on: its own, or a pending relying-party request for its user.
    private func channel(_ id: String, for device: DeviceAuthTarget) async throws -> AuthChannelRecord {
        guard let channel = try await store.find(id), channel.userId == device.userId, channel.clientId == device.clientId,
              channel.deviceId == nil || channel.deviceId == device.deviceId
        else { throw AppError.authChannelUnknown() }
        return channel
    }

    /// Opens a channel for the signing device (`CreateChannel`).
    package func open(deviceId: String, client: Client, ip: String?, signed: DeviceAuthTarget? = nil) async throws -> AuthChannelResponse {
        let device = try await requireDevice(deviceId, client: client, signed: signed)
        let channel = try await channels.open(
            clientId: client.id, userId: device.userId, deviceId: deviceId, initiator: .device, ip: ip ?? "", message: ""
        )
        return answer(channel, device: device, now: channel.createdAt)
    }

    /// Relying-party requests waiting for this device's user.
    package func pending(deviceId: String, client: Client, signed: DeviceAuthTarget? = nil) async throws -> PendingAuthResponse {
        let device = try await requireDevice(deviceId, client: client, signed: signed)
        let now = clock.now()
        return PendingAuthResponse(requests: try await store.pending(userId: device.userId, now: now).map { answer($0, device: device, now: now) })
    }

    /// Checks the device's signature over the challenge, asks the nodes, and waits for a quorum. Each
    /// status goes out when its step happened: `SelectNodes` once the nodes are chosen and the channel
    /// is this device's, `StartVerificationOfNodes` once every node's request is under way,
    /// `CompleteVerificationOfNodes` once a quorum of attestations verified.
    package func start(channelId: String, deviceId: String, client: Client, request: AuthStartRequest, signed: DeviceAuthTarget? = nil) async throws -> AuthStartResponse {
        let device = try await requireDevice(deviceId, client: client, signed: signed)
        let channel = try await channel(channelId, for: device)
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        guard channel.state == .created else { throw AppError.authChannelState("The channel was already started") }
        let statement = AuthStatement.challenge(channelId: channelId, deviceId: deviceId, challenge: channel.challenge)
        guard let raw = Data(base64Encoded: request.challengeSignature),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              device.deviceKey.isValidSignature(signature, for: statement)
        else { throw AppError.authChallengeSignatureInvalid() }
        if let match = channel.numberMatch, !match.accepts(request.matchNumber) {
            // No second guess: a missing or wrong number ends the request before any node is asked.
            try await channels.fail(channelId, code: .authNumberMismatch, now: now)
            throw AppError.authNumberMismatch(
                detail: request.matchNumber == nil ? "This request asks for number matching: send matchNumber" : "The request has ended"
            )
        }
        if let appAttest {
            do {
                try await appAttest.checkSignIn(request.appAttestAssertion, device: device, challenge: channel.challenge)
            } catch let problem as AppError {
                // No second try with another assertion: the request ends, as for a wrong number.
                try await channels.fail(channelId, code: problem.code, now: clock.now())
                throw problem
            }
        }

        let selected = try await nodes.select(nodesPerAuthentication)
        let selectedAt = clock.now()
        guard try await store.markSelected(channelId, deviceId: deviceId, now: selectedAt) else { try await channels.refuse(channelId, now: selectedAt) }
        channels.announce(channelId, .selectNodes, at: selectedAt)

        let attestRequest = NodeAttestRequest(
            channelId: channelId, deviceId: deviceId, challenge: channel.challenge, challengeSignature: request.challengeSignature
        )
        let (channels, store, clock) = (self.channels, self.store, self.clock)
        let outcome = try await nodeQuorum.attest(attestRequest, nodes: selected) {
            let sentAt = clock.now()
            guard try await store.markRequestsSent(channelId, now: sentAt) else { try await channels.refuse(channelId, now: sentAt) }
            channels.announce(channelId, .startVerificationOfNodes, at: sentAt)
        }
        let end = clock.now()
        guard outcome.attested.count >= nodeQuorum.quorum else {
            try await channels.fail(channelId, code: .authQuorumNotReached, now: end)
            logger.warning(
                "node quorum not reached", metadata: ["channel": .string(channelId), "failures": .string(outcome.failures.joined(separator: "; "))]
            )
            throw AppError.authQuorumNotReached(
                detail: "\(outcome.attested.count) of the \(nodeQuorum.quorum) attestations needed (\(selected.count) nodes asked)"
            )
        }
        guard try await store.markAttested(channelId, nodes: outcome.attested, appAttestNodes: outcome.appAttested.count, now: end) else {
            try await channels.refuse(channelId, now: end)
        }
        channels.announce(channelId, .completeVerificationOfNodes, at: end)
        return AuthStartResponse(authType: device.localAuthType, nodes: outcome.attested)
    }

    /// Checks the user-verification signature and issues the result token.
    package func complete(channelId: String, deviceId: String, client: Client, request: AuthResultRequest, signed: DeviceAuthTarget? = nil) async throws -> AuthResultResponse {
        let device = try await requireDevice(deviceId, client: client, signed: signed)
        let channel = try await channel(channelId, for: device)
        let now = clock.now()
        if let refusal = channel.refusal(now: now) { throw refusal }
        guard channel.state == .attested else {
            throw AppError.authChannelState("The nodes have not attested this channel yet: call start first")
        }
        guard request.isSecondaryCertification else {
            try await channels.fail(channelId, code: .authSecondaryFailed, now: now)
            throw AppError.authSecondaryFailed()
        }
        let statement = AuthStatement.userVerification(channelId: channelId, deviceId: deviceId, challenge: channel.challenge)
        guard let raw = request.userVerificationSignature.flatMap({ Data(base64Encoded: $0) }),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              device.userVerificationKey.isValidSignature(signature, for: statement)
        else {
            try await channels.fail(channelId, code: .authUserVerificationInvalid, now: now)
            throw AppError.authUserVerificationInvalid()
        }
        let token = try await tokens.issue(
            userKey: device.userKey, clientKey: device.clientKey, clientId: device.clientKey, deviceId: deviceId, channelId: channelId,
            amr: ["hwk", ResultClaims.method(forLocalAuth: device.localAuthType)], nodes: channel.nodes, appAttest: device.appAttestClaim,
            appAttestNodes: device.appAttestClaim == nil ? nil : channel.appAttestNodes
        )
        let sealed = channel.initiator == .relyingParty ? try sealer.seal(token, channelId: channelId) : nil
        guard try await store.complete(channelId, tokenSealed: sealed, now: now) else { try await channels.refuse(channelId, now: now) }
        channels.metrics?.login(.completed)
        channels.hub.publish(channelId, AuthEvent(outcome: .completed, at: now))
        return AuthResultResponse(token: token, expiresIn: Int(tokens.lifetime.components.seconds))
    }

    /// The device cancels (any open channel of its own) or declines (a relying-party request).
    package func end(channelId: String, deviceId: String, client: Client, outcome: AuthOutcome, signed: DeviceAuthTarget? = nil) async throws {
        let device = try await requireDevice(deviceId, client: client, signed: signed)
        let channel = try await channel(channelId, for: device)
        if outcome == .declined, channel.initiator != .relyingParty {
            throw AppError.authChannelState("Only a relying party's request can be declined: cancel it instead")
        }
        try await channels.end(channel, outcome: outcome)
    }
}
