import Foundation
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// `tessera admin audit verify | export` as an operator runs them, against a running server on
/// SQLite and on PostgreSQL: an untouched log verifies; one row changed or deleted in the database,
/// or a checkpoint's signature replaced, fails and is named.
@Suite("CLI: tessera admin audit", .serialized)
struct AuditCLITests {
    /// The engines: SQLite and PostgreSQL (only `scripts/test.sh --quick` leaves PostgreSQL out).
    static var engines: [String] { TestRequirements.quick && TestPostgres.baseURL == nil ? ["sqlite"] : ["sqlite", "postgres"] }

    /// Serves a new deployment on `engine` while `body` runs.
    static func serve(_ engine: String, _ body: @escaping @Sendable (TesseraRuntime, [String]) async throws -> Void) async throws {
        guard engine == "postgres" else {
            try await TestDeployment.serveRuntime { runtime, admin, _ in try await body(runtime, admin) }
            return
        }
        let url = try await TestPostgres.freshURL(logger: LiveServer.logger)
        do {
            try await TestDeployment.serveRuntime(databaseURL: url) { runtime, admin, _ in try await body(runtime, admin) }
        } catch {
            await TestPostgres.drop(url, logger: LiveServer.logger)
            throw error
        }
        await TestPostgres.drop(url, logger: LiveServer.logger)
    }

    static func sql(_ runtime: TesseraRuntime, _ statement: SQLQueryString) async throws {
        try await runtime.database.withSQL { try await $0.raw(statement).run() }
    }

    @Test("verify passes on an untouched log, names a changed row, a deleted row and a forged checkpoint; export streams JSONL", arguments: engines)
    func verifyAndExport(engine: String) async throws {
        let tessera = try AdminCLITests.binary()
        try await Self.serve(engine) { runtime, admin in
            // Admin changes through the CLI (admin.client.*) and a few events appended directly.
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Audited", "--bundle-id", "com.example.audit"] + admin)
            #expect(created.status == 0, "\(created.output)")
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            #expect(try await DeviceCLITests.run(tessera, ["admin", "client", "disable", clientKey] + admin).status == 0)
            let audit = runtime.repositories.audit
            for index in 1...4 {
                try await runtime.database.transaction { sql in
                    try await audit.append(AuditEvent("test.event", actor: "system", userId: "usr_\(index)", details: ["n": String(index)]), in: sql)
                }
            }
            #expect(try await runtime.auditCheckpoints.checkpoint()?.seq == 6)

            let untouched = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(untouched.status == 0, "\(untouched.output)")
            #expect(untouched.output.contains("audit log OK: 6 rows, 1 signed checkpoints"), "\(untouched.output)")

            let export = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--format", "jsonl"] + admin)
            #expect(export.status == 0, "\(export.output)")
            let rows = try export.output.split(separator: "\n").map { try JSONDecoder().decode(AuditEntry.self, from: Data($0.utf8)) }
            #expect(rows.map(\.type) == ["admin.client.created", "admin.client.disabled", "test.event", "test.event", "test.event", "test.event"])
            #expect(rows[1].details.contains(clientKey))
            let fromThird = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--since", "3"] + admin)
            #expect(fromThird.output.split(separator: "\n").count == 4, "\(fromThird.output)")
            let future = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--since", "2100-01-01T00:00:00Z"] + admin)
            #expect(future.status == 0 && future.output.isEmpty, "\(future.output)")
            let badSince = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--since", "yesterday"] + admin)
            #expect(badSince.status == 2 && badSince.output.contains("--since"), "\(badSince.output)")
            let badFormat = try await DeviceCLITests.run(tessera, ["admin", "audit", "export", "--format", "csv"] + admin)
            #expect(badFormat.status == 2, "\(badFormat.output)")

            // One detail of row 4 changed in the database.
            try await Self.sql(runtime, "UPDATE audit_log SET details = '{\"n\":\"200\"}' WHERE seq = 4")
            let changed = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(changed.status == 1, "\(changed.output)")
            #expect(changed.output.contains("audit log FAILED: row 4:"), "\(changed.output)")
            try await Self.sql(runtime, "UPDATE audit_log SET details = '{\"n\":\"2\"}' WHERE seq = 4")
            #expect(try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin).status == 0, "restored, it verifies")

            // Row 2 deleted.
            let second = try #require(rows.first { $0.seq == 2 })
            try await Self.sql(runtime, "DELETE FROM audit_log WHERE seq = 2")
            let deleted = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(deleted.status == 1, "\(deleted.output)")
            #expect(deleted.output.contains("audit log FAILED: row 2: missing"), "\(deleted.output)")
            try await Self.sql(runtime, """
                INSERT INTO audit_log (seq, time, type, actor, details, prev_hash, hash)
                VALUES (2, \(bind: second.time), \(bind: second.type), \(bind: second.actor), \(bind: second.details), \(bind: second.prevHash), \(bind: second.hash))
                """)
            #expect(try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin).status == 0)

            // The checkpoint's signature replaced by one of another key.
            try await Self.sql(runtime, "UPDATE audit_checkpoints SET signature = \(bind: Data(repeating: 7, count: 64).base64EncodedString())")
            let forged = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(forged.status == 1, "\(forged.output)")
            #expect(forged.output.contains("checkpoint at row 6: bad signature"), "\(forged.output)")
        }
    }

