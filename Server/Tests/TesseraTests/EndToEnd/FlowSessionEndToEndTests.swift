import Foundation
import Hummingbird
import HummingbirdTesting
import SQLKit
import Synchronization
import Testing
import TesseraTestSupport
@testable import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The Vipaso side through the SDK against a live server: the registration flow with the code read
/// from the courier's outbox, the auth state going to authenticated only once the device key is
/// registered, the server revoking the session and the SDK logging out after the next call's 401,
/// and password log-in. The password is then looked for in every log line and every database value.
@Suite("End to end: registration flow and sessions", .serialized)
struct FlowSessionEndToEndTests {
    /// Records what the delegate saw, with the device state stored at that moment.
    final class Recorder: TesseraDelegate, Sendable {
        private let seen = Mutex<[(authenticated: Bool, deviceId: String?)]>([])
        let keyStore: any DeviceKeyStore

        init(keyStore: any DeviceKeyStore) { self.keyStore = keyStore }

        var events: [(authenticated: Bool, deviceId: String?)] { seen.withLock { $0 } }

        func onAuthenticationStateChange(tessera: any TesseraSDKProtocol, authenticated: Bool) {
            let deviceId = try? keyStore.loadState()?.deviceId
            seen.withLock { $0.append((authenticated, deviceId)) }
        }
    }

    /// Collects a stream's values in the background.
    final class Collected: Sendable {
        private let items = Mutex<[Bool]>([])
        var values: [Bool] { items.withLock { $0 } }
        func append(_ value: Bool) { items.withLock { $0.append(value) } }

        func wait(count: Int) async {
            _ = await eventually { self.values.count >= count }
        }
    }

    static let password = "Zq7-flow-Passw0rd-\(UUID().uuidString.prefix(8))"

