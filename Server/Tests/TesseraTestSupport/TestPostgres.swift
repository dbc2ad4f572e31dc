import Foundation
import Logging
import SQLKit
import TesseraServer

/// Fresh PostgreSQL databases on the test server named by `TESSERA_TEST_DATABASE_URL`
/// (`scripts/test.sh` starts a throw-away server and sets it), for both test targets.
public enum TestPostgres {
    /// The test server's URL, or nil when it is not set (a test that needs it then fails, see ``TestRequirements``).
    public static let baseURL = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"]

    /// The URL of a new, empty database on the test server.
    public static func freshURL(logger: Logger) async throws -> String {
        let url = try TestRequirements.postgresURL()
        guard var components = URLComponents(string: url) else {
            throw ConfigurationError("TESSERA_TEST_DATABASE_URL is not a URL: \(url)")
        }
        let name = "tessera_t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try await PostgresDatabase.open(url: url, logger: logger)
        try await admin.withSQL { sql in try await sql.raw("CREATE DATABASE \(unsafeRaw: name)").run() }
        await admin.close()
        components.path = "/" + name
        print("[postgres] test database \(name)")
        guard let fresh = components.string else { throw ConfigurationError("cannot build a URL for \(name)") }
        return fresh
    }

    /// Removes a database made by ``freshURL(logger:)`` (closing what still uses it). A failure is
    /// printed, never thrown: `.ci/run` counts what is left and fails then.
    public static func drop(_ url: String, logger: Logger) async {
        guard let base = baseURL, let name = URLComponents(string: url)?.path.dropFirst(), name.hasPrefix("tessera_t_") else { return }
        do {
            let admin = try await PostgresDatabase.open(url: base, logger: logger)
            try? await admin.withSQL { sql in try await sql.raw("DROP DATABASE IF EXISTS \(unsafeRaw: String(name)) WITH (FORCE)").run() }
            await admin.close()
        } catch {
            print("[postgres] could not drop \(name): \(error)")
        }
    }
}
