import Foundation
import Synchronization
import Testing

/// What a test needs from outside Swift: the Python of `TESSERA_TEST_PYTHON` with PyPI tools in it,
/// Debian's programs (oathtool, curl, openssl, Chromium), a PostgreSQL server.
///
/// `scripts/test.sh` sets every one of them up before it runs the tests. A test that finds one
/// missing fails with an error naming it, so a run without it never counts as passed. Only under
/// `scripts/test.sh --quick` (which sets `TESSERA_TEST_QUICK=1` and sets nothing up) is such a test
/// skipped instead, reported as skipped with the same reason.
public enum TestRequirements {
    /// Whether this is a `scripts/test.sh --quick` run (`TESSERA_TEST_QUICK=1`).
    public static let quick = ProcessInfo.processInfo.environment["TESSERA_TEST_QUICK"] == "1"

    /// A requirement that is not met.
    public struct Missing: Error, CustomStringConvertible {
        /// What is missing and what needs it.
        public var description: String
    }

    /// Ends the current test: skipped in a quick run, failed (by throwing ``Missing``) in any other.
    public static func missing(_ what: String) throws -> Never {
        #if compiler(>=6.3)
        if quick { try Test.cancel("skipped in --quick: missing \(what) (scripts/test.sh sets it up)") }
        #endif
        throw Missing(description: "missing \(what): scripts/test.sh sets it up (scripts/test.sh --quick skips what needs it)")
    }

    /// The Python named by `TESSERA_TEST_PYTHON`, after checking that it imports `modules`.
    public static func python(importing modules: [String], for purpose: String) throws -> String {
        guard let python = ProcessInfo.processInfo.environment["TESSERA_TEST_PYTHON"], !python.isEmpty else {
            try missing("TESSERA_TEST_PYTHON (a Python with \(modules.joined(separator: ", ")), for \(purpose))")
        }
        guard FileManager.default.isExecutableFile(atPath: python) else {
            try missing("the Python TESSERA_TEST_PYTHON names (\(python)), for \(purpose)")
        }
        if !modules.isEmpty {
            let importable = Self.importable.withLock { $0[python + ":" + modules.joined(separator: ",")] }
            let ok: Bool
            if let importable {
                ok = importable
            } else {
                let status = (try? ChildProcess.runBlocking(python, ["-c", "import " + modules.joined(separator: ", ")]).status) ?? -1
                ok = status == 0
                Self.importable.withLock { $0[python + ":" + modules.joined(separator: ",")] = ok }
            }
            if !ok {
                try missing("\(modules.joined(separator: ", ")) in \(python), for \(purpose)")
            }
        }
        return python
    }

    /// The path of an executable program (an absolute path, or a name looked up on `PATH`).
    public static func program(_ name: String, for purpose: String, debianPackage: String? = nil) throws -> String {
        if let found = lookUp(name) { return found }
        let package = debianPackage.map { " (Debian package \($0))" } ?? ""
        try missing("\(name)\(package), for \(purpose)")
    }

    /// Headless Chromium, its driver and Selenium in `TESSERA_TEST_PYTHON` (plus `modules`): that Python.
    public static func browser(importing modules: [String] = [], for purpose: String) throws -> String {
        _ = try program("/usr/bin/chromium", for: purpose, debianPackage: "chromium")
        _ = try program("/usr/bin/chromedriver", for: purpose, debianPackage: "chromium-driver")
        return try python(importing: ["selenium"] + modules, for: purpose)
    }

    /// The PostgreSQL server URL of `TESSERA_TEST_DATABASE_URL`.
    public static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_DATABASE_URL"], !url.isEmpty else {
            try missing("TESSERA_TEST_DATABASE_URL (a PostgreSQL server to create test databases on)")
        }
        return url
    }

    private static let importable = Mutex<[String: Bool]>([:])

    private static func lookUp(_ name: String) -> String? {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
