import Foundation
import Testing
import TesseraTestSupport
import Tessera
import TesseraCore
@testable import TesseraServer

/// `tessera rp authenticate` and `tessera device approve` as two separate programs against a live server.
@Suite("CLI: relying-party login")
struct RelyingPartyCLITests {
    static let bundle = "com.example.rpcli"

    /// Starts the executable, its output and errors in one pipe.
    static func start(_ binary: URL, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(binary.path, arguments, stdout: .pipe)
    }

    /// Waits for a started program's end; returns its status and everything it printed.
    static func finish(_ started: ChildProcess) async throws -> (status: Int32, output: String) {
        await ChildProcess.onOwnThread {
            let output = String(decoding: ChildProcess.readAll(started.output!), as: UTF8.self)
            return (started.waitUntilExit(), output)
        }
    }

    @Test("approve: the relying party prints the verified claims; decline: it reports the outcome and fails")
    func approveAndDecline() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let created = try await runtime.clients.rotateSecret(clientKey: client.clientKey)
            let deviceDir = FileManager.default.temporaryDirectory.appendingPathComponent("rp-cli-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: deviceDir) }
            let signup = try await DeviceCLITests.run(binary, [
                "device", "signup", "--device-dir", deviceDir, "--server", url.absoluteString, "--client-key", client.clientKey,
                "--bundle-id", Self.bundle, "--otp-from-outbox", runtime.configuration.dataDirectory, "--pin", "246813",
                "--email", "rp@example.com", "--phone", "+41795550777", "--user-key", "rp-user", "--name", "RP User",
            ])
            #expect(signup.status == 0, "\(signup.output)")
            let rpArguments = [
                "rp", "authenticate", "--server", url.absoluteString, "--client-key", client.clientKey, "--client-secret", created.clientSecret,
                "--user-key", "rp-user", "--connect-ip", "198.51.100.23", "--message", "Log in to the shop", "--timeout", "30",
            ]

            let relyingParty = try Self.start(binary, rpArguments)
            let approve = try await DeviceCLITests.run(binary, ["device", "approve", "--device-dir", deviceDir, "--pin", "246813", "--wait", "20"])
            #expect(approve.status == 0, "\(approve.output)")
            #expect(approve.output.contains("198.51.100.23") && approve.output.contains("Log in to the shop"))
            let statuses = AuthStatus.allCases.compactMap { approve.output.range(of: $0.rawValue)?.lowerBound }
            #expect(statuses.count == 4 && statuses == statuses.sorted(), "\(approve.output)")
            let approved = try await Self.finish(relyingParty)
            #expect(approved.status == 0, "\(approved.output)")
            #expect(approved.output.contains("result token verified with the server's JWKS"))
            #expect(approved.output.contains("\"sub\" : \"rp-user\""), "\(approved.output)")

            let declining = try Self.start(binary, rpArguments)
            let decline = try await DeviceCLITests.run(binary, ["device", "approve", "--device-dir", deviceDir, "--decline", "--wait", "20"])
            #expect(decline.status == 0 && decline.output.contains("declined"), "\(decline.output)")
            let declined = try await Self.finish(declining)
            #expect(declined.status != 0)
            #expect(declined.output.contains("outcome: declined (code 5008"), "\(declined.output)")
        }
    }
}
