import AsyncHTTPClient
import Crypto
import Foundation
import Testing
import TesseraTestSupport
import TesseraWebAuthn

#if canImport(Glibc)
import Glibc
#endif

/// `--app-attest-roots` on the `tessera` executable (issue 41): a node refuses to start on a file that is not PEM
/// certificates, naming it, and `tessera serve` passes its `appAttest.roots` to its embedded nodes.
@Suite("Node App Attest roots: the tessera executable")
struct NodeAppAttestProcessTests {
    #if os(Linux)
    @Test("tessera node --app-attest-roots: a missing or non-PEM file stops the node with a message naming it")
    func badRootsFile() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("node-roots-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let junk = base + "/junk.pem"
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: junk))
        let serverKey = P256.Signing.PrivateKey().publicKey.x963Representation.base64EncodedString()
        for roots in [junk, base + "/missing.pem"] {
            let run = try await ChildProcess.run(
                binary.path, ["node", "run", "--data-dir", base + "/node", "--port", "0", "--server-key", serverKey, "--app-attest-roots", roots],
                timeout: 60
            )
            #expect(run.status != 0)
            #expect(run.output.contains("--app-attest-roots") && run.output.contains(roots), "output: \(run.output)")
            #expect(!run.output.contains("ready "), "the node listened: \(run.output)")
        }
    }

    @Test("tessera serve --app-attest-roots: each embedded node is started with the same file, and starts")
    func servePassesRoots() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("serve-roots-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let roots = base + "/roots.pem"
        try Data(AppAttestRoot.pem.utf8).write(to: URL(fileURLWithPath: roots))
        let port = try NodeQuorumEndToEndTests.freePort()
        let server = try ChildProcess(
            binary.path, ["serve", "--port", "\(port)", "--data-dir", base + "/data", "--nodes-embedded", "2", "--app-attest-roots", roots],
            directory: base, stdout: .file(base + "/serve.log")
        )
        defer { server.signal(SIGKILL) }
        let up = await eventually {
            guard let response = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5)
            ) else { return false }
            return response.status == .ok
        }
        #expect(up, "tessera serve did not come up: \((try? String(contentsOfFile: base + "/serve.log", encoding: .utf8)) ?? "")")
        let children = ProcessMemory.children(of: server.pid)
        #expect(children.count == 2, "children: \(children)")
        for child in children {
            let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline"))
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let flag = try #require(arguments.firstIndex(of: "--app-attest-roots"), "node arguments: \(arguments)")
            #expect(arguments.indices.contains(flag + 1) && arguments[flag + 1] == roots)
        }
        server.signal(SIGTERM)
        await server.exited()
    }
    #endif
}
