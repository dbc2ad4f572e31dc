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

/// The SDK against a live server on a real socket.
@Suite("SDK: OTP")
struct TesseraClientOTPTests {
    func withLiveServer(_ body: @escaping @Sendable (TesseraRuntime, Client, URL) async throws -> Void) async throws {
        try await LiveServer.run(bundleId: "com.example.sdk", body)
    }

    @Test("send, wrong code is .invalid, right code gives a dispose token, then failures carry codes")
    func otpRoundTrip() async throws {
        try await withLiveServer { runtime, client, url in
            let logLines = LogCollector()
            let tessera = TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.example.sdk", timeout: .sdkTestDeadline),
                keyStore: MemoryKeyStore(), onTotalLog: { logLines.append($0) })
            let sent = try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: "Sdk@Example.com")
            #expect(sent.sendTarget == "sdk@example.com")
            let code = try await LiveServer.latestCode(runtime, to: "sdk@example.com")
            let wrong = code == "000001" ? "000002" : "000001"

            let miss = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "sdk@example.com", otpNumber: wrong)
            #expect(miss == .invalid(remainingAttempts: 4))
            let hit = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "sdk@example.com", otpNumber: code)
            guard case .valid(let token) = hit else { Issue.record("expected valid, got \(hit)"); return }
            #expect(token.hasPrefix("tdt_"))

            do {
                _ = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "sdk@example.com", otpNumber: code)
                Issue.record("a used code was accepted")
            } catch let error as TesseraError {
                #expect(error.code == .otpExpired)
            }
            do {
                try await tessera.requestSendOTPNumber(sendType: .sms, sendTarget: "12345")
                Issue.record("an invalid phone number was accepted")
            } catch let error as TesseraError {
                #expect(error.code == .invalidPhoneNumber)
            }
            // The log hook saw every call, and never the code or the token.
            let lines = logLines.lines
            #expect(lines.contains { $0.contains("/v1/otp/verify") })
            #expect(!lines.contains { $0.contains(code) || $0.contains(token) })
        }
    }

    @Test("a wrong bundle identifier and an unreachable server are TesseraErrors with codes")
    func clientErrors() async throws {
        try await withLiveServer { _, client, url in
            let wrongBundle = TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: "com.other", timeout: .sdkTestDeadline), keyStore: MemoryKeyStore())
            do {
                try await wrongBundle.requestSendOTPNumber(sendType: .email, sendTarget: "x@example.com")
                Issue.record("wrong bundle accepted")
            } catch let error as TesseraError {
                #expect(error.code == .bundleIdNotAllowed)
            }
        }
        let nowhere = TesseraClient(configuration: .init(serverURL: URL(string: "http://127.0.0.1:9")!, clientKey: "k", bundleIdentifier: "b", timeout: .seconds(2)), keyStore: MemoryKeyStore())
        do {
            try await nowhere.requestSendOTPNumber(sendType: .email, sendTarget: "x@example.com")
            Issue.record("unreachable server answered")
        } catch let error as TesseraError {
            #expect(error.code == .networkError)
        }
    }
}

final class LogCollector: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
