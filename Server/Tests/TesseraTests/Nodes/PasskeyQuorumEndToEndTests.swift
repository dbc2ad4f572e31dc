import Foundation
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// Quorum-verified passkeys (issue 38) with three `tessera node` processes: each node receives the passkey
/// and signs a receipt; for a client whose policy requires it, every passkey sign-in needs two nodes that
/// verified the assertion on their own. A server whose database was tampered with (the passkey's public key
/// replaced: a compromised server, the test double of this test) verifies a forged assertion itself and gets
/// no sign-in; a replayed or stale assertion gets none either; one node down still signs in, two fail closed.
@Suite("Passkeys verified by the node quorum", .serialized)
struct PasskeyQuorumEndToEndTests {
    static let bundle = "com.example.passkey-quorum"
    static let origin = "https://login.example.com"

    @Test("three nodes: receipts for the passkey; sign-ins name two nodes; a forged key in the server's database, a replay and a stale challenge get no quorum; one node down still signs in, two fail closed (5004); a revocation reaches the live node")
    func quorum() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle, configure: {
            $0.embeddedNodes = 0
            $0.nodeTimeout = .seconds(10)
            $0.issuer = Self.origin
        }) { runtime, client, _ in
            let serverKey = runtime.nodeAdmin.serverKey
            let nodes = try (0..<3).map { _ in try NodeQuorumEndToEndTests.NodeProcess(binary: binary, serverKey: serverKey) }
            defer { nodes.forEach { $0.stop() } }
            var nodeIds: [String] = []
            for node in nodes {
                let info = try await node.waitUntilUp()
                nodeIds.append(info.nodeId)
                _ = try await runtime.nodeAdmin.add(url: node.url, publicKey: info.publicKey, name: nil)
            }
            let users = runtime.repositories.users, now = runtime.clock.now()
            try await runtime.database.transaction { sql in
                try await users.insert(
                    UserRecord(id: "usr_pkq", clientId: client.id, userKey: "pia", name: "Pia", email: "pia@example.org", phone: "+41795550188",
                               localAuthType: "none", createdAt: now),
                    in: sql
                )
            }
            try await runtime.policies.set(ClientPolicy(passkeyNodeVerification: true), clientId: client.id)
            let passkeys = runtime.passkeys
            let nodesOfPasskeys = try #require(passkeys.nodes)

            // Registration: every node stores the passkey and signs a receipt, before the registration answers.
            var authenticator = SoftwareAuthenticator(origin: Self.origin)
            let options = try await passkeys.registrationOptions(client: client, userId: "usr_pkq", userName: "pia@example.org", displayName: "Pia", binding: "t")
            let created = try await passkeys.finishRegistration(
                client: client, challengeId: options.challengeId, binding: "t", response: authenticator.create(options.options), name: nil)
            let receipts = try await runtime.database.read { sql in try await nodesOfPasskeys.repository.receipts(passkeyId: created.id, in: sql) }
            #expect(Set(receipts.map(\.nodeId)) == Set(nodeIds) && receipts.allSatisfy { $0.status == "active" }, "\(receipts)")

            let signIn = { (device: inout SoftwareAuthenticator) in try await Self.signIn(passkeys, client, &device) }
            let expectNoQuorum = { (device: inout SoftwareAuthenticator, why: String) in try await Self.expectNoQuorum(passkeys, client, &device, why) }

            // A sign-in: the server verified it, and two nodes did on their own.
            let first = try await signIn(&authenticator)
            #expect(first.userId == "usr_pkq" && first.nodes.count == 2 && Set(first.nodes).isSubset(of: Set(nodeIds)), "\(first.nodes)")

            // A compromised server: its database now holds an attacker's key for the passkey, so the server's own
            // check passes on the attacker's assertion; the nodes hold the real key and refuse.
            var attacker = SoftwareAuthenticator(origin: Self.origin)
            attacker.credentialId = authenticator.credentialId
            attacker.userHandle = authenticator.userHandle
            attacker.counter = 100
            let attackerKey = Base64URL.encode(attacker.coseKey)
            try await runtime.database.withSQL { sql in
                try await sql.raw("UPDATE passkey_credentials SET public_key = \(bind: attackerKey) WHERE id = \(bind: created.id)").run()
            }
            try await expectNoQuorum(&attacker, "an assertion by a key the nodes never received")
            try await runtime.database.withSQL { sql in
                try await sql.raw("UPDATE passkey_credentials SET public_key = \(bind: created.publicKey) WHERE id = \(bind: created.id)").run()
            }

            // A replay of an assertion the nodes attested, and an assertion over a stale challenge: no quorum.
            let fresh = try await passkeys.authenticationOptions(client: client, userId: nil, binding: "t")
            let response = try authenticator.get(fresh.options)
            let request = NodePasskeyAttestRequest(
                passkeyId: created.id, challenge: fresh.options.challenge, clientDataJSON: response.response.clientDataJSON,
                authenticatorData: response.response.authenticatorData, signature: response.response.signature, userHandle: response.response.userHandle,
                requireUserVerification: true
            )
            #expect(try await nodesOfPasskeys.attest(request).attested.count == 2)
            let replayed = try await nodesOfPasskeys.attest(request)
            #expect(replayed.attested.count < 2, "a replayed assertion: \(replayed)")
            var staleOptions = fresh.options
            staleOptions.challenge = Base64URL.encode(PasskeyService.timed(runtime.clock.now() - 3_600_000) + (0..<24).map { _ in UInt8.random(in: 0...255) })
            let stale = try authenticator.get(staleOptions)
            var staleRequest = request
            (staleRequest.challenge, staleRequest.clientDataJSON) = (staleOptions.challenge, stale.response.clientDataJSON)
            (staleRequest.authenticatorData, staleRequest.signature) = (stale.response.authenticatorData, stale.response.signature)
            #expect(try await nodesOfPasskeys.attest(staleRequest).attested.isEmpty, "an hour-old challenge")

            // One node down: a sign-in still gets its two attestations. Two down: it fails closed.
            nodes[0].signal(SIGKILL)
            let withTwo = try await signIn(&authenticator)
            #expect(Set(withTwo.nodes) == Set(nodeIds.dropFirst()), "\(withTwo.nodes)")
            nodes[1].signal(SIGKILL)
            try await expectNoQuorum(&authenticator, "one node of three")
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let failures = try await runtime.database.read { sql in
                try await sql.raw("SELECT details FROM audit_log WHERE type = 'passkey.failed' ORDER BY seq").all().map { try $0.decode(column: "details", as: String.self) }
            }
            #expect(failures.filter { $0.contains("quorum_not_reached") }.count == 2, "\(failures)")

            // A revocation reaches the node that is up; the others keep it queued (no receipt yet).
            try await passkeys.revoke(id: created.id, userId: nil, actor: "test")
            let after = try await runtime.database.read { sql in try await nodesOfPasskeys.repository.receipts(passkeyId: created.id, in: sql) }
            #expect(after.first { $0.nodeId == nodeIds[2] }?.status == "revoked", "\(after)")
            #expect(after.filter { $0.nodeId != nodeIds[2] }.allSatisfy { $0.status == "active" }, "\(after)")
        }
    }

    static func signIn(_ passkeys: PasskeyService, _ client: Client, _ device: inout SoftwareAuthenticator) async throws -> PasskeyService.SignIn {
        let request = try await passkeys.authenticationOptions(client: client, userId: nil, binding: "t")
        return try await passkeys.finishAuthentication(client: client, challengeId: request.challengeId, binding: "t", response: device.get(request.options))
    }

    static func expectNoQuorum(_ passkeys: PasskeyService, _ client: Client, _ device: inout SoftwareAuthenticator, _ why: String) async throws {
        do {
            _ = try await signIn(passkeys, client, &device)
            Issue.record("signed in: \(why)")
        } catch let error as AppError {
            #expect(error.code == .authQuorumNotReached, "\(why): \(error)")
        }
    }
}
