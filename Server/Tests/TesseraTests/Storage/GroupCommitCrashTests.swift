import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import TesseraTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Group commit answers a write only after its batch's COMMIT: a `tessera serve` killed with
/// SIGKILL while 32 clients write at once has every write it acknowledged in its database when it
/// starts again.
@Suite("Group commit survives kill -9")
struct GroupCommitCrashTests {
    #if os(Linux)
    @Test("32 concurrent admin writes, SIGKILL mid-stream: every acknowledged client is there after a restart")
    func acknowledgedWritesSurviveKill() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("group-commit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dataDir = base + "/data", log = base + "/serve.log"

        let port = try NodeQuorumEndToEndTests.freePort()
        let server = try ChildProcess(
            binary.path, ["serve", "--port", "\(port)", "--data-dir", dataDir, "--nodes-embedded", "0"], directory: base, stdout: .file(log)
        )
        defer { server.signal(SIGKILL) }
        let token = await eventually { () -> String? in
            guard await Self.healthy(port), let text = try? String(contentsOfFile: log, encoding: .utf8) else { return nil }
            return text.firstMatch(of: /admin token:\s+(\S+)/).map { String($0.1) }
        }
        let adminToken = try #require(token, "tessera serve did not come up with an admin token")

        // 32 writers create clients until the server dies under them; the 40th acknowledgement kills it.
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<32 {
                group.addTask {
                    var round = 0
                    while true {
                        round += 1
                        guard let key = await Self.createClient(port: port, token: adminToken, name: "w\(writer)-\(round)") else { return }
                        if tally.acknowledge(key) == 40 { server.signal(SIGKILL) }
                    }
                }
            }
        }
        await server.exited()
        let keys = tally.keys
        #expect(keys.count >= 40)

        // Started again on the same data directory, the server lists every acknowledged client.
        let again = try NodeQuorumEndToEndTests.freePort()
        let restarted = try ChildProcess(
            binary.path, ["serve", "--port", "\(again)", "--data-dir", dataDir, "--nodes-embedded", "0"], directory: base, stdout: .file(log)
        )
        defer { restarted.signal(SIGKILL) }
        let up = await eventually { await Self.healthy(again) }
        #expect(up, "tessera serve did not start again on the killed server's data")
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(again)/v1/admin/clients")
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(response.status == .ok)
        let listing = String(buffer: try await response.body.collect(upTo: 64 << 20))
        let lost = keys.filter { !listing.contains("\"\($0)\"") }
        #expect(lost.isEmpty, "acknowledged but lost after kill -9: \(lost.count) of \(keys.count)")
    }

    /// The keys of the clients the server acknowledged.
    private final class Tally: Sendable {
        private let acknowledged = Mutex<[String]>([])
        var keys: [String] { acknowledged.withLock { $0 } }
        /// Records `key`; returns how many are recorded now.
        func acknowledge(_ key: String) -> Int { acknowledged.withLock { $0.append(key); return $0.count } }
    }

    /// Creates a client; its key if the server answered 201, nil once it does not answer.
    private static func createClient(port: Int, token: String, name: String) async -> String? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/admin/clients")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"name":"\#(name)","bundleIds":["com.example.crash"]}"#))
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(30)), response.status == .created,
              let body = try? await response.body.collect(upTo: 1 << 20)
        else { return nil }
        return String(buffer: body).firstMatch(of: /"clientKey"\s*:\s*"([^"]+)"/).map { String($0.1) }
    }

    private static func healthy(_ port: Int) async -> Bool {
        guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5))
        else { return false }
        return response.status == .ok
    }
    #endif
}
