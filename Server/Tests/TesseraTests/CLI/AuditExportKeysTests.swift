import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraServer

/// `tessera admin audit export` names each row's client by its client key and its user by its user key (the names
/// `tessera admin client list` and the console's users list show), beside the internal IDs; the chain still verifies.
@Suite("CLI: tessera admin audit export names keys", .serialized)
struct AuditExportKeysTests {
    @Test("export rows carry clientKey and userKey beside clientId and userId; verify still passes", arguments: AuditCLITests.engines)
    func exportNamesKeys(engine: String) async throws {
        let tessera = try AdminCLITests.binary()
        try await AuditCLITests.serve(engine) { runtime, admin in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Named", "--bundle-id", "com.example.named"] + admin)
            #expect(created.status == 0, "\(created.output)")
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            let client = try #require(try await runtime.repositories.clients.find(clientKey: clientKey)?.client)
            let userId = "usr_" + UUID().uuidString
            let users = runtime.repositories.users, audit = runtime.repositories.audit
            try await runtime.database.transaction { sql in
                try await users.insert(
                    UserRecord(id: userId, clientId: client.id, userKey: "named-user-7", name: "N", email: "n7@example.org", phone: "+41795550107",
                               localAuthType: "none", createdAt: runtime.clock.now()),
                    in: sql
                )
                try await audit.append(AuditEvent("login.completed", actor: "system", clientId: client.id, userId: userId), in: sql)
            }
            let export = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--format", "jsonl"] + admin)
            #expect(export.status == 0, "\(export.output)")
            let lines = export.output.split(separator: "\n")
            let row = try #require(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            #expect(row["type"] as? String == "login.completed")
            #expect(row["clientKey"] as? String == clientKey)
            #expect(row["clientId"] as? String == client.id)
            #expect(row["userKey"] as? String == "named-user-7")
            #expect(row["userId"] as? String == userId)
            let verified = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(verified.status == 0 && verified.output.contains("audit log OK"), "\(verified.output)")
        }
    }
}
