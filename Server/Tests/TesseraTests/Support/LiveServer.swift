import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Tessera
import TesseraAsyncHTTPClient
import TesseraTestSupport
@testable import TesseraServer

/// A Tessera server on a real loopback socket (in-memory SQLite, file outbox, courier running),
/// with one client, for the SDK and CLI tests.
enum LiveServer {
    static let logger: Logger = {
        var logger = Logger(label: "sdk-test")
        logger.logLevel = .warning
        return logger
    }()

    static func run(
        bundleId: String, clock: WallClock = .system, port: Int = 0, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TesseraRuntime, Client, URL) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-sdk-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.courierPollInterval = .milliseconds(100)
        // A node call may take seconds on a busy machine; tests that need a short timeout set one.
        configuration.nodeTimeout = .seconds(60)
        configure(&configuration)
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: try await SQLiteDatabase.open(path: nil, logger: logger), logger: logger,
            clock: clock, nodeLauncher: InProcessNodeLauncher()
        )
        let client = try await runtime.clients.create(name: "SDK test", bundleIds: [bundleId]).client
        if port != 0 {
            try await listening(runtime, client: client, port: port, body)
            try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
            return
        }
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: runtime.backgroundServices,
            logger: logger
        )
        do {
            try await app.test(.live) { http in
                try await body(runtime, client, URL(string: "http://127.0.0.1:\(http.port!)")!)
            }
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
        try? FileManager.default.removeItem(atPath: configuration.dataDirectory)
    }

    /// The server on a port chosen beforehand (for a peer that must know the issuer's address before the server
    /// starts: HummingbirdTesting's live mode always takes a new port), run as a service until `body` returns.
    private static func listening(
        _ runtime: TesseraRuntime, client: Client, port: Int, _ body: @escaping @Sendable (TesseraRuntime, Client, URL) async throws -> Void
    ) async throws {
        let (ready, signal) = AsyncStream<Void>.makeStream()
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: port)), services: runtime.backgroundServices,
            onServerRunning: { _ in signal.yield() }, logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        // The stream ends with the server, so a server that cannot bind (the port taken meanwhile) ends the wait.
        let server = Task {
            defer { signal.finish() }
            try await group.run()
        }
        var running = false
        for await _ in ready {
            running = true
            break
        }
        guard running else {
            await runtime.shutdown()
            try await server.value
            throw ConfigurationError("the server did not start on port \(port)")
        }
        do {
            try await body(runtime, client, URL(string: "http://127.0.0.1:\(port)")!)
        } catch {
            await group.triggerGracefulShutdown()
            _ = await server.result
            await runtime.shutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        _ = await server.result
        await runtime.shutdown()
    }

    /// Signs up `userKey` through the SDK (PIN `482913`) and returns the enrolled client.
    static func enrol(
        _ runtime: TesseraRuntime, _ client: Client, _ url: URL, userKey: String, bundleId: String, keyStore: any DeviceKeyStore = MemoryKeyStore()
    ) async throws -> TesseraClient {
        let tessera = TesseraClient(
            configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: bundleId, timeout: .sdkTestDeadline), keyStore: keyStore
        )
        let email = "\(userKey)@example.com"
        try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: email)
        guard case .valid(let disposeToken) = try await tessera.verifyOTPNumber(
            sendType: .email, sendTarget: email, otpNumber: try await latestCode(runtime, to: email)
        ) else { throw ConfigurationError("code refused") }
        let userData = UserData(
            appVersion: "1.0", token: "push", email: email, phoneNumber: "+4179\(Int.random(in: 1_000_000...9_999_999))", userKey: userKey,
            name: "User \(userKey)", authType: .pin, os: .linux, disposeToken: disposeToken, agreeGccs: true, agreePerson: true, agreeDevice: true
        )
        try await tessera.requestSignUp(userData: userData, localAuthenticator: pin, reason: "Sign up")
        return tessera
    }

    /// A software PIN verifier that always enters `482913`.
    static var pin: SoftwareSecretAuthenticator {
        let pin = SoftwareSecretAuthenticator(type: .pin, store: MemorySecretVerifierStore()) { _ in "482913" }
        try? pin.enroll(secret: "482913")
        return pin
    }

    /// The newest code the file outbox holds for `target`.
    /// The code in the newest message to `target`, once at least `count` messages went to it (pass 2
    /// for a second code to the same address, so an earlier message is never taken for it).
    static func latestCode(_ runtime: TesseraRuntime, to target: String, count: Int = 1) async throws -> String {
        // The background courier may hold the message under its lease for a moment: look until it is there.
        let code: String? = await eventually {
            await runtime.courier.drain()
            guard let entries = try? FileOutboxSender.read(path: runtime.configuration.fileOutboxPath).filter({ $0.to == target }),
                  entries.count >= count, let entry = entries.last,
                  let match = entry.body.firstMatch(of: /\b(\d{6})\b/)
            else { return nil }
            return String(match.1)
        }
        guard let code else { throw ConfigurationError("no code for \(target)") }
        return code
    }
}
