import SQLKit

/// A versioned schema change. Statements use types both engines understand
/// (TEXT, INTEGER, BIGINT); times are BIGINT milliseconds since 1970.
public struct Migration: Sendable {
    /// The version, unique within one database.
    public let version: Int
    /// A name for the logs and `schema_migrations`.
    public let name: String
    /// The statements, run in order in one transaction.
    public let statements: [String]

    /// A migration with these members.
    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }

    /// Applies every migration not yet recorded, in version order, each in its own transaction.
    /// Idempotent: each version is applied once, recorded in `schema_migrations`; PostgreSQL takes an
    /// advisory lock so that several instances starting together do not race. Returns the versions applied now.
    @discardableResult
    public static func apply(_ migrations: [Migration], to database: any Database) async throws -> [Int] {
        let kind = database.kind
        // The bookkeeping table is created under the same lock as every migration: instances starting
        // together on an empty PostgreSQL database would otherwise race on CREATE TABLE IF NOT EXISTS
        // (which is not safe against itself there: a unique violation in pg_type). SQLite's
        // transactions take the database's write lock (BEGIN IMMEDIATE) for the same effect.
        try await database.transaction { sql in
            try await lock(kind, sql)
            try await sql.raw(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)"
            ).run()
        }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            let didApply = try await database.transaction { sql in
                try await lock(kind, sql)
                let existing = try await sql.raw(
                    "SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)"
                ).all()
                guard existing.isEmpty else { return false }
                for statement in migration.statements {
                    try await sql.raw(SQLQueryString(statement)).run()
                }
                try await sql.raw(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (\(bind: migration.version), \(bind: migration.name), \(bind: WallClock.nowMillis()))"
                ).run()
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    /// Serialises migrations across instances on PostgreSQL (released at the transaction's end).
    private static func lock(_ kind: DatabaseKind, _ sql: any SQLDatabase) async throws {
        if kind == .postgres { try await sql.raw("SELECT pg_advisory_xact_lock(7412001)").run() }
    }
}
