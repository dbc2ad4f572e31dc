import Foundation
import TesseraTestSupport

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux)
/// Two `tessera serve` processes ("a" and "b") on one PostgreSQL database, with one master key and admin token, each
/// with its data directory under `base` and its log in `base/<name>.log`: what the `kill -9` tests start.
final class ServePair: Sendable {
    /// An instance that did not answer `/healthz`, with its log.
    struct NotStarted: Error, CustomStringConvertible {
        var description: String
    }

    let a: ChildProcess
    let b: ChildProcess
    let portA: Int
    let portB: Int
    /// The admin token both instances take.
    let admin: String
    /// The directory of both instances' data and logs (removed by ``stop()``).
    let base: String

    /// Starts both (with `arguments` added to `serve`'s) and waits until each answers `/healthz`.
    init(binary: URL, databaseURL: String, label: String, arguments: [String]) async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let master = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let admin = "tat_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        self.admin = admin
        let base = self.base
        func start(_ name: String) throws -> (ChildProcess, Int) {
            let port = try freeLoopbackPort()
            let process = try ChildProcess(binary.path, [
                "serve", "--port", "\(port)", "--data-dir", base + "/" + name, "--nodes-embedded", "0", "--database-url", databaseURL,
                "--master-key", master, "--admin-token", admin,
            ] + arguments, directory: base, stdout: .file(base + "/\(name).log"))
            return (process, port)
        }
        (a, portA) = try start("a")
        (b, portB) = try start("b")
        for (port, name) in [(portA, "a"), (portB, "b")] {
            let up = await eventually { await CIBAPingKillTests.call(port, "GET", "/healthz") != nil }
            guard up else {
                stop()
                throw NotStarted(description: "tessera serve (\(name)) did not start: \(log(name))")
            }
        }
    }

    /// What instance `name` ("a" or "b") printed.
    func log(_ name: String) -> String { (try? String(contentsOfFile: base + "/\(name).log", encoding: .utf8)) ?? "" }

    /// Kills both (SIGKILL) and removes their directory.
    func stop() {
        a.signal(SIGKILL)
        b.signal(SIGKILL)
        try? FileManager.default.removeItem(atPath: base)
    }
}
#endif
