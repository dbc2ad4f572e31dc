import ArgumentParser
import Foundation
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore

/// The option groups and the saved connection that the `tessera device` commands share.
extension DeviceCommand {
    /// Where to find the server, saved in the device directory at sign-up.
    struct Connection: Codable {
        var server: String
        var clientKey: String
        var bundleId: String
    }

    /// `--device-dir`, which every device command takes: where this device's keys, state and
    /// connection live.
    struct DeviceDirectory: ParsableArguments {
        @Option(help: "Directory holding this device's keys and state.") var deviceDir = "./.tessera-device"

        var directory: URL { URL(fileURLWithPath: deviceDir) }

        /// The connection saved at sign-up, if any.
        var savedConnection: Connection? {
            (try? Data(contentsOf: directory.appendingPathComponent("connection.json"))).flatMap { try? JSONDecoder().decode(Connection.self, from: $0) }
        }

        /// Refuses a directory where no device has signed up, creating nothing.
        func requireDevice() throws {
            guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("device.json").path) else {
                throw CLIFailure.local(
                    "there is no device in \(deviceDir) (sign one up with `tessera device signup`, `flow-signup`, `recover` or `password-login`, or give --device-dir)"
                )
            }
        }

        /// The SDK client of a device that has signed up, with the connection saved then.
        func signedUpClient(logging: Bool = true) throws -> TesseraClient {
            try requireDevice()
            guard let connection = savedConnection else {
                throw CLIFailure.local("\(deviceDir) has no saved connection (connection.json): sign up again")
            }
            return try client(connection, logging: logging)
        }

        @Sendable static func printLog(_ line: String) { print("  · \(line)") }

        /// The SDK client; `logging` prints its progress lines (off for `--json`, whose output must be JSON only).
        func client(_ connection: Connection, logging: Bool = true) throws -> TesseraClient {
            guard let url = URL(string: connection.server) else { throw ValidationError("--server is not a URL") }
            return TesseraClient(
                configuration: .init(serverURL: url, clientKey: connection.clientKey, bundleIdentifier: connection.bundleId),
                keyStore: try FileKeyStore(directory: directory), onTotalLog: logging ? Self.printLog : nil
            )
        }

        func save(_ connection: Connection) throws {
            let data = try JSONEncoder().encode(connection)
            let path = directory.appendingPathComponent("connection.json").path
            guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
    }

    /// Where the server is: the commands that make a device (`signup`, `recover`, `flow-signup`,
    /// `password-login`), which save it in the device directory for the others.
    struct ConnectionOptions: ParsableArguments {
        @Option(help: "Server URL (saved at sign-up).") var server: String?
        @Option(help: "Client key (saved at sign-up).") var clientKey: String?
        @Option(help: "Bundle identifier (saved at sign-up).") var bundleId: String?

        /// The flags, else what the device directory has saved.
        func connection(_ device: DeviceDirectory) throws -> Connection {
            let saved = device.savedConnection
            guard let server = server ?? saved?.server, let clientKey = clientKey ?? saved?.clientKey,
                  let bundleId = bundleId ?? saved?.bundleId
            else { throw ValidationError("give --server, --client-key and --bundle-id (they are saved after sign-up)") }
            return Connection(server: server, clientKey: clientKey, bundleId: bundleId)
        }
    }

    /// `--otp-from-outbox`: the commands that verify a code sent by e-mail or SMS.
    struct OTPOptions: ParsableArguments {
        @Option(help: "Read the OTP from this server data directory's development outbox instead of asking.") var otpFromOutbox: String?

        /// The code from the dev outbox (waiting up to 60 s for the courier, which is seconds only on a
        /// loaded machine) or typed by the user.
        func readCode(to target: String, after count: Int) async throws -> String {
            if let dataDir = otpFromOutbox {
                let outbox = OutboxFile(dataDirectory: dataDir)
                for _ in 0..<600 {
                    let mine = ((try? outbox.entries()) ?? []).filter { $0.to == target }
                    if mine.count > count, let code = mine.last?.code {
                        print("  code read from the development outbox")
                        return code
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                throw CLIFailure.local("no new code for \(target) in \(outbox.path)")
            }
            print("Code sent to \(target): ", terminator: "")
            guard let code = readLine()?.trimmingCharacters(in: .whitespaces), !code.isEmpty else { throw ValidationError("no code given") }
            return code
        }

        func outboxCount(to target: String) -> Int {
            guard let dataDir = otpFromOutbox else { return 0 }
            return ((try? OutboxFile(dataDirectory: dataDir).entries()) ?? []).filter { $0.to == target }.count
        }
    }

    /// `--pin`: the commands that set or check this device's PIN.
    struct PINOption: ParsableArguments {
        @Option(help: "The PIN (otherwise asked; TESSERA_DEVICE_PIN also works).") var pin: String?

        /// The PIN given, from `TESSERA_DEVICE_PIN`, or nil.
        var given: String? { pin ?? ProcessInfo.processInfo.environment["TESSERA_DEVICE_PIN"] }

        func readPIN(confirm: Bool) throws -> String {
            if let given { return given }
            print("PIN: ", terminator: "")
            guard let first = readLine(), !first.isEmpty else { throw ValidationError("no PIN given") }
            if confirm {
                print("PIN again: ", terminator: "")
                guard readLine() == first else { throw ValidationError("the PINs differ") }
            }
            return first
        }

        func authenticator(pin: String, in device: DeviceDirectory) -> SoftwareSecretAuthenticator {
            SoftwareSecretAuthenticator(type: .pin, store: FileSecretVerifierStore(path: device.directory.appendingPathComponent("pin.json").path)) { _ in pin }
        }

        /// A PIN verifier that asks for the PIN only when the flow gets there.
        func promptingAuthenticator(in device: DeviceDirectory) -> SoftwareSecretAuthenticator {
            let given = given
            return SoftwareSecretAuthenticator(type: .pin, store: FileSecretVerifierStore(path: device.directory.appendingPathComponent("pin.json").path)) { _ in
                if let given { return given }
                print("PIN: ", terminator: "")
                return readLine()
            }
        }

        /// Runs the node-quorum authentication, printing each status as it arrives.
        func authenticate(_ tessera: TesseraClient, in device: DeviceDirectory, channel: AuthChannelResponse?, matchNumber: String? = nil) async throws {
            let started = Date()
            let token = try await tessera.authenticate(
                channel: channel, matchNumber: matchNumber, localAuthenticator: promptingAuthenticator(in: device), reason: "Log in"
            ) { status in
                print(String(format: "  %6.0f ms  %@", Date().timeIntervalSince(started) * 1000, status.rawValue))
            }
            print("authenticated; result token:")
            print(token)
        }
    }
}
