import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Tessera
import TesseraCore
@testable import TesseraServer
import TesseraTestSupport

/// `tessera device` as a third party would run it: the built executable against a live server.
@Suite("CLI: tessera device")
struct DeviceCLITests {
    static var binary: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tessera"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../.build/debug/tessera"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs a program to its end (``ChildProcess/run(_:_:environment:directory:input:timeout:)``, on a
    /// thread of its own). `directory` is the working directory (default: the test's); `environment` is
    /// added to the test's; after `timeout` seconds the program is ended.
    static func run(
        _ executable: URL, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:], timeout: Double? = nil
    ) async throws -> (status: Int32, output: String) {
        try await ChildProcess.run(
            executable.path, arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            directory: directory, timeout: timeout
        )
    }

    @Test("signup with the dev outbox, then `tessera device totp`, the SDK and oathtool print the same code")
    func signupAndTOTP() async throws {
        let tessera = try #require(Self.binary, "build the tessera executable first (swift build --build-tests builds it)")
        let oathtool = URL(fileURLWithPath: try TestRequirements.program("oathtool", for: "the reference TOTP code", debianPackage: "oathtool"))
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cli-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.courierPollInterval = .milliseconds(100)
        var logger = Logger(label: "cli-test")
        logger.logLevel = .warning
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: try await SQLiteDatabase.open(path: nil, logger: logger), logger: logger, nodeLauncher: InProcessNodeLauncher()
        )
        let client = try await runtime.clients.create(name: "CLI", bundleIds: ["com.example.cli"]).client
        let deviceDir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-device-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(atPath: deviceDir)
            try? FileManager.default.removeItem(atPath: deviceDir + "-refused")
        }
        let app = Application(
            router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [runtime.courier],
            logger: logger
        )
        let dataDirectory = configuration.dataDirectory
        try await app.test(.live) { http in
            // A PIN breaking the client's policy (6–12 digits, no runs by default) is refused by the server.
            let refused = try await Self.run(tessera, [
                "device", "signup", "--device-dir", deviceDir + "-refused", "--server", "http://127.0.0.1:\(http.port!)",
                "--client-key", client.clientKey, "--bundle-id", "com.example.cli", "--otp-from-outbox", dataDirectory, "--pin", "1234",
                "--email", "weak@example.com", "--phone", "+41795550001", "--user-key", "weak-user", "--name", "Weak PIN",
            ])
            #expect(refused.status != 0 && refused.output.contains("7202"), "\(refused.output)")
            let signup = try await Self.run(tessera, [
                "device", "signup", "--device-dir", deviceDir, "--server", "http://127.0.0.1:\(http.port!)", "--client-key", client.clientKey,
                "--bundle-id", "com.example.cli", "--otp-from-outbox", dataDirectory, "--pin", "582036",
                "--email", "cli@example.com", "--phone", "+41795550000", "--user-key", "cli-user", "--name", "CLI User",
            ])
            #expect(signup.status == 0, "\(signup.output)")
            #expect(signup.output.contains("signed up: device dev_"))
            // A wrong PIN is a local failure (exit 3) that says how many tries are left.
            let wrong = try await Self.run(tessera, ["device", "login", "--device-dir", deviceDir, "--pin", "0000"])
            #expect(wrong.status == 3, "\(wrong.output)")
            #expect(wrong.output.contains("wrong PIN or password; 4 tries left"), "\(wrong.output)")
        }
        let state = try #require(try FileKeyStore(directory: URL(fileURLWithPath: deviceDir)).loadState())
        let time: Int64 = 1_900_000_000 + Int64.random(in: 0..<1_000_000)
        let cli = try await Self.run(tessera, ["device", "totp", "--device-dir", deviceDir, "--at", "\(time)"])
        #expect(cli.status == 0)
        let sdk = TOTP(base32Secret: state.totpSecret)?.code(at: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(cli.output.trimmingCharacters(in: .whitespacesAndNewlines) == sdk)
        let reference = try await Self.run(oathtool, ["--totp", "-b", "-N", "@\(time)", state.totpSecret])
        #expect(reference.output.trimmingCharacters(in: .whitespacesAndNewlines) == sdk)
        await runtime.shutdown()
    }
}
