import Foundation
import Testing
import TesseraTestSupport

/// `scripts/check-table-ownership.sh`: each domain owns its tables. It passes on the tree, and fails
/// naming file, line and table when a file outside a domain names that domain's table in SQL, or when
/// a migration creates a table no domain owns.
struct TableOwnershipTests {
    /// The server package's root (this file is Server/Tests/TesseraServerTests/Storage/…).
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let script = package.deletingLastPathComponent().appendingPathComponent("scripts/check-table-ownership.sh")
    static let server = package.appendingPathComponent("Sources/TesseraServer")

    /// Runs the script on `sourceRoot`; returns its exit status and what it printed.
    static func check(_ sourceRoot: URL) throws -> (status: Int32, output: String) {
        try ChildProcess.runBlocking("/bin/bash", [script.path, sourceRoot.path])
    }

    /// A copy of the server's sources in a temporary directory, removed after `body`.
    static func withCopy(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-owners-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("TesseraServer")
        try FileManager.default.copyItem(at: server, to: copy)
        try body(copy)
    }

    static func append(_ text: String, to file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }

    @Test("the server's sources keep every table in its domain")
    func treePasses() throws {
        let result = try Self.check(Self.server)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test("a foreign table named in SQL fails, naming file, line and table", arguments: [
        "let probe: SQLQueryString = \"SELECT id FROM users WHERE id = 'x'\"",
        "let probe: SQLQueryString = \"UPDATE devices SET name = 'x'\"",
        "let probe = sql.update(\"devices\")",
    ])
    func foreignTableFails(line: String) throws {
        try Self.withCopy { copy in
            let file = copy.appendingPathComponent("Sessions/PasswordLoginService.swift")
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            try Self.append("\n// probe\n\(line)\n", to: file)
            let result = try Self.check(copy)
            #expect(result.status == 1)
            let table = line.contains("users") ? "users" : "devices"
            let owner = table == "users" ? "Users/" : "Devices/"
            #expect(result.output.contains("Sessions/PasswordLoginService.swift:\(lines + 2): table '\(table)' belongs to \(owner)"), "\(result.output)")
        }
    }

    @Test("a table a migration creates without an owning domain fails")
    func unownedTableFails() throws {
        try Self.withCopy { copy in
            try Self.append("\n// CREATE TABLE orphans (id TEXT)\n", to: copy.appendingPathComponent("Storage/Migrations.swift"))
            let result = try Self.check(copy)
            #expect(result.status == 1)
            #expect(result.output.contains("table 'orphans' has no owning domain"), "\(result.output)")
        }
    }

    @Test("the owner, comments and Storage/ may name a table")
    func ownerCommentsAndStoragePass() throws {
        try Self.withCopy { copy in
            try Self.append("\n// SELECT id FROM devices (a comment)\n", to: copy.appendingPathComponent("Sessions/SessionService.swift"))
            try Self.append("\nlet probe = \"SELECT id FROM users\"\n", to: copy.appendingPathComponent("Users/SignUpService.swift"))
            try Self.append("\nlet probe = \"SELECT id FROM users\"\n", to: copy.appendingPathComponent("Storage/RateCounters.swift"))
            let result = try Self.check(copy)
            #expect(result.status == 0, "\(result.output)")
        }
    }
}
