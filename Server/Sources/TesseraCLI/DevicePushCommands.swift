import ArgumentParser
import Foundation
import Tessera
import TesseraCore

// TesseraCore does not depend on ArgumentParser, so this conformance can only ever be the CLI's.
extension PushProvider: @retroactive ExpressibleByArgument {}

extension DeviceCommand {
    struct PushToken: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push-token",
            abstract: "Set this device's push token by hand (an empty token turns pushes off: the device polls)."
        )
        @OptionGroup var device: DeviceDirectory
        @Option(help: "apns, fcm or unifiedpush.") var platform: PushProvider
        @Option(help: "The APNs device token (hex), the FCM registration token or the UnifiedPush endpoint URL; empty for none.") var token: String

        func run() async throws {
            let tessera = try device.signedUpClient()
            try await tessera.updatePushToken(token, platform: platform)
            print(token.isEmpty ? "push token cleared: the device polls" : "push token set (\(platform.rawValue))")
        }
    }

    /// Where `tessera device approve --push-listen` takes pushes: `127.0.0.1:PORT` (0: any free port).
    struct PushListenAddress: ExpressibleByArgument {
        var port: Int

        init?(argument: String) {
            let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "127.0.0.1", let port = Int(parts[1]), (0...65_535).contains(port) else { return nil }
            self.port = port
        }

        /// Registers a loopback UnifiedPush endpoint as this device's push token, waits up to `wait`
        /// seconds for a push naming a request that is still pending, and returns that request (read
        /// with the SDK's `handlePush`). A request already pending when the endpoint is registered
        /// (it was pushed elsewhere, or not at all) is taken at once. The token is cleared afterwards:
        /// the endpoint ends with this program.
        func waitForRequest(_ tessera: TesseraClient, wait: Int) async throws -> AuthChannelResponse {
            let path = "/push/" + UUID().uuidString.lowercased()
            let listener = try LoopbackCallbackListener(port: port, path: path, method: "POST")
            let endpoint = "http://127.0.0.1:\(listener.port)\(path)"
            try await tessera.updatePushToken(endpoint, platform: .unifiedpush)
            print("push endpoint \(endpoint) registered (UnifiedPush)")
            let found: Result<AuthChannelResponse, any Error>
            do {
                found = .success(try await Self.receive(tessera, listener: listener, wait: wait))
            } catch {
                found = .failure(error)
            }
            // Best effort: a failure here leaves a token whose pushes fail until the next update.
            try? await tessera.updatePushToken("", platform: .unifiedpush)
            return try found.get()
        }

        private static func receive(_ tessera: TesseraClient, listener: LoopbackCallbackListener, wait: Int) async throws -> AuthChannelResponse {
            if let pending = try await tessera.pendingAuthRequests().first {
                print("a request was already pending")
                return pending
            }
            print("waiting up to \(wait) s for a push")
            let deadline = ContinuousClock.now + .seconds(wait)
            while true {
                let left = ContinuousClock.now.duration(to: deadline)
                guard left > .zero, let push = try await listener.next(timeout: left) else {
                    throw CLIFailure.local("no push within \(wait) s")
                }
                let userInfo = TesseraPush.userInfo(unifiedPushMessage: push.body)
                guard let requestId = TesseraPush.requestId(in: userInfo) else {
                    print("ignored a push that is not Tessera's")
                    continue
                }
                if let request = try await tessera.handlePush(userInfo: userInfo) {
                    print("push received for request \(requestId)")
                    return request
                }
                print("push received for request \(requestId), which is no longer pending")
            }
        }
    }
}
