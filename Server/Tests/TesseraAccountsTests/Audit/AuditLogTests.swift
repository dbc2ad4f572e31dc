import Crypto
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import SQLKit
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The audit log on SQLite and PostgreSQL: what a sign-up, a login and a device revocation record
/// (IDs, no secrets), the chain and checkpoints verifying, tampering named, and concurrent appends
/// keeping one linear chain.
@Suite("Audit log")
struct AuditLogTests {
    static func entries(_ runtime: TesseraRuntime) async throws -> [AuditEntry] {
        let audit = runtime.repositories.audit
        return try await runtime.database.read { try await audit.entries(AuditQuery(limit: 1000), in: $0) }
    }

    /// Verifies the stored log as `tessera admin audit verify` does.
    static func verify(_ runtime: TesseraRuntime) async throws -> AuditVerifier.Problem? {
        let audit = runtime.repositories.audit
        let (head, checkpoints) = try await runtime.database.read { sql in (try await audit.head(in: sql), try await audit.checkpoints(in: sql)) }
        var verifier = AuditVerifier()
        verifier.check(try await entries(runtime))
        let key = runtime.keys.auditKey.publicKey
        return verifier.finish(
            head: head, checkpoints: checkpoints,
            publicKey: AuditPublicKey(keyId: AuditChain.keyId(of: key), publicKey: key.rawRepresentation.base64EncodedString())
        )
    }

