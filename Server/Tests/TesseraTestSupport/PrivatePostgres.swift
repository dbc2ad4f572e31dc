import Foundation
import TesseraServer
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of one test's own, made by `.ci/postgres.sh` with its own data directory and a free
/// port, for a test that stops and starts it under load (the shared test server must stay up for the others).
public final class PrivatePostgres: Sendable {
    /// `postgres://postgres:secret@127.0.0.1:<port>/tessera_test`.
    public let url: String
    let dataDirectory: String
    let port: Int

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: ".ci/postgres.sh").path

    private init(dataDirectory: String, port: Int) {
        self.dataDirectory = dataDirectory
        self.port = port
        url = "postgres://postgres:secret@127.0.0.1:\(port)/tessera_test"
    }

    /// Makes and starts a fresh server (initdb, then start, as `scripts/test.sh` does for the shared one).
    public static func start() async throws -> PrivatePostgres {
        _ = try TestRequirements.postgresURL()  // PostgreSQL is installed where the shared test server runs
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-pg-\(UUID().uuidString)").path
        let server = PrivatePostgres(dataDirectory: directory, port: try freeLoopbackPort())
        try await server.run("start")
        return server
    }

    /// Stops the server (`pg_ctl stop -m fast`: sessions are ended, the data is kept).
    public func stop() async throws { try await run("stop") }

    /// Starts it again after ``stop()``.
    public func resume() async throws { try await run("resume") }

    /// Stops it and removes its data.
    public func remove() async {
        try? await run("stop")
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    private func run(_ verb: String) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PGDATA"] = dataDirectory
        environment["PGPORT"] = String(port)
        // Output to a file, not a pipe: the server that `start` leaves running would hold a pipe open, and a reader
        // waiting for its end would wait for ever.
        let log = dataDirectory + ".\(verb).log"
        let child = try ChildProcess("/bin/bash", [Self.script, verb], environment: environment, stdout: .file(log))
        let status = await ChildProcess.onOwnThread { child.waitUntilExit() }
        defer { try? FileManager.default.removeItem(atPath: log) }
        guard status == 0 else {
            throw ConfigurationError("\(Self.script) \(verb) failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }
}

/// A free loopback port, bound and released, for a server the test starts afterwards. It is drawn at random below
/// Linux's ephemeral range (32768–60999): a port the kernel handed out could be handed again to another test's
/// outgoing connection before the server binds it (seen in CI as "Address already in use").
public func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_768)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if bound == 0 { return port }
    }
    throw ConfigurationError("no free loopback port between 20000 and 32767 after 200 tries")
}
