import Crypto
import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// App Attest on the verifier nodes, end to end (issue 41, item 3 and the Done-when's "two of three nodes refusing fails
/// the login closed"), on both databases: the server and its three embedded nodes (in the test process, each with its
/// own roots file), a device enrolled with a bound minted attestation, and logins through the device flow (quorum 2 of
/// 3). Each node verifies the attestation it is sent itself; the result token counts the nodes that did.
@Suite("App Attest on the verifier nodes, end to end")
struct AppAttestNodesEndToEndTests {
    struct Setup {
        var runtime: TesseraRuntime
        var client: Client
        var minted: AppAttestFixtures.Minted
        var random: ScriptedRandom
    }

    /// A runtime whose nodes in `otherRoot` (1-based) trust another root than the minted one, the client's settings
    /// `policy` for the minted app.
    static func run(_ kind: TestDatabase, otherRoot: Set<Int> = [], policy: String, _ body: (Setup) async throws -> Void) async throws {
        let minted = try await AppAttestFixtures.minted()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-aa-nodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("root.pem"), other = directory.appendingPathComponent("other.pem")
        try Data(minted.rootPEM.utf8).write(to: root)
        try Data(Self.pem(AppAttestFixtures.hex(minted.otherRoot)).utf8).write(to: other)
        let random = ScriptedRandom(), clock = ManualClock(start: Int64(minted.time * 1000))
        let launcher = InProcessNodeLauncher(appAttestRoots: { otherRoot.contains($0) ? other.path : nil })
        try await withTestRuntime(kind, clock: clock.clock, random: random.source, configure: { $0.appAttestRoots = root.path }, nodeLauncher: launcher) { runtime in
            let client = try await runtime.makeTestClient(bundle: "org.example.tessera")
            let settings = AppAttestSettings(policy: policy, teamId: "TESTTEAM42", bundleId: "org.example.tessera", environment: "development")
            _ = try await runtime.signIn.appAttestSettings.set(settings, client: client)
            try await body(Setup(runtime: runtime, client: client, minted: minted, random: random))
        }
    }

    static func pem(_ der: [UInt8]) -> String {
        "-----BEGIN CERTIFICATE-----\n\(Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]))\n-----END CERTIFICATE-----\n"
    }