    @Test("sign-up, login and an admin device revocation are logged in order, with IDs and no secrets", arguments: TestDatabase.kinds)
    func scriptedEvents(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient(bundle: "com.example.audit")
            let adminToken = try #require(runtime.firstStart?.adminToken)
            let app = Application(router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
            try await app.test(.live) { http in
                let port = try #require(http.port)
                let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
                // A generous deadline: on a machine loaded by other work one call took over the SDK's default 30 s.
                let device = TesseraClient(
                    configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.audit", timeout: .seconds(180)),
                    keyStore: MemoryKeyStore()
                )
                let pin = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in "271828" }
                try pin.enroll(secret: "271828")
                let email = "audit-person@example.com", phone = "+41795550177", name = "Audrey Auditee"
                try await device.requestSendOTPNumber(sendType: .email, sendTarget: email)
                let code = try await runtime.deliverAndReadCode(to: email)
                let wrong = code == "000000" ? "111111" : "000000"
                guard case .invalid = try await device.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: wrong) else {
                    Issue.record("a wrong code was accepted"); return
                }
                guard case .valid(let disposeToken) = try await device.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else {
                    Issue.record("the code was refused"); return
                }
                let state = try await device.requestSignUp(userData: UserData(
                    appVersion: "1.0", token: "push-audit", email: email, phoneNumber: phone, userKey: "audrey", name: name, authType: .pin,
                    os: .linux, disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
                ), localAuthenticator: pin, reason: "Sign up")
                let resultToken = try await device.authenticate(localAuthenticator: pin, reason: "Log in")
                let revoked = try await http.executeRequest(
                    uri: "/v1/admin/devices/\(state.deviceId)/revoke", method: .post, headers: [.authorization: "Bearer \(adminToken)"], body: nil
                )
                #expect(revoked.status == .noContent)

                let entries = try await Self.entries(runtime)
                #expect(entries.map(\.type) == [
                    "otp.sent", "otp.failed", "otp.verified", "user.signed_up", "device.enrolled", "session.created",
                    "login.started", "login.attested", "login.completed", "device.revoked", "admin.device.revoked",
                ])
                #expect(entries.map(\.seq) == Array(1...Int64(entries.count)))
                let signedUp = try #require(entries.first { $0.type == "user.signed_up" })
                #expect(signedUp.clientId == client.id)
                let userId = try #require(signedUp.userId)
                #expect(userId.hasPrefix("usr_"))
                #expect(signedUp.clientKey == client.clientKey && signedUp.userKey == "audrey", "named by the keys the operator sees")
                #expect(entries.first { $0.type == "device.enrolled" }?.deviceId == state.deviceId)
                #expect(entries.first { $0.type == "session.created" }?.sessionId?.hasPrefix("ses_") == true)
                let attested = try #require(entries.first { $0.type == "login.attested" })
                #expect(attested.actor == "device:\(state.deviceId)")
                #expect(attested.userId == userId)
                let nodes = try #require(try JSONDecoder().decode([String: String].self, from: Data(attested.details.utf8))["nodes"])
                #expect(nodes.split(separator: ",").count >= 2)
                let revocation = try #require(entries.first { $0.type == "device.revoked" })
                #expect(revocation.actor == "admin" && revocation.deviceId == state.deviceId)
                #expect(entries.first { $0.type == "otp.sent" }?.actor == "client:\(client.clientKey)")

                // Nothing secret or personal in any row (the hashes aside, which are hex).
                let secrets = [email, phone, name, "audrey@", code, wrong, disposeToken, resultToken, "271828", "push-audit"]
                for entry in entries {
                    let text = [entry.type, entry.actor, entry.clientId, entry.userId, entry.deviceId, entry.sessionId, entry.details, String(entry.time)]
                        .compactMap { $0 }.joined(separator: "|")
                    for secret in secrets { #expect(!text.contains(secret), "row \(entry.seq) holds a secret: \(text)") }
                }
            }
        }
    }

    @Test("rows name the client by its client key and the user by its user key beside the IDs (listing, export, subject filter); the chain still verifies", arguments: TestDatabase.kinds)
    func keysBesideIDs(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient(bundle: "com.example.names")
            let other = try await runtime.makeTestClient(bundle: "com.example.twin")
            // The same user key in two clients: a user key names one user per client.
            let alice = try await PushFixtures.user(runtime, client: client, name: "alice")
            let twin = try await PushFixtures.user(runtime, client: other, name: "alice")
            let audit = runtime.repositories.audit
            let start = try await runtime.database.read { try await audit.head(in: $0) }.seq
            try await runtime.database.transaction { sql in
                try await audit.append([
                    AuditEvent("login.completed", actor: AuditEvent.device(alice.deviceId), clientId: client.id, userId: alice.userId, deviceId: alice.deviceId),
                    AuditEvent("otp.sent", actor: AuditEvent.client(client.clientKey), clientId: client.id),
                    AuditEvent("login.completed", actor: "system", clientId: other.id, userId: twin.userId),
                    AuditEvent("login.failed", actor: "system", clientId: "cl_gone", userId: "usr_gone"),
                    AuditEvent("admin.key.rotated", actor: "admin"),
                ], in: sql)
            }
            let rows = try await Self.entries(runtime).filter { $0.seq > start }
            try #require(rows.count == 5)
            #expect(rows.map(\.clientKey) == [client.clientKey, client.clientKey, other.clientKey, nil, nil])
            #expect(rows.map(\.userKey) == [alice.userKey, nil, twin.userKey, nil, nil])
            #expect(rows.map(\.clientId) == [client.id, client.id, other.id, "cl_gone", nil], "the IDs stay beside the keys")
            #expect(rows.map(\.userId) == [alice.userId, nil, twin.userId, "usr_gone", nil])
            #expect(try await Self.verify(runtime) == nil, "the keys are outside the chain")

            let adminToken = try #require(runtime.firstStart?.adminToken)
            let app = Application(router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                func page(_ query: String) async throws -> [[String: Any]] {
                    let response = try await http.executeRequest(
                        uri: "/v1/admin/audit?after=\(start)&\(query)", method: .get, headers: [.authorization: "Bearer \(adminToken)"], body: nil
                    )
                    #expect(response.status == .ok)
                    let object = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
                    let entries = object?["entries"] as? [[String: Any]]
                    #expect(entries != nil, "a page has entries")
                    return entries ?? []
                }
                let listed = try await page("limit=10")
                #expect(listed.first?["clientKey"] as? String == client.clientKey)
                #expect(listed.first?["clientId"] as? String == client.id)
                #expect(listed.first?["userKey"] as? String == alice.userKey)
                #expect(listed.first?["userId"] as? String == alice.userId)
                #expect(listed.last?["clientKey"] == nil && listed.last?["userKey"] == nil)
                // The subject filter takes a client key, a user key or an ID.
                #expect(try await page("subject=\(client.clientKey)").map { $0["type"] as? String } == ["login.completed", "otp.sent"])
                #expect(try await page("subject=\(alice.userKey)").compactMap { $0["clientKey"] as? String } == [client.clientKey, other.clientKey])
                #expect(try await page("subject=\(twin.userId)").compactMap { $0["clientKey"] as? String } == [other.clientKey])
                #expect(try await page("subject=\(alice.deviceId)").count == 1)
                // The export: one line a row, with the keys.
                let export = try await http.executeRequest(
                    uri: "/v1/admin/audit/export?after=\(start)", method: .get, headers: [.authorization: "Bearer \(adminToken)"], body: nil
                )
                let lines = String(buffer: export.body).split(separator: "\n")
                    .map { try? JSONDecoder().decode(AuditEntry.self, from: Data($0.utf8)) }
                #expect(lines.map { $0?.clientKey } == [client.clientKey, client.clientKey, other.clientKey, nil, nil])
                #expect(lines.map { $0?.userKey } == [alice.userKey, nil, twin.userKey, nil, nil])
            }
        }
    }

    @Test("an untouched log verifies with its checkpoint; one changed row, one deleted row and a forged checkpoint are each named", arguments: TestDatabase.kinds)
    func tamperingIsNamed(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let audit = runtime.repositories.audit
            for index in 1...8 {
                try await runtime.database.transaction { sql in
                    try await audit.append(AuditEvent("test.event", actor: "system", userId: "usr_\(index)", details: ["n": String(index)]), in: sql)
                }
            }
            #expect(try await runtime.auditCheckpoints.checkpoint() != nil)
            #expect(try await runtime.auditCheckpoints.checkpoint() == nil, "no second checkpoint while the log has not grown")
            #expect(try await Self.verify(runtime) == nil)

            // One detail changed in row 3.
            try await runtime.database.withSQL { try await $0.raw("UPDATE audit_log SET details = '{\"n\":\"33\"}' WHERE seq = 3").run() }
            let changed = try #require(try await Self.verify(runtime))
            #expect(changed.seq == 3, "\(changed)")
            #expect(changed.message.contains("row 3"))
            try await runtime.database.withSQL { try await $0.raw("UPDATE audit_log SET details = '{\"n\":\"3\"}' WHERE seq = 3").run() }
            #expect(try await Self.verify(runtime) == nil, "restored, it verifies again")

            // Row 5 deleted.
            let five = try #require(try await Self.entries(runtime).first { $0.seq == 5 })
            try await runtime.database.withSQL { try await $0.raw("DELETE FROM audit_log WHERE seq = 5").run() }
            let deleted = try #require(try await Self.verify(runtime))
            #expect(deleted.seq == 5, "\(deleted)")
            #expect(deleted.message.contains("missing"))
            try await runtime.database.withSQL { sql in
                try await sql.raw(
                    """
                    INSERT INTO audit_log (seq, time, type, actor, client_id, user_id, device_id, session_id, details, prev_hash, hash)
                    VALUES (\(bind: five.seq), \(bind: five.time), \(bind: five.type), \(bind: five.actor), NULL, \(bind: five.userId), NULL, NULL,
                            \(bind: five.details), \(bind: five.prevHash), \(bind: five.hash))
                    """
                ).run()
            }
            #expect(try await Self.verify(runtime) == nil)

            // A checkpoint whose signature is not the audit key's.
            try await runtime.database.withSQL { sql in
                let forged = try AuditChain.checkpoint(seq: 8, hash: five.hash, time: 1, key: Curve25519.Signing.PrivateKey())
                try await sql.raw("UPDATE audit_checkpoints SET signature = \(bind: forged.signature) WHERE seq = 8").run()
            }
            let forged = try #require(try await Self.verify(runtime))
            #expect(forged.seq == 8 && forged.message.contains("bad signature"), "\(forged)")
        }
    }

    @Test("the checkpoint service signs the head every audit.checkpointInterval on the injected clock, and only when the log grew")
    func checkpointService() async throws {
        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: {
            $0.auditCheckpointInterval = .seconds(60)
            $0.embeddedNodes = 0
        }) { runtime in
            let audit = runtime.repositories.audit
            let checkpoints: @Sendable () async throws -> [AuditCheckpoint] = { try await runtime.database.read { try await audit.checkpoints(in: $0) } }
            try await runtime.database.transaction { try await audit.append(AuditEvent("test.event", actor: "system"), in: $0) }
            let sleepers = manual.waitingSleepers
            let service = Task { try await runtime.auditCheckpoints.run() }
            #expect(await eventually { manual.waitingSleepers == sleepers + 1 })
            #expect(try await checkpoints().isEmpty, "nothing before the first interval")
            manual.advance(by: .seconds(60))
            #expect(try await eventually { try await checkpoints().map(\.seq) == [1] })
            // The log did not grow: the next interval writes nothing; after one more event, the next one does.
            #expect(await eventually { manual.waitingSleepers == sleepers + 1 })
            manual.advance(by: .seconds(60))
            #expect(await eventually { manual.waitingSleepers == sleepers + 1 })
            #expect(try await checkpoints().map(\.seq) == [1])
            try await runtime.database.transaction { try await audit.append(AuditEvent("test.event", actor: "system"), in: $0) }
            manual.advance(by: .seconds(60))
            #expect(try await eventually { try await checkpoints().map(\.seq) == [1, 2] })
            service.cancel()
            _ = await service.result
            #expect(try await Self.verify(runtime) == nil)
        }
    }

    /// Two handles on one fresh database, as two server instances have: two SQLite connections on
    /// one file, or two PostgreSQL pools on one database. Migrated. `close` closes both and removes it.
    static func twoInstances(_ kind: TestDatabase) async throws -> (any Database, any Database, close: @Sendable () async -> Void) {
        switch kind {
        case .sqlite:
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString).sqlite").path
            let first = try await SQLiteDatabase.open(path: path, logger: TestDatabase.logger)
            try await Migrator.migrate(first)
            let second = try await SQLiteDatabase.open(path: path, logger: TestDatabase.logger)
            return (first, second, {
                await first.close()
                await second.close()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
        case .postgres:
            let url = try await TestDatabase.freshPostgresURL()
            let first = try await PostgresDatabase.open(url: url, logger: TestDatabase.logger)
            try await Migrator.migrate(first)
            let second = try await PostgresDatabase.open(url: url, logger: TestDatabase.logger)
            return (first, second, {
                await first.close()
                await second.close()
                await TestDatabase.drop(url)
            })
        }
    }

    @Test("50 concurrent appends from two instances on one database make one linear chain", arguments: TestDatabase.kinds)
    func concurrentAppends(kind: TestDatabase) async throws {
        let (first, second, close) = try await Self.twoInstances(kind)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    let database = index % 2 == 0 ? first : second
                    let audit = SQLAuditRepository(kind: database.kind, clock: .system)
                    group.addTask {
                        try await database.transaction { sql in
                            try await audit.append(AuditEvent("test.concurrent", actor: "system", details: ["n": String(index)]), in: sql)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let audit = SQLAuditRepository(kind: first.kind, clock: .system)
            let (entries, head) = try await first.read { sql in (try await audit.entries(AuditQuery(limit: 1000), in: sql), try await audit.head(in: sql)) }
            #expect(entries.map(\.seq) == Array(1...50))
            #expect(Set(entries.map(\.details)).count == 50)
            #expect(head == AuditHead(seq: 50, hash: try #require(entries.last?.hash)))
            var verifier = AuditVerifier()
            verifier.check(entries)
            let key = Curve25519.Signing.PrivateKey().publicKey
            #expect(verifier.finish(
                head: head, checkpoints: [], publicKey: AuditPublicKey(keyId: AuditChain.keyId(of: key), publicKey: key.rawRepresentation.base64EncodedString())
            ) == nil)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    @Test("the canonical encoding is the documented one: a known row hashes to the value of the Python verifier")
    func canonicalVector() {
        let bytes = AuditChain.canonical(
            seq: 1, time: 1_800_000_000_000, type: "user.signed_up", actor: "device:dev_1", clientId: "cli_1", userId: "usr_1", deviceId: nil,
            sessionId: nil, details: "{}"
        )
        #expect(Array(bytes.prefix(5)) == [0, 0, 0, 1, UInt8(ascii: "1")])
        // Nine length prefixes (two of them the absent marker alone) and 52 bytes of text.
        #expect(bytes.count == 88)
        // The value docs/audit-log.md's Python verifier computes for this row.
        let hash = AuditChain.hash(prevHash: AuditChain.genesis, canonical: bytes)
        #expect(hash == "9068c3ec8de804ef21d001f17d7b375ba997a51b37afc66527cb64989c51a4d4")
        #expect(hash != AuditChain.hash(prevHash: AuditChain.genesis, canonical: AuditChain.canonical(
            seq: 1, time: 1_800_000_000_000, type: "user.signed_up", actor: "device:dev_1", clientId: "cli_1", userId: "usr_1", deviceId: "",
            sessionId: nil, details: "{}"
        )), "an empty field differs from an absent one")
    }
}
