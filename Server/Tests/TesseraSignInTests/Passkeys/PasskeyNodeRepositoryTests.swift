import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// What the nodes lack of the passkeys (`passkey_node_receipts`), on SQLite and PostgreSQL: an active passkey
/// until the node's receipt; a revocation only for a node that had it; a client that requires node
/// verification and a server with no nodes: no passkey sign-in (5004), audited.
@Suite("Passkeys: the nodes' receipts and the node requirement")
struct PasskeyNodeRepositoryTests {
    @Test("unsynced until the receipt; a revoked passkey is sent only to the node that had it; receipts listed by node", arguments: TestDatabase.kinds)
    func receipts(_ kind: TestDatabase) async throws {
        try await PasskeyServiceTests.run(kind) { runtime, client, _ in
            var authenticator = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            let options = try await runtime.passkeys.registrationOptions(
                client: client, userId: "usr_alice_\(client.id)", userName: "alice@example.org", displayName: "Alice", binding: "b")
            let created = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: options.challengeId, binding: "b", response: authenticator.create(options.options), name: nil)
            let repository = SQLPasskeyNodeRepository()
            func unsynced(_ node: String) async throws -> [PasskeyNodeState] {
                try await runtime.database.read { sql in try await repository.unsynced(nodeId: node, limit: 64, in: sql) }
            }
            func receipt(_ node: String, _ status: String) async throws {
                try await runtime.database.transaction { sql in
                    try await repository.store([PasskeyNodeReceipt(
                        nodeId: node, passkeyId: created.id, status: status, keysDigest: "d", signedAt: 1, signature: "s"
                    )], receivedAt: 2, in: sql)
                }
            }
            let missing = try await unsynced("nd_a")
            #expect(missing.map(\.id) == [created.id] && missing.first?.status == "active" && missing.first?.public_key == created.publicKey)
            try await receipt("nd_a", "active")
            #expect(try await unsynced("nd_a").isEmpty)
            #expect(try await unsynced("nd_b").map(\.id) == [created.id])

            try await runtime.passkeys.revoke(id: created.id, userId: nil, actor: "test")
            #expect(try await unsynced("nd_a").map(\.status) == ["revoked"], "the node that had it is told")
            #expect(try await unsynced("nd_b").isEmpty, "a node that never had it need not be")
            try await receipt("nd_a", "revoked")
            #expect(try await unsynced("nd_a").isEmpty)
            let listed = try await runtime.database.read { sql in try await repository.receipts(passkeyId: created.id, in: sql) }
            #expect(listed.map(\.nodeId) == ["nd_a"] && listed.first?.status == "revoked")
        }
    }

    @Test("a client whose policy requires node verification, on a server without nodes: the assertion verifies, no sign-in (5004), passkey.failed quorum_not_reached", arguments: TestDatabase.kinds)
    func requiredWithoutNodes(_ kind: TestDatabase) async throws {
        try await PasskeyServiceTests.run(kind) { runtime, client, _ in
            try await runtime.policies.set(ClientPolicy(passkeyNodeVerification: true), clientId: client.id)
            var authenticator = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            let options = try await runtime.passkeys.registrationOptions(
                client: client, userId: "usr_alice_\(client.id)", userName: "alice@example.org", displayName: "Alice", binding: "b")
            _ = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: options.challengeId, binding: "b", response: authenticator.create(options.options), name: nil)
            let request = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "b")
            let response = try authenticator.get(request.options)
            await PasskeyServiceTests.expectProblem(.authQuorumNotReached) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: request.challengeId, binding: "b", response: response)
            }
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let details = try await runtime.database.read { sql in
                try await sql.raw("SELECT details FROM audit_log WHERE type = 'passkey.failed'").all().map { try $0.decode(column: "details", as: String.self) }
            }
            #expect(details.contains { $0.contains("quorum_not_reached") }, "\(details)")
        }
    }
}
