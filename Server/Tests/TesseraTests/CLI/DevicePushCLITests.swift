import Foundation
import Synchronization
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer

/// `tessera device approve --push-listen` and `tessera device push-token` as a third party would run
/// them: the built executable against a live server whose push service delivers to the CLI's
/// loopback UnifiedPush endpoint.
@Suite("CLI: tessera device and push")
struct DevicePushCLITests {
    static let bundle = "com.example.pushcli"
    static let pin = "246813"

    /// A program's output as it arrives, read on a thread of its own, so a test can await a line.
    final class LiveOutput: Sendable {
        private let state = Mutex((text: "", ended: false))

        init(_ process: ChildProcess) {
            let handle = process.output!
            Thread { [self] in
                while true {
                    let data = ChildProcess.readSome(handle)
                    if data.isEmpty { break }
                    state.withLock { $0.text += String(decoding: data, as: UTF8.self) }
                }
                state.withLock { $0.ended = true }
            }.start()
        }

        /// What the program printed so far.
        var text: String { state.withLock { $0.text } }
        /// Whether the program closed its output (it ended).
        var ended: Bool { state.withLock { $0.ended } }
    }

    /// Signs up `userKey` (`<userKey>@example.com`, PIN ``pin``) as a CLI device in a new directory, the
    /// code read from the development outbox; returns the directory and the device ID.
    static func signUp(
        _ binary: URL, runtime: TesseraRuntime, client: Client, url: URL, userKey: String, bundle: String = Self.bundle
    ) async throws -> (String, String) {
        let deviceDir = FileManager.default.temporaryDirectory.appendingPathComponent("push-cli-\(UUID().uuidString)").path
        let signup = try await DeviceCLITests.run(binary, [
            "device", "signup", "--device-dir", deviceDir, "--server", url.absoluteString, "--client-key", client.clientKey,
            "--bundle-id", bundle, "--otp-from-outbox", runtime.configuration.dataDirectory, "--pin", Self.pin,
            "--email", "\(userKey)@example.com", "--phone", "+4179555\(Int.random(in: 1000...9999))", "--user-key", userKey, "--name", "User \(userKey)",
        ])
        try #require(signup.status == 0, "\(signup.output)")
        let deviceId = try #require(try FileKeyStore(directory: URL(fileURLWithPath: deviceDir)).loadState()?.deviceId)
        return (deviceDir, deviceId)
    }

    @Test("approve --push-listen 127.0.0.1:0 registers a loopback UnifiedPush endpoint, is woken by the push, approves the request; the token is cleared after")
    func approveWokenByPush() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            _ = try await runtime.pushAdmin.set(
                PushSettingsUpdate(unifiedpush: UnifiedPushSettingsUpdate(allowedEndpoints: ["http://127.0.0.1:"])), clientKey: client.clientKey
            )
            let (deviceDir, deviceId) = try await Self.signUp(binary, runtime: runtime, client: client, url: url, userKey: "push-user")
            defer { try? FileManager.default.removeItem(atPath: deviceDir) }
            let devices = SQLDeviceRepository(database: runtime.database)

            let approve = try RelyingPartyCLITests.start(binary, [
                "device", "approve", "--device-dir", deviceDir, "--pin", Self.pin, "--wait", "300", "--push-listen", "127.0.0.1:0",
            ])
            let process = approve
            let output = LiveOutput(approve)
            // The request is made only once the device listens and found nothing pending: only a push can wake it.
            let listening = await eventually { output.text.contains("waiting up to 300 s for a push") || output.ended }
            try #require(listening && !output.ended, "\(output.text)")
            let endpoint = try #require(try await devices.pushToken(deviceId: deviceId))
            #expect(endpoint.hasPrefix("http://127.0.0.1:") && endpoint.contains("/push/"), "\(endpoint)")
            #expect(output.text.contains("push endpoint \(endpoint) registered"))

            let request = try await runtime.auth.relyingParty.create(
                client: client, request: RPAuthRequest(userKey: "push-user", connectIp: "198.51.100.24", message: "Log in to the shop")
            )
            let status = await process.exited()
            _ = await eventually { output.ended }
            let text = output.text
            #expect(status == 0, "\(text)")
            #expect(text.contains("push received for request \(request.requestId)"), "\(text)")
            #expect(!text.contains("already pending"), "\(text)")
            #expect(text.contains("198.51.100.24") && text.contains("Log in to the shop"), "\(text)")
            let statuses = AuthStatus.allCases.compactMap { text.range(of: $0.rawValue)?.lowerBound }
            #expect(statuses.count == 4 && statuses == statuses.sorted(), "\(text)")
            let state = try await runtime.auth.relyingParty.state(client: client, id: request.requestId, wait: .zero)
            #expect(state.outcome == .completed)
            #expect(try await runtime.repositories.push.counts() == ["sent": 1])
            // The endpoint ended with the program: its token is gone, the device polls again.
            #expect(try await devices.pushToken(deviceId: deviceId) == nil)
        }
    }

    @Test("approve --push-listen without UnifiedPush settings is refused with 8003; push-token sets and clears a token by hand")
    func refusedEndpointAndPushToken() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let (deviceDir, deviceId) = try await Self.signUp(binary, runtime: runtime, client: client, url: url, userKey: "token-user")
            defer { try? FileManager.default.removeItem(atPath: deviceDir) }
            let devices = SQLDeviceRepository(database: runtime.database)

            let refused = try await DeviceCLITests.run(
                binary, ["device", "approve", "--device-dir", deviceDir, "--wait", "5", "--push-listen", "127.0.0.1:0"], timeout: 120
            )
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.output.contains("code 8003 push-endpoint-not-allowed"), "\(refused.output)")
            let usage = try await DeviceCLITests.run(binary, ["device", "approve", "--device-dir", deviceDir, "--push-listen", "0.0.0.0:0"])
            #expect(usage.status == 2, "\(usage.output)")

            let set = try await DeviceCLITests.run(binary, ["device", "push-token", "--device-dir", deviceDir, "--platform", "apns", "--token", "a1b2c3"])
            #expect(set.status == 0, "\(set.output)")
            #expect(try await devices.pushToken(deviceId: deviceId) == "a1b2c3")
            let cleared = try await DeviceCLITests.run(binary, ["device", "push-token", "--device-dir", deviceDir, "--platform", "apns", "--token", ""])
            #expect(cleared.status == 0, "\(cleared.output)")
            #expect(try await devices.pushToken(deviceId: deviceId) == nil)
        }
    }
}