    @Test("a log truncated together with its newest checkpoint and its head (undetectable from the database alone) is found with the checkpoints kept outside it (audit.checkpointFile); verify says how far the checkpoints vouch", arguments: engines)
    func truncationFoundWithKeptCheckpoints(engine: String) async throws {
        let tessera = try AdminCLITests.binary()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("checkpoints-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await Self.serve(engine) { runtime, admin in
            var checkpoints = runtime.auditCheckpoints
            checkpoints.file = file
            let audit = runtime.repositories.audit
            func append(_ count: Int) async throws {
                for index in 1...count {
                    try await runtime.database.transaction { sql in
                        try await audit.append(AuditEvent("test.event", actor: "system", userId: "usr_\(index)"), in: sql)
                    }
                }
            }
            try await append(3)
            #expect(try await checkpoints.checkpoint()?.seq == 3)
            try await append(3)
            #expect(try await checkpoints.checkpoint()?.seq == 6)
            try await append(2)
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2, "one kept line per checkpoint: \(lines)")

            let whole = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify", "--checkpoints", file] + admin)
            #expect(whole.status == 0, "\(whole.output)")
            #expect(whole.output.contains("2 signed checkpoints and 2 kept outside the database"), "\(whole.output)")
            #expect(whole.output.contains("rows 1–6; the 2 newer rows are not yet"), "\(whole.output)")

            // Rows 4–8 removed with the checkpoint at row 6, the head rewound to row 3: the database alone still verifies.
            let third = try await runtime.database.read { sql in try await audit.entries(AuditQuery(after: 2, limit: 1, named: false), in: sql) }
            let row3 = try #require(third.first)
            try await Self.sql(runtime, "DELETE FROM audit_log WHERE seq > 3")
            try await Self.sql(runtime, "DELETE FROM audit_checkpoints WHERE seq > 3")
            try await Self.sql(runtime, "UPDATE audit_head SET seq = 3, hash = \(bind: row3.hash) WHERE id = 1")
            let alone = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify"] + admin)
            #expect(alone.status == 0 && alone.output.contains("rows 1–3"), "the database alone cannot tell: \(alone.output)")
            let kept = try await DeviceCLITests.run(tessera, ["admin", "audit", "verify", "--checkpoints", file] + admin)
            #expect(kept.status == 1, "\(kept.output)")
            #expect(kept.output.contains("row 6: missing") && kept.output.contains("truncated"), "\(kept.output)")
        }
    }
}
