import Foundation
import Testing
import TesseraTestSupport
import TesseraServerTestSupport

/// `scripts/check-table-ownership.sh` (logic in `scripts/table_ownership.py`): each domain owns the
/// tables its folder creates. It passes on the tree; on a copy of `Server/Sources` with one foreign
/// write injected, in each form a review found the old lexical check missing, it fails naming the
/// file, the line and the table. The same script checks that SQL is written only in repositories,
/// migrations and the storage engine (`scripts/sql_placement.py`): SQL injected into a service,
/// controller, the node or the CLI fails naming the file and the line.
struct TableOwnershipTests {
    /// The server package's root (this file is Server/Tests/TesseraStorageTests/Storage/…).
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let script = package.deletingLastPathComponent().appendingPathComponent("scripts/check-table-ownership.sh")
    /// Every target's sources: the check scans them all.
    static let sources = package.appendingPathComponent("Sources")

    /// Runs the script on `sourceRoot`; returns its exit status and what it printed.
    static func check(_ sourceRoot: URL) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run("/bin/bash", [script.path, sourceRoot.path])
    }

    /// A copy of `Server/Sources` in a temporary directory, removed after `body`.
    static func withCopy(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-owners-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("Sources")
        try FileManager.default.copyItem(at: sources, to: copy)
        try await body(copy)
    }

    /// `path` inside the copy: as given when it starts with a target (`TesseraHTTPKit/…`), else inside
    /// the target that holds that domain folder (`Devices/…` is `TesseraAccounts/Devices/…` today), so the
    /// cases keep working when domains move between targets.
    static func resolve(_ path: String, in copy: URL) throws -> String {
        let first = String(path.prefix { $0 != "/" })
        let targets = try FileManager.default.contentsOfDirectory(atPath: copy.path).sorted()
        if targets.contains(first) { return path }
        for target in targets {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: copy.appendingPathComponent("\(target)/\(first)").path, isDirectory: &isDirectory),
               isDirectory.boolValue {
                return "\(target)/\(path)"
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }

    /// Appends `code` to `file` (after an empty line; a file that is gone, say renamed, is created)
    /// and returns the number of the first line of `code` that contains `needle`.
    static func inject(_ code: String, into file: URL, lineOf needle: String) throws -> Int {
        var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if !text.isEmpty {
            if !text.hasSuffix("\n") { text += "\n" }
            text += "\n"
        }
        let first = text.split(separator: "\n", omittingEmptySubsequences: false).count
        try (text + code).write(to: file, atomically: true, encoding: .utf8)
        let offset = try #require(code.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(needle) })
        return first + offset
    }

    /// Injects `code` into `path` (see ``resolve(_:in:)``); returns the resolved path and the line of `needle`.
    static func inject(_ code: String, into path: String, of copy: URL, lineOf needle: String) throws -> (path: String, line: Int) {
        let resolved = try resolve(path, in: copy)
        return (resolved, try inject(code, into: copy.appendingPathComponent(resolved), lineOf: needle))
    }

    /// A cross-domain reference injected into a real file of the copy.
    struct Injection: Sendable, CustomTestStringConvertible {
        /// What the form is (the test's name).
        var form: String
        /// The file it goes into: relative to `Sources/`, or to the target holding its domain folder.
        var file: String
        /// The code appended to the file.
        var code: String
        /// Text of the line the failure must name.
        var needle: String
        var table: String
        /// The owner's domain folder the failure must name (resolved like `file`).
        var owner: String
        /// More text the failure must hold.
        var says = ""

        var testDescription: String { form }
    }

    static let injections: [Injection] = [
        Injection(
            form: "a table name on the next line of a multi-line string", file: "Devices/DeviceRepository.swift",
            code: #"""
            extension SQLDeviceRepository {
                /// Revokes a device's sessions (Sessions/ owns them: a cross-domain write).
                func revokeSessions(deviceId: String, now: Int64, in sql: any SQLDatabase) async throws {
                    try await sql.raw(
                        """
                        UPDATE
                            sessions SET revoked_at = \(bind: now)
                        WHERE device_id = \(bind: deviceId)
                        """
                    ).run()
                }
            }
            """#,
            needle: "sessions SET", table: "sessions", owner: "Sessions", says: "(UPDATE here)"
        ),
        Injection(
            form: "a table name held in a constant", file: "Push/PushRepository.swift",
            code: #"""
            extension SQLPushRepository {
                static let sessionsTable = "sessions"

                func revokeSessions(userId: String, now: Int64, in sql: any SQLDatabase) async throws {
                    try await sql.update(Self.sessionsTable).set("revoked_at", to: now).where("user_id", .equal, userId).run()
                }
            }
            """#,
            needle: "sql.update(Self.sessionsTable)", table: "sessions", owner: "Sessions", says: "(.update(…) here)"
        ),
        Injection(
            form: "lowercase SQL", file: "Sessions/SessionService.swift",
            code: #"""
            extension SessionService {
                func renameDevice(_ id: String, to name: String, in sql: any SQLDatabase) async throws {
                    try await sql.raw("update devices set name = \(bind: name) where id = \(bind: id)").run()
                }
            }
            """#,
            needle: "update devices", table: "devices", owner: "Devices", says: "(UPDATE here)"
        ),
        Injection(
            form: "SQLIdentifier(\"sessions\")", file: "Webhooks/WebhookRepository.swift",
            code: #"""
            extension SQLWebhookRepository {
                func forgetSessions(userId: String, in sql: any SQLDatabase) async throws {
                    let table = SQLIdentifier("sessions")
                    try await sql.delete(from: table).where("user_id", .equal, userId).run()
                }
            }
            """#,
            needle: "SQLIdentifier(\"sessions\")", table: "sessions", owner: "Sessions", says: "(SQLIdentifier(…) here)"
        ),
        Injection(
            form: "\\(unsafeRaw: table)", file: "OIDC/OIDCRepository.swift",
            code: #"""
            extension SQLOIDCRepository {
                func revokeSessions(userId: String, now: Int64, in sql: any SQLDatabase) async throws {
                    let table = "sessions"
                    try await sql.raw("UPDATE \(unsafeRaw: table) SET revoked_at = \(bind: now) WHERE user_id = \(bind: userId)").run()
                }
            }
            """#,
            needle: "unsafeRaw: table", table: "sessions", owner: "Sessions", says: "(UPDATE here)"
        ),
        Injection(
            form: "a quoted identifier", file: "Clients/ClientRepository.swift",
            code: #"""
            extension SQLClientRepository {
                func renameUser(_ id: String, to name: String, in sql: any SQLDatabase) async throws {
                    try await sql.raw("UPDATE \"users\" SET name = \(bind: name) WHERE id = \(bind: id)").run()
                }
            }
            """#,
            needle: #"\"users\""#, table: "users", owner: "Users", says: "(UPDATE here)"
        ),
        Injection(
            form: "a write from Storage/", file: "Storage/RateCounters.swift",
            code: #"""
            extension RateCounters {
                func purgeSessions(before cutoff: Int64, in sql: any SQLDatabase) async throws {
                    try await sql.raw("DELETE FROM sessions WHERE expires_at < \(bind: cutoff)").run()
                }
            }
            """#,
            needle: "DELETE FROM sessions", table: "sessions", owner: "Sessions", says: "(DELETE FROM here)"
        ),
        Injection(
            form: "a write where a named join allows only a read", file: "Sessions/SessionRepository.swift",
            code: #"""
            extension SQLSessionRepository {
                func touchUser(_ id: String, now: Int64, in sql: any SQLDatabase) async throws {
                    try await sql.raw("UPDATE users SET agreed_at = \(bind: now) WHERE id = \(bind: id)").run()
                }
            }
            """#,
            needle: "UPDATE users", table: "users", owner: "Users", says: "this file may only read it (NAMED_JOINS)"
        ),
        Injection(
            form: "a write from TesseraHTTPKit", file: "TesseraHTTPKit/SignedRequestVerifier.swift",
            code: #"""
            extension SignedRequestVerifier {
                func forgetDevice(_ id: String) async throws {
                    try await database.withSQL { sql in try await sql.raw("DELETE FROM devices WHERE id = \(bind: id)").run() }
                }
            }
            """#,
            needle: "DELETE FROM devices", table: "devices", owner: "Devices", says: "(DELETE FROM here)"
        ),
        Injection(
            form: "a write from TesseraNode", file: "TesseraNode/NodeService.swift",
            code: #"""
            extension NodeService {
                func mirror(deviceId: String, status: String, in sql: any SQLDatabase) async throws {
                    try await sql.raw("INSERT INTO devices (id, status) VALUES (\(bind: deviceId), \(bind: status))").run()
                }
            }
            """#,
            needle: "INSERT INTO devices", table: "devices", owner: "Devices", says: "(INSERT INTO here)"
        ),
        Injection(
            form: "a write from TesseraBench", file: "TesseraBench/TOTPBenchUsers.swift",
            code: #"""
            extension TOTPBenchUsers {
                static func expireSessions(in sql: any SQLDatabase) async throws {
                    try await sql.raw("UPDATE sessions SET expires_at = 0 WHERE user_id LIKE 'usr_bench_%'").run()
                }
            }
            """#,
            needle: "UPDATE sessions", table: "sessions", owner: "Sessions", says: "(UPDATE here)"
        ),
        // The forms the first version of the check caught already.
        Injection(
            form: "a plain read", file: "Sessions/PasswordLoginService.swift",
            code: "let probe: SQLQueryString = \"SELECT id FROM users WHERE id = 'x'\"\n",
            needle: "SELECT id FROM users", table: "users", owner: "Users", says: "(FROM here)"
        ),
        Injection(
            form: "a plain write", file: "Sessions/PasswordLoginService.swift",
            code: "let probe: SQLQueryString = \"UPDATE devices SET name = 'x'\"\n",
            needle: "UPDATE devices", table: "devices", owner: "Devices", says: "(UPDATE here)"
        ),
        Injection(
            form: "a builder write", file: "Sessions/PasswordLoginService.swift",
            code: "func probe(_ sql: any SQLDatabase) -> SQLUpdateBuilder { sql.update(\"devices\") }\n",
            needle: "sql.update", table: "devices", owner: "Devices", says: "(.update(…) here)"
        ),
    ]

    @Test("the sources keep every table in its domain")
    func treePasses() async throws {
        let result = try await Self.check(Self.sources)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("a cross-domain reference fails, naming file, line and table", arguments: injections)
    func injectionFails(_ injection: Injection) async throws {
        try await Self.withCopy { copy in
            let (file, line) = try Self.inject(injection.code, into: injection.file, of: copy, lineOf: injection.needle)
            let owner = try Self.resolve(injection.owner, in: copy)
            let result = try await Self.check(copy)
            #expect(result.status == 1, "\(result.output)")
            let failure = "\(file):\(line): table '\(injection.table)' belongs to \(owner)/ "
            let reported = result.output.split(separator: "\n").filter { $0.contains(failure) }
            #expect(reported.count == 1, "expected one \(failure) in:\n\(result.output)")
            #expect(reported.first?.contains(injection.says) == true, "expected \(injection.says) in:\n\(result.output)")
        }
    }

    @Test("a table two domains create fails in both places")
    func tableCreatedTwiceFails() async throws {
        try await Self.withCopy { copy in
            let (file, line) = try Self.inject(
                """
                extension WebhooksMigrations {
                    static let sessionsCopy = MigrationPart(version: 13, statements: ["CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY)"])
                }
                """,
                into: "Webhooks/WebhooksMigrations.swift", of: copy, lineOf: "CREATE TABLE"
            )
            let (sessions, webhooks) = (try Self.resolve("Sessions", in: copy), try Self.resolve("Webhooks", in: copy))
            let result = try await Self.check(copy)
            #expect(result.status == 1)
            #expect(result.output.contains(
                "\(file):\(line): table 'sessions' is created by 2 domains (\([sessions, webhooks].sorted().map { $0 + "/" }.joined(separator: ", ")))"
            ), "\(result.output)")
        }
    }

    @Test("a new table belongs to the folder whose migration creates it")
    func newTableOwnedByItsFolder() async throws {
        try await Self.withCopy { copy in
            _ = try Self.inject(
                """
                extension WebhooksMigrations {
                    static let archive = MigrationPart(version: 13, statements: ["CREATE TABLE webhook_archive (id TEXT PRIMARY KEY)"])
                }
                """,
                into: "Webhooks/WebhooksMigrations.swift", of: copy, lineOf: "CREATE TABLE"
            )
            let (ownerFile, _) = try Self.inject(
                "let ownerReads: SQLQueryString = \"SELECT id FROM webhook_archive\"\n",
                into: "Webhooks/WebhookRepository.swift", of: copy, lineOf: "webhook_archive"
            )
            let (file, line) = try Self.inject(
                "let probe: SQLQueryString = \"SELECT id FROM webhook_archive\"\n",
                into: "Users/SignUpService.swift", of: copy, lineOf: "webhook_archive"
            )
            let owner = try Self.resolve("Webhooks", in: copy)
            let result = try await Self.check(copy)
            #expect(result.status == 1)
            #expect(result.output.contains("\(file):\(line): table 'webhook_archive' belongs to \(owner)/ (FROM here)"), "\(result.output)")
            #expect(!result.output.contains(ownerFile), "\(result.output)")
        }
    }

    @Test("the owner's repository, comments, a named join's read and Storage/'s own table pass")
    func allowedReferencesPass() async throws {
        try await Self.withCopy { copy in
            _ = try Self.inject(
                "// UPDATE devices SET name = 'x' (a comment)\n/* DELETE FROM users */\n",
                into: "Sessions/SessionService.swift", of: copy, lineOf: "UPDATE"
            )
            _ = try Self.inject("let probe = \"update users set name = 'x'\"\n", into: "Users/UserRepository.swift", of: copy, lineOf: "users")
            _ = try Self.inject(
                "let probe: SQLQueryString = \"SELECT u.id FROM sessions s JOIN users u ON u.id = s.user_id\"\n",
                into: "Sessions/SessionRepository.swift", of: copy, lineOf: "users"
            )
            _ = try Self.inject("let probe = \"DELETE FROM rate_counters\"\n", into: "Storage/RateCounters.swift", of: copy, lineOf: "rate_counters")
            let result = try await Self.check(copy)
            #expect(result.status == 0, "\(result.output)")
        }
    }

    @Test("an allowance no longer needed is reported")
    func unneededAllowanceReported() async throws {
        try await Self.withCopy { copy in
            // The session lookups' joins of users and devices (NAMED_JOINS) go with their file.
            let file = try Self.resolve("Sessions/SessionRepository.swift", in: copy)
            try FileManager.default.removeItem(at: copy.appendingPathComponent(file))
            let result = try await Self.check(copy)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("note: NAMED_JOINS entry \(file) / users is no longer needed"), "\(result.output)")
        }
    }

    /// SQL written outside a repository, the migrations and the storage engine.
    struct Misplaced: Sendable, CustomTestStringConvertible {
        var form: String
        /// The file it goes into (see ``resolve(_:in:)``).
        var file: String
        var code: String
        /// Text of the line the failure must name.
        var needle: String
        /// What the failure says the line holds.
        var says: String

        var testDescription: String { form }
    }

    static let misplaced: [Misplaced] = [
        Misplaced(
            form: "sql.raw(\"SELECT 1\") in a service", file: "Sessions/SessionService.swift",
            code: """
            extension SessionService {
                func ping(in sql: any SQLDatabase) async throws {
                    try await sql.raw("SELECT 1").run()
                }
            }
            """,
            needle: "sql.raw(\"SELECT 1\")", says: "(.raw(…) here)"
        ),
        Misplaced(
            form: "a builder on the domain's own table, in a controller", file: "Users/UserController.swift",
            code: "func probe(_ sql: any SQLDatabase) -> SQLUpdateBuilder { sql.update(\"users\") }\n",
            needle: "sql.update", says: "(.update(…) here)"
        ),
        Misplaced(
            form: "lowercase SQL in a multi-line constant", file: "Devices/DeviceRegistrationService.swift",
            code: #"""
            extension DeviceRegistrationService {
                static let probe = """
                    select id from devices
                    where status = 'active'
                    """
            }
            """#,
            needle: "select id from devices", says: "(SELECT … FROM here)"
        ),
        Misplaced(
            form: "the verifier node's table outside its repository", file: "TesseraNode/NodeService.swift",
            code: "extension NodeService { static let forget = \"DELETE FROM node_devices WHERE device_id = ?\" }\n",
            needle: "DELETE FROM node_devices", says: "(DELETE FROM here)"
        ),
        Misplaced(
            form: "a statement in a CLI command", file: "TesseraCLI/ServeCommand.swift",
            code: "let probe = \"PRAGMA journal_mode=WAL\"\n",
            needle: "PRAGMA", says: "(a statement here)"
        ),
    ]

    @Test("SQL outside a repository fails, naming file and line", arguments: misplaced)
    func misplacedSQLFails(_ injection: Misplaced) async throws {
        try await Self.withCopy { copy in
            let (file, line) = try Self.inject(injection.code, into: injection.file, of: copy, lineOf: injection.needle)
            let result = try await Self.check(copy)
            #expect(result.status == 1, "\(result.output)")
            let failure = "\(file):\(line): SQL outside a repository \(injection.says)"
            let reported = result.output.split(separator: "\n").filter { $0.contains("SQL outside a repository") }
            #expect(reported.count == 1 && reported.first?.contains(failure) == true, "expected only \(failure) in:\n\(result.output)")
        }
    }

    @Test("SQL in a repository extension, migrations, the storage engine, and HTTP methods in a service pass")
    func placedSQLPasses() async throws {
        try await Self.withCopy { copy in
            _ = try Self.inject(
                "extension SQLUserRepository { static let probe = \"SELECT id FROM users\" }\n",
                into: "Users/UserRepository+Probe.swift", of: copy, lineOf: "SELECT"
            )
            _ = try Self.inject("let probe = \"ALTER TABLE users ADD COLUMN x TEXT\"\n", into: "Users/UsersMigrations.swift", of: copy, lineOf: "ALTER")
            _ = try Self.inject("let probe = \"DELETE FROM request_nonces\"\n", into: "TesseraHTTPKit/SQLiteDatabase.swift", of: copy, lineOf: "DELETE")
            _ = try Self.inject("let probe = \"UPDATE rate_counters SET n = 0\"\n", into: "Storage/RateCounters.swift", of: copy, lineOf: "UPDATE")
            _ = try Self.inject(
                "let probe = [\"DELETE sessions/{sessionId}\": \"admin.session.revoked\"]\n",
                into: "Sessions/SessionService.swift", of: copy, lineOf: "DELETE"
            )
            let result = try await Self.check(copy)
            #expect(result.status == 0, "\(result.output)")
        }
    }
}
