import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer

/// `tessera admin` against a running server: changes go through its admin API and take effect at
/// once; the admin token is required; `token reset` and `node server-key` work with the server stopped.
@Suite("CLI: tessera admin through the admin API")
struct AdminCLITests {
    static func binary() throws -> URL { try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)") }

    /// An app call (`POST /v1/otp/send`) with the client's key; returns the HTTP status and the problem code, if any.
    static func appCall(_ url: URL, clientKey: String, bundleId: String) async throws -> (status: Int, code: Int?) {
        var request = HTTPClientRequest(url: url.appendingPathComponent("v1/otp/send").absoluteString)
        request.method = .POST
        request.headers.add(name: TesseraHeader.clientKey, value: clientKey)
        request.headers.add(name: TesseraHeader.bundleId, value: bundleId)
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = SendOTPRequest(sendType: .email, sendTarget: "admin-cli-\(UUID().uuidString.prefix(8))@example.com", purpose: .signup)
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        return (Int(response.status.code), (try? JSONDecoder().decode(Problem.self, from: data))?.code)
    }

    @Test("a client disabled with tessera admin is refused by the running server at once, and enabled again")
    func disableTakesEffectAtOnce() async throws {
        let tessera = try Self.binary()
        try await TestDeployment.serve { dataDir, admin, url in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--name", "Live", "--bundle-id", "com.example.live"] + admin)
            #expect(created.status == 0, "\(created.output)")
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            // The server has looked the client up (and cached it) before the change.
            #expect(try await Self.appCall(url, clientKey: clientKey, bundleId: "com.example.live").status < 300)
            let disabled = try await DeviceCLITests.run(tessera, ["admin", "client", "disable", clientKey, "--data-dir", dataDir] + admin)
            #expect(disabled.status == 0, "\(disabled.output)")
            let refused = try await Self.appCall(url, clientKey: clientKey, bundleId: "com.example.live")
            #expect(refused.code == ErrorCode.clientDisabled.rawValue, "status \(refused.status)")
            let enabled = try await DeviceCLITests.run(tessera, ["admin", "client", "enable", clientKey] + admin)
            #expect(enabled.status == 0, "\(enabled.output)")
            // --json prints times as ISO 8601, numbers stay numbers and booleans booleans.
            let listed = try await DeviceCLITests.run(tessera, ["admin", "client", "list", "--json"] + admin)
            let clients = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]], "\(listed.output)")
            let live = try #require(clients.first { $0["clientKey"] as? String == clientKey }, "\(listed.output)")
            let createdAt = try #require(live["createdAt"] as? String, "\(listed.output)")
            #expect(createdAt.wholeMatch(of: /20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "\(createdAt)")
            #expect(listed.output.contains("\"enabled\" : true"), "\(listed.output)")
            #expect(try await Self.appCall(url, clientKey: clientKey, bundleId: "com.example.live").status < 300)
        }
    }

    @Test("without the admin token an admin command is a usage error; a wrong one is refused with 1105; no server is exit 3")
    func tokenAndServer() async throws {
        let tessera = try Self.binary()
        try await TestDeployment.serve { dataDir, admin, url in
            let missing = try await DeviceCLITests.run(tessera, ["admin", "client", "list", "--data-dir", dataDir, "--server", url.absoluteString])
            #expect(missing.status == 2, "\(missing.output)")
            #expect(missing.output.contains("--admin-token"), "\(missing.output)")
            let wrong = try await DeviceCLITests.run(
                tessera, ["admin", "client", "list", "--server", url.absoluteString, "--admin-token", "tat_wrong"]
            )
            #expect(wrong.status == 1, "\(wrong.output)")
            #expect(wrong.output.contains("1105"), "\(wrong.output)")
            let fromEnvironment = try await DeviceCLITests.run(
                tessera, ["admin", "client", "list", "--server", url.absoluteString], environment: ["TESSERA_ADMIN_TOKEN": admin[3]]
            )
            #expect(fromEnvironment.status == 0, "\(fromEnvironment.output)")
        }
        let (fd, port) = try ConfigurationCLITests.listeningSocket()
        close(fd)
        let dataDir = try await TestDeployment.create()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let stopped = try await DeviceCLITests.run(
            tessera, ["admin", "client", "list", "--data-dir", dataDir, "--port", "\(port)", "--admin-token", "tat_any"]
        )
        #expect(stopped.status == 3, "\(stopped.output)")
        #expect(stopped.output.contains("cannot reach the Tessera server at http://127.0.0.1:\(port)"), "\(stopped.output)")
    }

    @Test("token reset works with the server stopped; the running server then takes the new token")
    func tokenResetOffline() async throws {
        let tessera = try Self.binary()
        let dataDir = try await TestDeployment.create()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let reset = try await DeviceCLITests.run(tessera, ["admin", "token", "reset", "--data-dir", dataDir])
        #expect(reset.status == 0, "\(reset.output)")
        let token = String(try #require(reset.output.firstMatch(of: /admin token:\s+(tat_\S+)/)?.1))
        let serverKey = try await DeviceCLITests.run(tessera, ["admin", "node", "server-key", "--data-dir", dataDir])
        #expect(serverKey.status == 0 && !serverKey.output.isEmpty, "\(serverKey.output)")
        try await TestDeployment.serve(dataDirectory: dataDir, adminToken: token) { _, admin, _ in
            let listed = try await DeviceCLITests.run(tessera, ["admin", "node", "list", "--json"] + admin)
            #expect(listed.status == 0, "\(listed.output)")
        }
    }
}
