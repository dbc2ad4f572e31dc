import AsyncHTTPClient
import Foundation
import Testing
import TesseraTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The zero-config deployment as `tessera serve` runs it: the embedded verifier nodes are child
/// processes with their keys outside the server's data directory, the server's memory never holds
/// a node's private key, and the nodes die with the server even when it is killed.
@Suite("Embedded nodes are child processes")
struct EmbeddedNodeProcessTests {
    #if os(Linux)
    @Test("zero config: no node key in the server's data directory or memory; the nodes hold theirs, and die with a killed server")
    func serverHoldsNoNodeKey() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("zero-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let dataDir = base + "/data"
        let port = try NodeQuorumEndToEndTests.freePort()
        // The server's output (its nodes' too: they write to its standard error) goes to a file, which a failed
        // memory read shows.
        let output = base + "/serve.log"
        let server = try ChildProcess(binary.path, ["serve", "--port", "\(port)", "--data-dir", dataDir], directory: base, stdout: .file(output))
        let pid = server.pid
        defer { server.signal(SIGKILL) }
        func memory(of process: Int32, holding needles: [Data]) throws -> [Data] {
            do {
                return try ProcessMemory.find(needles, in: process)
            } catch {
                let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                Issue.record("""
                    reading the memory of \(process == pid ? "the server" : "node process") \(process) failed: \(error); \
                    still running: \(ProcessMemory.isAlive(process)); the server's output ends with:
                    \(log.suffix(3000))
                    """)
                throw error
            }
        }

        let up = await eventually {
            guard let response = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5)
            ) else { return false }
            return response.status == .ok
        }
        #expect(up, "tessera serve did not come up")

        // The keys are in the sibling directory, none under the data directory.
        let keyFiles = (1...3).map { "\(dataDir)-nodes/embedded-\($0)/node.key" }
        let keys = try keyFiles.map { path in
            let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return (raw: try #require(Data(base64Encoded: text)), base64: Data(text.utf8))
        }
        let underData = FileManager.default.enumerator(atPath: dataDir)?.compactMap { $0 as? String }.filter { $0.hasSuffix("node.key") }
        #expect(underData == [], "node keys under the data directory: \(underData ?? [])")

        // The server's memory holds none of them, raw or base64.
        let needles = keys.flatMap { [$0.raw, $0.base64] }
        #expect(try memory(of: pid, holding: needles).isEmpty, "the server process holds a node private key")

        // Each node, a child of the server, holds its own (which shows the scan finds a key where one is).
        let children = ProcessMemory.children(of: pid)
        #expect(children.count == 3, "children: \(children)")
        var held = 0
        for child in children { held += try memory(of: child, holding: keys.map(\.raw)).count }
        #expect(held == 3)

        // Killed without a chance to stop them, the server still takes its nodes down (their stdin ends).
        server.signal(SIGKILL)
        await server.exited()
        let gone = await eventually { children.allSatisfy { !ProcessMemory.isAlive($0) } }
        #expect(gone, "embedded nodes outlived a killed server: \(children.filter(ProcessMemory.isAlive))")
    }
    #endif
}

#if os(Linux)
/// Reads another process's memory through `/proc` (a parent may read its children's).
enum ProcessMemory {
    /// The needles found anywhere in the readable memory of `pid`.
    static func find(_ needles: [Data], in pid: Int32) throws -> [Data] {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let fd = open("/proc/\(pid)/mem", O_RDONLY)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        var found: [Data] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0] else { continue }
            var region = Data(count: Int(bounds[1] - bounds[0]))
            let read = region.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(Int64(bitPattern: bounds[0]))) }
            guard read > 0 else { continue }
            region = region.prefix(read)
            for needle in needles where !found.contains(needle) && region.range(of: needle) != nil { found.append(needle) }
        }
        return found
    }

    /// The live processes whose parent is `pid`.
    static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { candidate in
            guard let stat = status(candidate) else { return false }
            return stat.parent == pid && stat.state != "Z"
        }
    }

    /// Running (not gone, not a zombie).
    static func isAlive(_ pid: Int32) -> Bool { status(pid).map { $0.state != "Z" && $0.state != "X" } ?? false }

    /// State and parent from `/proc/<pid>/stat` (the fields after the parenthesised command name).
    static func status(_ pid: Int32) -> (state: Character, parent: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 2, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
        return (state, parent)
    }
}
#endif