    @Test("flow sign-up, device key, server-side revocation, 401 log-out, password log-in; no password in logs or database", arguments: TestDatabase.kinds)
    func flowThroughSDK(kind: TestDatabase) async throws {
        let log = CapturedLog()
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-flow-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.courierPollInterval = .milliseconds(100)
        let (database, drop) = try await kind.open()
        let runtime = try await TesseraRuntime.bootstrap(configuration: configuration, database: database, logger: log.logger, nodeLauncher: InProcessNodeLauncher())
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        do {
            let client = try await runtime.makeTestClient(bundle: "com.example.flow")
            let app = Application(
                router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                services: runtime.backgroundServices, logger: log.logger
            )
            try await app.test(.live) { http in
                let url = URL(string: "http://127.0.0.1:\(http.port!)")!
                let keyStore = MemoryKeyStore()
                let tessera = TesseraClient(
                    configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.flow", timeout: .sdkTestDeadline), keyStore: keyStore
                )
                let recorder = Recorder(keyStore: keyStore)
                tessera.delegate = recorder
                let collected = Collected()
                let states = tessera.authenticationStates
                let listener = Task { for await value in states { collected.append(value) } }
                defer { listener.cancel() }

                // The flow: start (code sent by SMS through the courier), verify, finish.
                let phone = "+41791112233"
                let started = try await tessera.startSignupFlow(request: StartSignupRequest(phoneNumber: phone))
                #expect(started.flowID.hasPrefix("flw_"))
                #expect(tessera.isAuthenticated == false)
                let code = try await Self.code(runtime, to: phone)
                let verified = try await tessera.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: started.flowID, otp: code))
                #expect(verified.flowID == started.flowID)
                let finished = try await tessera.finishSignupFlow(request: FinishSignupRequest(
                    flowID: started.flowID, password: Self.password, email: "flo@example.com", firstName: "Flo", lastName: "Flow",
                    phoneNumber: phone
                ))
                #expect(finished.identity.hasPassword)
                #expect(tessera.isAuthenticated)

                // Authenticated only after the device key was registered: when the delegate heard
                // `true`, the device state was stored, and the server holds that device for the session.
                await collected.wait(count: 2)
                #expect(collected.values == [false, true])
                #expect(recorder.events.map(\.authenticated) == [true])
                let boundDevice = try #require(recorder.events.first?.deviceId)
                #expect(boundDevice == finished.deviceId)
                let current = try await tessera.currentSession()
                #expect(current.session.deviceId == finished.deviceId)
                #expect(current.identity.phoneNumber == phone)
                let stored = try await runtime.database.withSQL { sql in
                    try await sql.raw("SELECT status FROM devices WHERE id = \(bind: finished.deviceId)").first()?.decode(column: "status", as: String.self)
                }
                #expect(stored == "active")

                // The server (admin) revokes the session; the next call is refused with 401 and the SDK logs out.
                try await runtime.sessions.revoke(id: current.session.id, userId: nil)
                #expect(tessera.isAuthenticated, "nothing tells the SDK before its next call")
                do {
                    _ = try await tessera.sessions()
                    Issue.record("a revoked session was accepted")
                } catch let error as TesseraError {
                    #expect(error.code == .sessionRevoked)
                }
                #expect(tessera.isAuthenticated == false)
                await collected.wait(count: 3)
                #expect(collected.values == [false, true, false])
                #expect(recorder.events.map(\.authenticated) == [true, false])
                #expect(try keyStore.loadSession() == nil)

                // Password log-in: a wrong password is refused; the right one logs in on a new device key
                // (the old device is revoked: one device per user by default).
                do {
                    try await tessera.login(identifier: phone, password: Self.password + "x")
                    Issue.record("a wrong password was accepted")
                } catch let error as TesseraError {
                    #expect(error.code == .passwordInvalid)
                }
                #expect(tessera.isAuthenticated == false)
                try await tessera.login(identifier: "FLO@example.com", password: Self.password)
                #expect(tessera.isAuthenticated)
                let sessions = try await tessera.sessions()
                #expect(sessions.count == 2)
                #expect(sessions.first?.current == true)
                #expect(sessions.last?.revokedAt != nil)
                let newDevice = try #require(try tessera.loadDeviceID())
                #expect(newDevice != finished.deviceId)

                // Log-out on purpose.
                await tessera.logout()
                #expect(tessera.isAuthenticated == false)
                await collected.wait(count: 5)
                #expect(collected.values == [false, true, false, true, false])
            }
            // The password is in no log line and in no value of any table.
            #expect(!log.text.isEmpty)
            #expect(!log.text.contains(Self.password))
            let leaks = try await Self.databaseValues(runtime.database, containing: Self.password)
            #expect(leaks.isEmpty, "password found in \(leaks)")
            let hashes = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT password_hash FROM users WHERE email = 'flo@example.com'").first()?.decode(column: "password_hash", as: String.self)
            }
            #expect(hashes?.hasPrefix("scrypt$15$8$1$") == true)
        } catch {
            await runtime.shutdown()
            await drop()
            throw error
        }
        await runtime.shutdown()
        await drop()
    }

    /// The newest code the file outbox holds for `target` (the courier may still be delivering it).
    static func code(_ runtime: TesseraRuntime, to target: String) async throws -> String {
        guard let code = await eventually({ try? await runtime.deliverAndReadCode(to: target) }) else {
            throw ConfigurationError("no code for \(target)")
        }
        return code
    }

    /// Every `table.column` of the database holding a text that contains `needle`.
    static func databaseValues(_ database: any Database, containing needle: String) async throws -> [String] {
        let tables: [String] = try await database.withSQL { sql in
            let query: SQLQueryString = database.kind == .postgres
                ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
                : "SELECT name FROM sqlite_master WHERE type = 'table'"
            return try await sql.raw(query).all().map { try $0.decode(column: "name", as: String.self) }
        }
        #expect(tables.contains("users") && tables.contains("sessions") && tables.contains("registration_flows"))
        var found: [String] = []
        for table in tables {
            let rows = try await database.withSQL { try await $0.raw("SELECT * FROM \(unsafeRaw: table)").all() }
            for row in rows {
                for column in row.allColumns {
                    if let text = try? row.decode(column: column, as: String.self), text.contains(needle) { found.append("\(table).\(column)") }
                }
            }
        }
        return found
    }
}
