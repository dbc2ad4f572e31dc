import Crypto
import Foundation
import Synchronization
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The progress statuses of the device flow go out when their step really happens, driven by nodes
/// the test holds back (no sleeps: the test releases each node, time is a ``ManualClock``).
@Suite("Auth progress")
struct AuthProgressTests {
    /// What a held node does once released.
    enum Verdict: Sendable { case attest, refuse }

    /// A one-shot gate a node call waits on.
    final class Gate: Sendable {
        private enum State { case closed, waiting(CheckedContinuation<Verdict, Never>), open(Verdict) }
        private let state = Mutex(State.closed)
        private let cancelled = Mutex(false)

        /// The call waiting here was cancelled: it stops waiting with a refusal.
        func cancel() {
            cancelled.withLock { $0 = true }
            release(.refuse)
        }

        /// Whether the call was cancelled (``cancel()``).
        var wasCancelled: Bool { cancelled.withLock { $0 } }

        /// Whether a call waits here now.
        var isWaiting: Bool {
            state.withLock {
                if case .waiting = $0 { return true }
                return false
            }
        }

        func release(_ verdict: Verdict) {
            let waiting: CheckedContinuation<Verdict, Never>? = state.withLock { state in
                let before = state
                state = .open(verdict)
                if case .waiting(let continuation) = before { return continuation }
                return nil
            }
            waiting?.resume(returning: verdict)
        }

        func wait() async -> Verdict {
            await withCheckedContinuation { continuation in
                let verdict: Verdict? = state.withLock {
                    if case .open(let verdict) = $0 { return verdict }
                    $0 = .waiting(continuation)
                    return nil
                }
                if let verdict { continuation.resume(returning: verdict) }
            }
        }
    }

    /// A verifier node whose answer the test holds back. When called it puts a marker into `log`,
    /// the same stream the channel's events arrive in, so the stream shows what happened in order.
    struct HeldNode: NodeClient {
        let nodeId: String
        let key = Curve25519.Signing.PrivateKey()
        let gate = Gate()
        let marker: Int
        let log: AsyncStream<AuthEvent>.Continuation
        let clock: WallClock

        func storeAll(_ records: [NodeDeviceRecord]) async throws -> [NodeStoreOutcome] {
            throw NodeCallError(nodeId: nodeId, code: nil, message: "not used")
        }

        func attest(_ request: NodeAttestRequest) async throws -> NodeAttestation {
            log.yield(AuthEvent(code: marker, at: 0))
            // A cancelled call (its timeout passed) stops waiting, as an HTTP call would.
            let verdict = await withTaskCancellationHandler { await gate.wait() } onCancel: { gate.cancel() }
            switch verdict {
            case .refuse: throw NodeCallError(nodeId: nodeId, code: .nodeSignatureInvalid, message: "refused")
            case .attest:
                let signedAt = clock.now()
                let statement = AuthStatement.attestation(
                    nodeId: nodeId, channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge, signedAt: signedAt
                )
                return NodeAttestation(nodeId: nodeId, signedAt: signedAt, signature: try key.signature(for: statement).base64EncodedString())
            }
        }

        var node: NodeDirectory.Node {
            NodeDirectory.Node(
                entry: NodeEntry(
                    nodeId: nodeId, name: nodeId, url: "test:\(nodeId)", publicKey: key.publicKey.rawRepresentation.base64EncodedString(),
                    enabled: true, createdAt: 0
                ),
                publicKey: key.publicKey, client: self
            )
        }
    }

    /// The held nodes, in a fixed order.
    struct HeldNodes: AttestingNodes {
        let nodes: [HeldNode]
        func select(_ count: Int) async throws -> [NodeDirectory.Node] { nodes.prefix(count).map(\.node) }
        func markHealthy(_ id: String) {}
        func markFailed(_ id: String) {}
    }