    /// Signs up `userKey` with the device key `deviceKey` (and the bound case `bound`'s attestation, when given);
    /// returns the device ID. The nodes are told before it returns.
    static func enrol(
        _ setup: Setup, _ userKey: String, deviceKey: P256.Signing.PrivateKey, userVerificationKey: P256.Signing.PrivateKey,
        bound: AppAttestFixtures.Case?
    ) async throws -> String {
        let runtime = setup.runtime, client = setup.client, email = "\(userKey)@example.com"
        var request = SignUpFixtures.request(
            client, email: email, phone: "+4179\(Int.random(in: 1_000_000...9_999_999))", userKey: userKey,
            token: try await SignUpFixtures.disposeToken(runtime, client, email: email), deviceKey: deviceKey, userVerificationKey: userVerificationKey
        )
        if let bound {
            setup.random.enqueue(Array(AppAttestFixtures.hex(bound.challenge).prefix(16)))
            let challenge = try await runtime.appAttest.enrolmentChallenge(
                clientId: client.id, devicePublicKey: deviceKey.publicKey.x963Representation.base64EncodedString()
            )
            request.appAttest = AppAttestHTTPFixture.evidence(bound, challenge: challenge.challenge)
        }
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        return try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone).deviceId
    }

    /// A whole device login: open, start (the nodes), complete; the result token's claims.
    static func login(
        _ setup: Setup, deviceId: String, deviceKey: P256.Signing.PrivateKey, userVerificationKey: P256.Signing.PrivateKey
    ) async throws -> ResultClaims {
        let flow = setup.runtime.auth.device, client = setup.client
        let channel = try await flow.open(deviceId: deviceId, client: client, ip: nil)
        let statement = AuthStatement.challenge(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
        _ = try await flow.start(
            channelId: channel.channelId, deviceId: deviceId, client: client,
            request: AuthStartRequest(challengeSignature: try deviceKey.signature(for: statement).rawRepresentation.base64EncodedString())
        )
        let verification = AuthStatement.userVerification(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
        let result = try await flow.complete(
            channelId: channel.channelId, deviceId: deviceId, client: client,
            request: AuthResultRequest(
                isSecondaryCertification: true,
                userVerificationSignature: try userVerificationKey.signature(for: verification).rawRepresentation.base64EncodedString()
            )
        )
        return try await setup.runtime.tokens.verify(result.data)
    }

    @Test("required, every node trusting the root: the login's token says attested by the nodes of its quorum", arguments: TestDatabase.kinds)
    func everyNodeVerifies(kind: TestDatabase) async throws {
        try await Self.run(kind, policy: "required") { setup in
            let bound = try setup.minted.named("bound development attestation")
            let deviceKey = try bound.deviceKey(), uv = P256.Signing.PrivateKey()
            let deviceId = try await Self.enrol(setup, "alice", deviceKey: deviceKey, userVerificationKey: uv, bound: bound)
            let claims = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv)
            #expect(claims.appAttest == "attested")
            #expect(claims.nodes.count >= 2)
            #expect(claims.appAttestNodes == claims.nodes.count, "each node of the quorum verified the attestation itself")
        }
    }

    @Test("required, two of three nodes trusting another root: they refuse (7408) and the login fails closed", arguments: TestDatabase.kinds)
    func twoOfThreeRefuse(kind: TestDatabase) async throws {
        try await Self.run(kind, otherRoot: [2, 3], policy: "required") { setup in
            let bound = try setup.minted.named("bound development attestation")
            let deviceKey = try bound.deviceKey(), uv = P256.Signing.PrivateKey()
            // The server verified the attestation (its root is the minted one): the device enrols.
            let deviceId = try await Self.enrol(setup, "alice", deviceKey: deviceKey, userVerificationKey: uv, bound: bound)
            #expect(try await setup.runtime.appAttest.state(deviceId: deviceId).attested)
            let code = await AppAttestHTTPFixture.refusal { _ = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv) }
            #expect(code == .authQuorumNotReached)
        }
    }

    @Test("reported, one node trusting another root: the login passes and the token counts only the nodes that verified", arguments: TestDatabase.kinds)
    func reportedCountsVerifiers(kind: TestDatabase) async throws {
        try await Self.run(kind, otherRoot: [1, 2], policy: "reported") { setup in
            let bound = try setup.minted.named("bound development attestation")
            let deviceKey = try bound.deviceKey(), uv = P256.Signing.PrivateKey()
            let deviceId = try await Self.enrol(setup, "alice", deviceKey: deviceKey, userVerificationKey: uv, bound: bound)
            let claims = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv)
            #expect(claims.appAttest == "attested")
            #expect(claims.nodes.count >= 2)
            // Node 3 alone trusts the minted root: at most one node of the quorum vouches.
            #expect((claims.appAttestNodes ?? -1) <= 1 && (claims.appAttestNodes ?? -1) >= 0)
        }
    }

    @Test("a device enrolled without an attestation under reported: once the policy is required the nodes are told and refuse; the login fails closed", arguments: TestDatabase.kinds)
    func policyTurnedRequired(kind: TestDatabase) async throws {
        try await Self.run(kind, policy: "reported") { setup in
            let deviceKey = P256.Signing.PrivateKey(), uv = P256.Signing.PrivateKey()
            let deviceId = try await Self.enrol(setup, "alice", deviceKey: deviceKey, userVerificationKey: uv, bound: nil)
            let before = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv)
            #expect(before.appAttest == "none" && before.appAttestNodes == 0)
            let settings = AppAttestSettings(policy: "required", teamId: "TESTTEAM42", bundleId: "org.example.tessera", environment: "development")
            _ = try await setup.runtime.signIn.appAttestSettings.set(settings, client: setup.client)
            try await setup.runtime.signIn.nodeSync.deliverDue()
            let code = await AppAttestHTTPFixture.refusal { _ = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv) }
            #expect(code == .authQuorumNotReached)
        }
    }

    @Test("an enrolled device that attests later (POST /v1/devices/app-attest/…, its challenge bound to its key): the nodes verify that too", arguments: TestDatabase.kinds)
    func attestedAfterEnrolment(kind: TestDatabase) async throws {
        try await Self.run(kind, policy: "reported") { setup in
            let deviceKey = try setup.minted.fixtureKey(), uv = P256.Signing.PrivateKey()
            let deviceId = try await Self.enrol(setup, "alice", deviceKey: deviceKey, userVerificationKey: uv, bound: nil)
            let attestation = try setup.minted.named("valid development attestation")
            setup.random.enqueue(Array(AppAttestFixtures.hex(attestation.challenge).prefix(16)))
            let appAttest = setup.runtime.appAttest
            let challenge = try await appAttest.challenge(for: deviceId, deviceKey: Array(deviceKey.publicKey.x963Representation))
            #expect(challenge.challenge == Data(AppAttestFixtures.hex(attestation.challenge)).base64URLEncodedString())
            try await appAttest.attest(
                deviceId: deviceId, keyId: AppAttestFixtures.hex(attestation.keyId), attestationObject: AppAttestFixtures.hex(attestation.attestationObject),
                challenge: challenge.challenge, app: attestation.app
            )
            try await setup.runtime.signIn.nodeSync.deliverDue()
            let claims = try await Self.login(setup, deviceId: deviceId, deviceKey: deviceKey, userVerificationKey: uv)
            #expect(claims.appAttest == "attested")
            #expect(claims.appAttestNodes == claims.nodes.count)
        }
    }
}
