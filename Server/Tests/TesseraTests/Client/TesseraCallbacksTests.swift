import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer
import TesseraTestSupport

/// The seed-style callback facade over a live server.
@Suite("SDK: callback facade")
struct TesseraCallbacksTests {
    final class Events: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ event: String) { list.withLock { $0.append(event) } }
        var all: [String] { list.withLock { $0 } }
    }

    @Test("onSuccess, onInvalidOTPNumber, onValidOTPNumber, onFailed(code), onError, each followed by onCompleted")
    func callbacks() async throws {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-cb-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        var logger = Logger(label: "cb-test")
        logger.logLevel = .warning
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: try await SQLiteDatabase.open(path: nil, logger: logger), logger: logger, nodeLauncher: InProcessNodeLauncher()
        )
        let client = try await runtime.clients.create(name: "CB", bundleIds: ["com.example.cb"]).client
        let app = Application(router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { http in
            let url = URL(string: "http://127.0.0.1:\(http.port!)")!
            let api = TesseraCallbacks(client: TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.cb", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()))
            let events = Events()
            let failed: TesseraCallbacks.OnFailed = { code, _ in events.add("failed \(code)") }
            let errored: TesseraCallbacks.OnError = { error in events.add("error \(type(of: error))") }
            let completed: TesseraCallbacks.OnCompleted = { events.add("completed") }

            await api.requestSendOTPNumber(sendType: .email, sendTarget: "cb@example.com", onSuccess: { events.add("success") },
                                           onFailed: failed, onError: errored, onCompleted: completed).wait()
            await runtime.courier.drain()
            let entry = try #require(try FileOutboxSender.read(path: runtime.configuration.fileOutboxPath).last)
            let code = String(try #require(entry.body.firstMatch(of: /\b(\d{6})\b/)).1)
            let wrong = code == "111111" ? "222222" : "111111"
            await api.verifyOTPNumber(sendType: .email, sendTarget: "cb@example.com", otpNumber: wrong, onValidOTPNumber: { _ in events.add("valid") },
                                      onInvalidOTPNumber: { events.add("invalid") }, onFailed: failed, onError: errored, onCompleted: completed).wait()
            await api.verifyOTPNumber(sendType: .email, sendTarget: "cb@example.com", otpNumber: code, onValidOTPNumber: { _ in events.add("valid") },
                                      onInvalidOTPNumber: { events.add("invalid") }, onFailed: failed, onError: errored, onCompleted: completed).wait()
            await api.requestSendOTPNumber(sendType: .sms, sendTarget: "not a number", onSuccess: { events.add("success") },
                                           onFailed: failed, onError: errored, onCompleted: completed).wait()
            let userData = UserData(appVersion: "1", token: "", email: "cb@example.com", phoneNumber: "+41790000001", userKey: "cb",
                                    name: "CB", authType: .pin, os: .linux, disposeToken: "x", agreeGccs: true, agreePerson: true, agreeDevice: true)
            await api.requestSignUp(userData: userData, localAuthenticator: ScriptedLocalAuthenticator([.failure(LocalAuthError(.userCancel))]),
                                    reason: "r", onSuccess: { events.add("success") }, onFailed: failed, onError: errored, onCompleted: completed).wait()
            await api.requestSendOTPNumberForRegisterDevice(userKey: "nobody", name: "No Body", sendType: .email, sendTarget: "cb@example.com",
                                                            onSuccess: { _ in events.add("success") }, onFailed: failed, onError: errored,
                                                            onCompleted: completed).wait()
            #expect(events.all == [
                "success", "completed", "invalid", "completed", "valid", "completed",
                "failed \(ErrorCode.invalidPhoneNumber.rawValue)", "completed", "error LocalAuthError", "completed",
                "failed \(ErrorCode.identityNotMatched.rawValue)", "completed",
            ])
        }
        await runtime.shutdown()
    }

    /// A local-auth prompt the user never answers: the call waits until it is cancelled. `shown`, when
    /// given, hears each prompt as it appears.
    struct UnansweredPrompt: LocalAuthenticator {
        var shown: AsyncStream<LocalAuthType>.Continuation?

        func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult {
            shown?.yield(request.localAuthType)
            try await Task.sleep(for: .seconds(3600))
            return LocalAuthResult()
        }
    }

    @Test("onTotalLog gets every step of its call; a network failure reaches onFailed with 9101 and onError; a released DisposeBag cancels its calls")
    func logsFailuresAndDisposeBag() async throws {
        // Port 1 on loopback refuses connections: the call fails in the network.
        let closed = URL(string: "http://127.0.0.1:1")!
        let api = TesseraCallbacks(client: TesseraClient(configuration: .init(serverURL: closed, clientKey: "tck_x", bundleIdentifier: "com.example.cb", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()))
        let events = Events(), lines = Events()
        await api.requestSendOTPNumber(
            sendType: .email, sendTarget: "cb@example.com", onSuccess: { events.add("success") }, onFailed: { code, _ in events.add("failed \(code)") },
            onError: { error in events.add("error \((error as? TesseraError)?.code.rawValue ?? -1)") }, onTotalLog: { lines.add($0) },
            onCompleted: { events.add("completed") }
        ).wait()
        #expect(events.all == ["failed \(ErrorCode.networkError.rawValue)", "error \(ErrorCode.networkError.rawValue)", "completed"])
        // Not only started/failed: the request itself and its network failure are in the call's log.
        #expect(lines.all.first == "requestSendOTPNumber started")
        #expect(lines.all.contains("→ POST /v1/otp/send"))
        #expect(lines.all.contains { $0.hasPrefix("✗ POST /v1/otp/send: network error") })

        // The seed's disposeBag: the owner goes away while local authentication waits, and the call is cancelled.
        let userData = UserData(appVersion: "1", token: "", email: "cb@example.com", phoneNumber: "+41790000001", userKey: "cb",
                                name: "CB", authType: .pin, os: .linux, disposeToken: "x", agreeGccs: true, agreePerson: true, agreeDevice: true)
        var bag: DisposeBag? = DisposeBag()
        let call = api.requestSignUp(
            userData: userData, localAuthenticator: UnansweredPrompt(), reason: "r", onSuccess: { events.add("late success") },
            onFailed: { _, _ in events.add("late failed") }, onError: { _ in events.add("late error") }, onCompleted: { events.add("late completed") }
        )
        if let bag { call.disposed(by: bag) }
        #expect(!call.isCancelled)
        bag = nil
        #expect(call.isCancelled)
        await call.wait()
        #expect(!events.all.contains { $0.hasPrefix("late") })
    }

    @Test("disposeBag: on a call, as the seeds write it: releasing the bag while its calls wait cancels them, and none of their callbacks runs")
    func disposeBagParameter() async throws {
        let closed = URL(string: "http://127.0.0.1:1")!
        let api = TesseraCallbacks(client: TesseraClient(configuration: .init(serverURL: closed, clientKey: "tck_x", bundleIdentifier: "com.example.cb", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()))
        let events = Events()
        let (prompts, shown) = AsyncStream<LocalAuthType>.makeStream()
        let prompt = UnansweredPrompt(shown: shown)
        let userData = UserData(appVersion: "1", token: "", email: "cb@example.com", phoneNumber: "+41790000001", userKey: "cb",
                                name: "CB", authType: .pin, os: .linux, disposeToken: "x", agreeGccs: true, agreePerson: true, agreeDevice: true)
        var disposeBag: DisposeBag? = DisposeBag()
        let calls = [
            api.requestSignUp(
                userData: userData, localAuthenticator: prompt, reason: "r", onSuccess: { events.add("late success") },
                onFailed: { _, _ in events.add("late failed") }, onError: { _ in events.add("late error") }, onCompleted: { events.add("late completed") },
                disposeBag: disposeBag
            ),
            api.startSimpleAuth(
                localAuthType: .biometric, reason: "r", checkDomainStateChanged: false, usePasscodeWhenFailed: false, localAuthenticator: prompt,
                onSuccess: { events.add("late success") }, onError: { _ in events.add("late error") }, disposeBag: disposeBag
            ),
        ]
        // Both calls are under way: each has put its prompt up and waits for the user.
        var waiting = Set<LocalAuthType>()
        for await type in prompts {
            waiting.insert(type)
            if waiting.count == 2 { break }
        }
        #expect(calls.allSatisfy { !$0.isCancelled })
        disposeBag = nil  // the owner goes away
        #expect(calls.allSatisfy { $0.isCancelled })
        // Without the bag's cancellation the prompts would wait an hour: end them so that a failure is reported, not a hang.
        for call in calls where !call.isCancelled { call.cancel() }
        for call in calls { await call.wait() }
        #expect(events.all.isEmpty)
    }
}