    /// Markers the test puts into the log (nodes use 1, 2, 3).
    static let releasedLast = 99

    static func describe(_ event: AuthEvent) -> String {
        if let status = event.status { return status.rawValue }
        if let outcome = event.outcome { return "outcome \(outcome.rawValue)" }
        return event.code == releasedLast ? "released B" : "called \(event.code ?? 0)"
    }

    /// A signed-up device and its key, and a device flow over the held nodes.
    static func setUp(
        _ runtime: TesseraRuntime, clock: WallClock, log: AsyncStream<AuthEvent>.Continuation, timeout: Duration,
        userVerificationKey: P256.Signing.PrivateKey = P256.Signing.PrivateKey(), devices: (any DeviceAuthLookup)? = nil
    ) async throws -> (flow: DeviceAuthFlow, nodes: [HeldNode], client: Client, deviceId: String, deviceKey: P256.Signing.PrivateKey) {
        let client = try await runtime.makeTestClient()
        let deviceKey = P256.Signing.PrivateKey()
        let email = "progress@example.com"
        let request = SignUpFixtures.request(
            client, email: email, phone: "+41790000001", userKey: "progress", token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
            deviceKey: deviceKey, userVerificationKey: userVerificationKey
        )
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        let deviceId = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone).deviceId
        let (flow, nodes) = heldFlow(runtime, markers: 1...3, clock: clock, log: log, timeout: timeout, devices: devices)
        return (flow, nodes, client, deviceId, deviceKey)
    }

    /// A device flow over three new held nodes (named `node-<marker>`), quorum 2 of 3.
    static func heldFlow(
        _ runtime: TesseraRuntime, markers: ClosedRange<Int>, clock: WallClock, log: AsyncStream<AuthEvent>.Continuation, timeout: Duration,
        devices: (any DeviceAuthLookup)? = nil
    ) -> (flow: DeviceAuthFlow, nodes: [HeldNode]) {
        let nodes = markers.map { HeldNode(nodeId: "node-\($0)", marker: $0, log: log, clock: clock) }
        let held = HeldNodes(nodes: nodes)
        let flow = DeviceAuthFlow(
            channels: runtime.auth.channels, devices: devices ?? SQLDeviceRepository(database: runtime.database), nodes: held, tokens: runtime.tokens,
            sealer: SealedResultToken(key: runtime.keys.tokenSealKey), nodesPerAuthentication: 3,
            nodeQuorum: NodeQuorum(nodes: held, quorum: 2, timeout: timeout, clock: clock), logger: TestDatabase.logger
        )
        return (flow, nodes)
    }

    static func challengeSignature(_ key: P256.Signing.PrivateKey, channel: AuthChannelResponse, deviceId: String) throws -> AuthStartRequest {
        let statement = AuthStatement.challenge(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
        return AuthStartRequest(challengeSignature: try key.signature(for: statement).rawRepresentation.base64EncodedString())
    }

    /// A new channel of the set-up device on `flow`, and the start request that signs its challenge.
    static func openSigned(
        _ flow: DeviceAuthFlow, deviceId: String, client: Client, key: P256.Signing.PrivateKey
    ) async throws -> (channel: AuthChannelResponse, start: AuthStartRequest) {
        let channel = try await flow.open(deviceId: deviceId, client: client, ip: nil)
        return (channel, try challengeSignature(key, channel: channel, deviceId: deviceId))
    }

    @Test("no verifier node registered: start fails at once with 5004 (it waited forever before)", .timeLimit(.minutes(2)), arguments: TestDatabase.kinds)
    func noNodesFailsAtOnce(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (_, logInput) = AsyncStream<AuthEvent>.makeStream()
            let setup = try await Self.setUp(runtime, clock: runtime.clock, log: logInput, timeout: .seconds(3600))
            let flow = runtime.auth.device
            let channel = try await flow.open(deviceId: setup.deviceId, client: setup.client, ip: nil)
            let start = try Self.challengeSignature(setup.deviceKey, channel: channel, deviceId: setup.deviceId)
            let error = await #expect(throws: AppError.self) {
                try await flow.start(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, request: start)
            }
            #expect(error?.code == .authQuorumNotReached)
        }
    }

    @Test("nodes selected, then every request sent, then the quorum once enough attestations verified", arguments: TestDatabase.kinds)
    func progressFollowsTheSteps(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (log, logInput) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
            let setup = try await Self.setUp(runtime, clock: manual.clock, log: logInput, timeout: .seconds(3600))
            let (channel, start) = try await Self.openSigned(setup.flow, deviceId: setup.deviceId, client: setup.client, key: setup.deviceKey)
            let listener = runtime.auth.hub.register(channel.channelId, logInput)
            defer { runtime.auth.hub.unregister(channel.channelId, listener) }

            let (seen, response, releasedAt) = try await withThrowingTaskGroup(of: AuthStartResponse?.self) { group in
                group.addTask {
                    try await setup.flow.start(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, request: start)
                }
                var events = log.makeAsyncIterator()
                var seen: [String] = []
                // Each node's marker is put into the stream by its call, right after the quorum counted that call as
                // sent; a call preempted between the two can put it after StartVerificationOfNodes on a loaded
                // machine. So nothing is released before the status and all three calls are in.
                while let event = await events.next() {
                    seen.append(Self.describe(event))
                    if seen.contains("StartVerificationOfNodes"), seen.filter({ $0.hasPrefix("called ") }).count == 3 { break }
                }
                // One node attests and one refuses: one attestation is not a quorum of two.
                setup.nodes[0].gate.release(.attest)
                setup.nodes[2].gate.release(.refuse)
                manual.advance(by: .seconds(1))
                let releasedAt = manual.clock.now()
                logInput.yield(AuthEvent(code: Self.releasedLast, at: 0))
                setup.nodes[1].gate.release(.attest)
                while let event = await events.next() {
                    seen.append(Self.describe(event))
                    if event.status == .completeVerificationOfNodes {
                        #expect(event.at >= releasedAt)
                        break
                    }
                }
                let response = try await group.next() ?? nil
                return (seen, response, releasedAt)
            }
            #expect(seen.first == "SelectNodes", "\(seen)")
            // The quorum announces StartVerificationOfNodes once it counted every call as sent, and no node answered
            // before the test released them: the status and the three calls, in either order, then the release and
            // the quorum.
            #expect(Set(seen.dropFirst().prefix(4)) == ["called 1", "called 2", "called 3", "StartVerificationOfNodes"], "\(seen)")
            #expect(Array(seen.dropFirst(5)) == ["released B", "CompleteVerificationOfNodes"], "\(seen)")
            #expect(response.map { Set($0.nodes) } == ["node-1", "node-2"])
            let stored = try #require(try await runtime.auth.channels.store.find(channel.channelId))
            #expect(stored.state == .attested && Set(stored.nodes) == ["node-1", "node-2"])
            #expect(try #require(stored.attestedAt) >= releasedAt)
        }
    }

    @Test("a node that does not answer times out on the injected clock", .timeLimit(.minutes(1)), arguments: TestDatabase.kinds)
    func nodeTimeoutOnInjectedClock(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (_, logInput) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
            // An hour: only the test's clock can let it pass within the time limit.
            let setup = try await Self.setUp(runtime, clock: manual.clock, log: logInput, timeout: .seconds(3600))
            let (channel, start) = try await Self.openSigned(setup.flow, deviceId: setup.deviceId, client: setup.client, key: setup.deviceKey)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await expectCode(.authQuorumNotReached) {
                        _ = try await setup.flow.start(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, request: start)
                    }
                }
                // The three calls each wait under their timeout; once the others answered, the held one is left.
                #expect(await eventually { manual.waitingSleepers == 3 })
                setup.nodes[0].gate.release(.attest)
                setup.nodes[2].gate.release(.refuse)
                #expect(await eventually { manual.waitingSleepers == 1 })
                manual.advance(by: .seconds(3601))
                try await group.waitForAll()
            }
            let stored = try #require(try await runtime.auth.channels.store.find(channel.channelId))
            #expect(stored.outcome == .failed && stored.code == ErrorCode.authQuorumNotReached.rawValue)
        }
    }

    @Test(
        "a call still under way when the quorum verified is not cancelled (a cancelled HTTP call loses its connection) and its late answer changes nothing; a cancelled start cancels every call",
        .timeLimit(.minutes(2)), arguments: TestDatabase.kinds
    )
    func lateCallEndsOnItsOwn(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (_, logInput) = AsyncStream<AuthEvent>.makeStream(bufferingPolicy: .unbounded)
            let setup = try await Self.setUp(runtime, clock: manual.clock, log: logInput, timeout: .seconds(3600))
            let (channel, start) = try await Self.openSigned(setup.flow, deviceId: setup.deviceId, client: setup.client, key: setup.deviceKey)
            setup.nodes[0].gate.release(.attest)
            setup.nodes[1].gate.release(.attest)
            let response = try await setup.flow.start(channelId: channel.channelId, deviceId: setup.deviceId, client: setup.client, request: start)
            #expect(Set(response.nodes) == ["node-1", "node-2"])
            // The third call went out before the quorum was declared, and it still waits for its node.
            #expect(await eventually { setup.nodes[2].gate.isWaiting })
            #expect(!setup.nodes[2].gate.wasCancelled)
            // Its timeout sleeps on the manual clock; the sleep may start just after the node saw the request, so it is
            // awaited, not read once. A cancelled call would never get there.
            #expect(await eventually { manual.waitingSleepers == 1 }, "its timeout still runs")
            // Its answer arrives later; the call ends (its timeout with it) and the channel stays as the quorum left it.
            setup.nodes[2].gate.release(.attest)
            #expect(await eventually { manual.waitingSleepers == 0 })
            #expect(!setup.nodes[2].gate.wasCancelled)
            let stored = try #require(try await runtime.auth.channels.store.find(channel.channelId))
            #expect(stored.state == .attested && Set(stored.nodes) == ["node-1", "node-2"])

            // A start whose task is cancelled (the device went away) cancels the calls still under way.
            let (flow, nodes) = Self.heldFlow(runtime, markers: 4...6, clock: manual.clock, log: logInput, timeout: .seconds(3600))
            let (second, signature) = try await Self.openSigned(flow, deviceId: setup.deviceId, client: setup.client, key: setup.deviceKey)
            let task = Task {
                try await flow.start(channelId: second.channelId, deviceId: setup.deviceId, client: setup.client, request: signature)
            }
            #expect(await eventually { nodes.allSatisfy(\.gate.isWaiting) })
            task.cancel()
            #expect(await eventually { nodes.allSatisfy(\.gate.wasCancelled) })
            #expect((try? await task.value) == nil)
        }
    }

    @Test("channel states move one step forward only")
    func stateTransitions() throws {
        #expect(try AuthChannelState.created.transition(to: .selected) == .selected)
        #expect(try AuthChannelState.selected.transition(to: .verifying) == .verifying)
        #expect(try AuthChannelState.verifying.transition(to: .attested) == .attested)
        #expect(try AuthChannelState.attested.transition(to: .completed) == .completed)
        #expect(throws: AppError.self) { try AuthChannelState.created.transition(to: .verifying) }
        #expect(throws: AppError.self) { try AuthChannelState.completed.transition(to: .created) }
        #expect(AuthChannelState(stored: "verifying") == .verifying)
        #expect(AuthChannelState.verifying.hasReached(.selected) && !AuthChannelState.selected.hasReached(.verifying))
    }
}
