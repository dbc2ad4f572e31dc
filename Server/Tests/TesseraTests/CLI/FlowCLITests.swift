import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Tessera
import TesseraCore
@testable import TesseraServer

/// `tessera device flow-signup`, `password-login` and `sessions`, and `tessera admin client policy`,
/// run as the built executable.
@Suite("CLI: flows, sessions and policy")
struct FlowCLITests {
    @Test("flow-signup with the dev outbox, sessions, a server-side revocation seen as logged out, password-login")
    func flowSignupAndSessions() async throws {
        let tessera = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: "com.example.flowcli") { runtime, client, url in
            let deviceDir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-flow-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: deviceDir) }
            let common = ["--device-dir", deviceDir]
            let signup = try await DeviceCLITests.run(tessera, ["device", "flow-signup"] + common + [
                "--server", url.absoluteString, "--client-key", client.clientKey, "--bundle-id", "com.example.flowcli",
                "--otp-from-outbox", runtime.configuration.dataDirectory, "--phone", "+41795551234", "--email", "cli-flow@example.com",
                "--first-name", "Cli", "--last-name", "Flow", "--password", "cli-pass-123",
            ])
            #expect(signup.status == 0, "\(signup.output)")
            #expect(signup.output.contains("logged in: true"), "\(signup.output)")
            #expect(!signup.output.contains("cli-pass-123"))

            let shown = try await DeviceCLITests.run(tessera, ["device", "show"] + common)
            #expect(shown.output.contains("session:     logged in"), "\(shown.output)")
            let listed = try await DeviceCLITests.run(tessera, ["device", "sessions"] + common)
            #expect(listed.status == 0, "\(listed.output)")
            let sessionId = try #require(listed.output.firstMatch(of: /\* (ses_[A-Za-z0-9_-]+)/)?.1)
            // The admin revokes it: the next call is refused, and the device is logged out from then on.
            try await runtime.revokeSession(id: String(sessionId))
            let refused = try await DeviceCLITests.run(tessera, ["device", "sessions"] + common)
            #expect(refused.status == 1, "refused by the server: exit 1 with its code")
            #expect(refused.output.contains("7103"), "\(refused.output)")
            let after = try await DeviceCLITests.run(tessera, ["device", "sessions"] + common)
            #expect(after.status == 3, "not logged in is a local failure")
            #expect(after.output.contains("not logged in"), "\(after.output)")
            let shownAfter = try await DeviceCLITests.run(tessera, ["device", "show"] + common)
            #expect(shownAfter.status == 0, "the device itself is still active: \(shownAfter.output)")
            #expect(shownAfter.output.contains("session:     logged out"), "\(shownAfter.output)")

            let login = try await DeviceCLITests.run(
                tessera, ["device", "password-login"] + common + ["--identifier", "cli-flow@example.com", "--password", "cli-pass-123"]
            )
            #expect(login.status == 0, "\(login.output)")
            let again = try await DeviceCLITests.run(tessera, ["device", "sessions"] + common)
            #expect(again.output.contains("* ses_"), "\(again.output)")
            #expect(again.output.contains("revoked"), "\(again.output)")
            #expect(again.output.firstMatch(of: /created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/) != nil, "ISO 8601 times: \(again.output)")
            let json = try await DeviceCLITests.run(tessera, ["device", "sessions"] + common + ["--json"])
            #expect(json.status == 0, "\(json.output)")
            let sessions = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]]
            #expect(sessions?.contains { $0["current"] as? Bool == true } == true, "\(json.output)")

            // A PIN authenticator under the client's policy; a second one is refused by the server.
            let pin = try await DeviceCLITests.run(tessera, ["device", "register-authenticator"] + common + ["--type", "pin", "--secret", "482913"])
            #expect(pin.status == 0, "\(pin.output)")
            #expect(pin.output.contains("registered pin authenticator atr_"), "\(pin.output)")
            let second = try await DeviceCLITests.run(tessera, ["device", "register-authenticator"] + common + ["--type", "pin", "--secret", "592041"])
            #expect(second.status == 1, "refused by the server: \(second.output)")
            #expect(second.output.contains("7207"), "\(second.output)")
            let listedAuthenticators = try await DeviceCLITests.run(tessera, ["device", "register-authenticator"] + common + ["--list"])
            #expect(listedAuthenticators.output.contains("pin  F1D0#0001"), "\(listedAuthenticators.output)")
            let listedJSON = try await DeviceCLITests.run(tessera, ["device", "register-authenticator"] + common + ["--list", "--json"])
            let authenticators = try JSONSerialization.jsonObject(with: Data(listedJSON.output.utf8)) as? [[String: Any]]
            #expect(authenticators?.first?["type"] as? String == "pin", "\(listedJSON.output)")
        }
    }

    @Test("admin client policy shows the defaults, changes what is given, and refuses an unusable policy")
    func adminPolicy() async throws {
        let tessera = try #require(DeviceCLITests.binary, "build the tessera executable first")
        try await TestDeployment.serve { dataDir, admin, _ in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--data-dir", dataDir, "--name", "Policy", "--bundle-id", "com.example.p"] + admin)
            let clientKey = String(try #require(created.output.firstMatch(of: /client key:\s+(tck_\S+)/)?.1))
            let shown = try await DeviceCLITests.run(tessera, ["admin", "client", "policy", clientKey, "--data-dir", dataDir] + admin)
            #expect(shown.status == 0, "\(shown.output)")
            #expect(shown.output.contains("PIN:              6–12 digits"), "\(shown.output)")
            let changed = try await DeviceCLITests.run(tessera, [
                "admin", "client", "policy", clientKey, "--data-dir", dataDir, "--allow", "pin", "--allow", "faceRecognition", "--pin-min-length", "8",
                "--passcode-fallback", "false", "--json",
            ] + admin)
            #expect(changed.status == 0, "\(changed.output)")
            let policy = try JSONDecoder().decode(ClientPolicy.self, from: Data(changed.output.utf8))
            #expect(policy.allowedAuthenticators == [.pin, .faceRecognition])
            #expect(policy.pin.minLength == 8 && policy.pin.maxLength == 12 && !policy.allowDevicePasscodeFallback)
            let refused = try await DeviceCLITests.run(tessera, ["admin", "client", "policy", clientKey, "--data-dir", dataDir, "--pin-min-length", "2"] + admin)
            #expect(refused.status == 2, "an unusable policy is a usage error")
            #expect(refused.output.contains("minLength"), "\(refused.output)")
        }
    }
}
