import Testing
import TesseraHTTPKit
@testable import TesseraServer
import TesseraServerTestSupport

/// `Migrator.all`, the registry that orders every domain's migration parts into the schema versions.
/// A released version must never change: databases have applied it and will not apply it again.
struct MigrationRegistryTests {
    /// A fingerprint of a version's name and statements (64-bit FNV-1a over their UTF-8 bytes, each
    /// followed by a 0 byte): any edit to a statement, its order or the name changes it.
    static func fingerprint(_ migration: Migration) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for text in [migration.name] + migration.statements {
            for byte in Array(text.utf8) + [0] {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    /// The released versions as databases applied them (issue 36 computed these from the single
    /// list that preceded the per-domain files, and checked the registry equal to it statement by statement).
    static let released: [Int: (statements: Int, fingerprint: String)] = [
        1: (11, "acad67e947398825"),
        2: (2, "b0657f741582600f"),
        3: (4, "5df8588f7c27d95e"),
        4: (10, "ac703ba7ff511862"),
        5: (15, "1e32c3c1728e6069"),
        6: (2, "570e2ff00ad12685"),
        7: (3, "c87e75de10a3dc00"),
        8: (6, "22093276d2f376a4"),
        9: (3, "86af92062149fd0"),
        10: (2, "382dbc049ce9e7d2"),
        11: (6, "170d7ed109977f81"),
        12: (5, "2d2d89a32a9f2751"),
    ]

    @Test("the released versions are unchanged: same names, statements and order")
    func releasedVersionsUnchanged() {
        for migration in Migrator.all {
            guard let pinned = Self.released[migration.version] else { continue }
            #expect(migration.statements.count == pinned.statements, "version \(migration.version)")
            #expect(Self.fingerprint(migration) == pinned.fingerprint, "version \(migration.version) changed: add a new version instead")
        }
        #expect(Set(Self.released.keys).isSubset(of: Set(Migrator.all.map(\.version))), "a released version is missing")
    }

    @Test("the registry migrates an empty SQLite database: every table it creates is there, a second run applies nothing")
    func migratesEmptySQLite() async throws {
        let database = try await SQLiteDatabase.open(path: nil, logger: TestDatabase.logger)
        let applied = try await Migrator.migrate(database)
        let again = try await Migrator.migrate(database)
        let tables = try await database.withSQL { sql in
            try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all().map { try $0.decode(column: "name", as: String.self) }
        }
        await database.close()
        #expect(applied == Migrator.all.map(\.version))
        #expect(again.isEmpty)
        let created = Migrator.all.flatMap(\.statements).compactMap { statement -> String? in
            let words = statement.split(whereSeparator: \.isWhitespace)
            guard words.count > 2, words[0] == "CREATE", words[1] == "TABLE" else { return nil }
            return String(words[2].prefix { $0 != "(" })
        }
        #expect(created.count > 30 && Set(created).count == created.count)
        #expect(Set(created).subtracting(tables).isEmpty, "missing: \(Set(created).subtracting(tables).sorted())")
    }

    @Test("versions are unique and ascending")
    func versionsAscend() {
        let versions = Migrator.all.map(\.version)
        #expect(versions == versions.sorted())
        #expect(Set(versions).count == versions.count)
    }
}
