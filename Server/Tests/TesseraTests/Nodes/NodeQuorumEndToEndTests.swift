import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import TesseraTestSupport
import Tessera
import TesseraCore
@testable import TesseraServer
#if canImport(Glibc)
import Glibc
#endif

/// The node-quorum flow with three real `tessera node` processes: receipts at enrolment, a login
/// whose progress arrives as it happens (SDK stream and `curl -N`), the result token checked by PyJWT
/// through the JWKS, the history, and failing closed when nodes die or hang.
@Suite("End to end: node quorum", .serialized)
struct NodeQuorumEndToEndTests {
    static let bundle = "com.example.quorum"

    /// A free loopback port (bound, read, released).
    static func freePort() throws -> Int { try freeLoopbackPort() }

    /// A `tessera node` process.
    final class NodeProcess: Sendable {
        let process: ChildProcess
        let port: Int
        let directory: String
        var url: String { "http://127.0.0.1:\(port)" }

        init(binary: URL, serverKey: String) throws {
            port = try NodeQuorumEndToEndTests.freePort()
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-\(UUID().uuidString)").path
            process = try ChildProcess(
                binary.path, ["node", "--data-dir", directory, "--port", "\(port)", "--server-key", serverKey, "--log-level", "warning"]
            )
        }

        func waitUntilUp() async throws -> NodeInfo {
            let url = url
            let info: NodeInfo? = await eventually {
                guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url + "/healthz"), timeout: .seconds(5)),
                      response.status == .ok, let body = try? await response.body.collect(upTo: 1 << 16)
                else { return nil }
                return try? JSONDecoder().decode(NodeInfo.self, from: Data(body.readableBytesView))
            }
            guard let info else { throw ConfigurationError("node on \(port) did not start") }
            return info
        }

        func signal(_ value: Int32) { process.signal(value) }

        func stop() {
            signal(SIGCONT)
            signal(SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Collects a streamed command's output while it runs.
    final class Output: Sendable {
        private let data = Mutex(Data())
        func append(_ chunk: Data) { data.withLock { $0.append(chunk) } }
        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

        func wait(for needle: String) async -> Bool {
            await eventually { self.text.contains(needle) }
        }
    }

    @Test("three node processes: receipts, live progress, PyJWT-verified token, history; one node down still works, two fail closed")
    func quorum() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle, configure: {
            $0.embeddedNodes = 0
            // Long enough for a live node on a busy machine; the hung node's step waits it out once.
            $0.nodeTimeout = .seconds(10)
        }) { runtime, client, url in
            let serverKey = runtime.nodeAdmin.serverKey
            let nodes = try (0..<3).map { _ in try NodeProcess(binary: binary, serverKey: serverKey) }
            defer { nodes.forEach { $0.stop() } }
            for node in nodes {
                let info = try await node.waitUntilUp()
                _ = try await runtime.nodeAdmin.add(url: node.url, publicKey: info.publicKey, name: nil)
            }

            // Enrolment: every node stores the keys and returns a signed receipt.
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "quinn", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            let receipts = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT node_id FROM node_receipts WHERE device_id = \(bind: deviceId) AND status = 'active'").all()
            }
            #expect(receipts.count == 3)
            for node in nodes { #expect(try await node.waitUntilUp().devices == 1) }

            // A login, followed by the SDK stream and by curl -N at the same time.
            let channel = try await tessera.openAuthChannel()
            var curl: ChildProcess?
            let curlOutput = Output()
            let curlPath = try TestRequirements.program("curl", for: "following the progress stream with curl -N", debianPackage: "curl")
            do {
                let started = try ChildProcess(curlPath, ["-sN", url.absoluteString + channel.eventsPath], stdout: .pipe, stderr: .null)
                curl = started
                Thread {
                    while true {
                        let chunk = ChildProcess.readSome(started.output!)
                        if chunk.isEmpty { break }
                        curlOutput.append(chunk)
                    }
                }.start()
                // The event that already happened is replayed; the next ones have not happened yet.
                #expect(await curlOutput.wait(for: "CreateChannel"))
                #expect(!curlOutput.text.contains("SelectNodes"))
            }
            let progress = Task { await Array(tessera.authProgress(channelId: channel.channelId)) }
            let session = try await tessera.requestAuthRequest(channel: channel)
            #expect(session.nodes.count == 2)
            do {
                #expect(await curlOutput.wait(for: "CompleteVerificationOfNodes"))
                #expect(!curlOutput.text.contains("\"outcome\""), "the outcome must not precede the result call")
            }
            let token = try await tessera.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913")
            #expect(await progress.value == AuthStatus.allCases)
            do {
                #expect(await curlOutput.wait(for: "\"outcome\":\"completed\""))
                await curl?.exited()  // the stream ends after the outcome
                let order = ["CreateChannel", "SelectNodes", "StartVerificationOfNodes", "CompleteVerificationOfNodes", "completed"]
                let positions = order.compactMap { curlOutput.text.range(of: $0)?.lowerBound }
                #expect(positions.count == order.count && positions == positions.sorted(), "\(curlOutput.text)")
            }

            // The token, checked by a third-party library with the keys from the JWKS.
            do {
                let python = try TestRequirements.python(importing: ["jwt", "cryptography"], for: "checking the result token with PyJWT")
                let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/jwt_verify.py").path
                let result = try await DeviceCLITests.run(URL(fileURLWithPath: python), [
                    fixture, url.absoluteString + "/.well-known/jwks.json", client.clientKey, runtime.tokens.issuer, token,
                ])
                #expect(result.status == 0, "\(result.output)")
                #expect(result.output.contains("\"sub\": \"quinn\"") && result.output.contains("\"alg\": \"ES256\""), "\(result.output)")
                for id in session.nodes { #expect(result.output.contains(id)) }
                let forged = try await DeviceCLITests.run(URL(fileURLWithPath: python), [
                    fixture, url.absoluteString + "/.well-known/jwks.json", client.clientKey, runtime.tokens.issuer, String(token.dropLast(4)) + "AAAA",
                ])
                #expect(forged.status != 0)
            }

            // The history lists the login.
            let history = try await tessera.authHistory(token: token)
            #expect(history.items.first?.channelId == channel.channelId && history.items.first?.outcome == .completed)
            #expect(history.items.first?.nodes == session.nodes)

            // One node killed: logins still succeed.
            nodes[0].signal(SIGKILL)
            _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")

            // A second node hanging: the login fails closed with its own code (the node timeout ends the
            // wait; how long that takes on a busy machine is not asserted).
            nodes[1].signal(SIGSTOP)
            do {
                _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")
                Issue.record("logged in with one node of three")
            } catch let error as TesseraError {
                #expect(error.code == .authQuorumNotReached)
            }

            // Two killed: refused at once, same code.
            nodes[1].signal(SIGKILL)
            do {
                _ = try await tessera.authenticate(localAuthenticator: LiveServer.pin, reason: "Log in")
                Issue.record("logged in with one node of three")
            } catch let error as TesseraError {
                #expect(error.code == .authQuorumNotReached)
            }
            let failed = try await tessera.authHistory(token: token)
            #expect(failed.items.prefix(2).allSatisfy { $0.outcome == .failed && $0.code == ErrorCode.authQuorumNotReached.rawValue })

            // A device enrolled now reaches only the live node; the admin listing shows what the others miss.
            _ = try await LiveServer.enrol(runtime, client, url, userKey: "quinn2", bundleId: Self.bundle)
            let listed = try await runtime.nodeAdmin.list()
            let live = listed.first { $0.url == nodes[2].url }, dead = listed.filter { $0.url != nodes[2].url }
            #expect(live?.pendingDevices == 0 && live?.lastError == nil)
            #expect(dead.count == 2 && dead.allSatisfy { $0.pendingDevices == 1 && $0.lastError != nil }, "\(dead)")
        }
    }

    @Test("a node refuses to attest a device its registry lacks, and refuses calls not signed by its server")
    func nodeRefusals() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "rory", bundleId: Self.bundle)
            let deviceId = try #require(try tessera.loadDeviceID())
            let stranger = try NodeProcess(binary: binary, serverKey: runtime.nodeAdmin.serverKey)
            defer { stranger.stop() }
            let info = try await stranger.waitUntilUp()
            let channel = try await tessera.openAuthChannel()
            let statement = AuthStatement.challenge(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
            let signature = try tessera.keyStore.signWithDeviceKey(statement).rawRepresentation.base64EncodedString()
            let request = NodeAttestRequest(
                channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge, challengeSignature: signature
            )
            // Signed by the server, but this node never received the device's keys.
            let fromServer = HTTPNodeClient(
                nodeId: info.nodeId, baseURL: stranger.url, httpClient: .shared, signingKey: runtime.keys.nodeControlKey, timeout: .seconds(2)
            )
            await #expect { _ = try await fromServer.attest(request) } throws: { ($0 as? NodeCallError)?.code == .nodeDeviceUnknown }
            // Not from its server at all.
            let impostor = HTTPNodeClient(nodeId: info.nodeId, baseURL: stranger.url, httpClient: .shared, signingKey: .init(), timeout: .seconds(2))
            await #expect { _ = try await impostor.store(NodeDeviceRecord(
                deviceId: deviceId, clientId: "x", userId: "y", deviceKey: "", userVerificationKey: "", status: "active"
            )) } throws: { ($0 as? NodeCallError)?.code == .deviceUnknown }
            // The embedded nodes, which did receive the keys, attest.
            let embedded = try #require(runtime.embeddedNodes.first)
            let client = HTTPNodeClient(
                nodeId: embedded.nodeId, baseURL: embedded.url, httpClient: .shared, signingKey: runtime.keys.nodeControlKey, timeout: .seconds(60)
            )
            let attestation = try await client.attest(request)
            #expect(attestation.nodeId == embedded.nodeId)
        }
    }
}
