import SQLKit

extension Database {
    /// Asks the database for the smallest answer there is (`SELECT 1`): throws when it cannot
    /// answer (`/readyz`).
    package func ping() async throws {
        try await withSQL { sql in try await sql.raw("SELECT 1").run() }
    }
}
