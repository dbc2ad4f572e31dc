import Foundation
import Synchronization
import Testing
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore
@testable import TesseraServer

/// The GCCS seed ("GCCS Authentication") as its own example code writes it, against a live server:
/// `GuardianService.sharedInstance` is a ``TesseraGuardian`` made over the enrolled client (the SDK
/// has no process-wide configuration), the rest is the seed's call names, argument order and callback
/// shapes; `.wait()` only lets the test await each call's outcome. See MigratingFromGCCS.md.
@Suite("Seeds: GCCS authentication")
struct GCCSSeedTests {
    static let bundle = "com.example.gccs"

    /// What the callbacks saw, in order.
    final class Seen: Sendable {
        private let lines = Mutex([String]())
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test("requestAuthRequest (four statuses in order, Int authType), requestAuthResult, getAuthResultToken, requestAuthCancel, onFailed(errCode)")
    func seedExample() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "gwen", bundleId: Self.bundle)
            let sharedInstance = TesseraGuardian(client: tessera)
            let seen = Seen()

            // Authentication request / Start authentication
            await sharedInstance.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
                seen.add("success \(rtCode) \(authType) \(userKey) \(clientKey == client.clientKey) \(!connectIp.isEmpty) \(!rtMsg.isEmpty)")
            } onProcess: { status in
                seen.add(status)
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode) \(errMsg)")
            }.wait()
            #expect(seen.all == [
                "CreateChannel", "SelectNodes", "StartVerificationOfNodes", "CompleteVerificationOfNodes",
                "success 0 \(LocalAuthType.pin.gccsCode) gwen true true true",
            ])
            #expect(LocalAuthType(gccsCode: LocalAuthType.pin.gccsCode) == .pin)

            // Complete authentication (after the secondary authentication of that authType succeeded)
            await sharedInstance.requestAuthResult(isSecondaryCertification: true) { rtCode, rtMsg in
                seen.add("result \(rtCode)")
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()

            // Authentication result
            let token = Mutex<String?>(nil)
            await sharedInstance.getAuthResultToken { rtCode, result in
                seen.add("token \(rtCode)")
                token.withLock { $0 = result }
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            #expect(Array(seen.all.suffix(2)) == ["result 0", "token 0"])
            let claims = try await runtime.tokens.verify(try #require(token.withLock { $0 }))
            #expect(claims.sub.value == "gwen" && claims.amr.contains("pin"))

            // Cancel authentication: a second request, cancelled before it is completed
            await sharedInstance.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
                seen.add("second \(rtCode)")
            } onProcess: { status in
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            await sharedInstance.requestAuthCancel { rtCode, msg in
                seen.add("cancel \(rtCode)")
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            // The cancelled authentication cannot be completed: onFailed with the error code.
            await sharedInstance.requestAuthResult(isSecondaryCertification: true) { rtCode, rtMsg in
                seen.add("result \(rtCode)")
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            #expect(Array(seen.all.suffix(3)) == ["second 0", "cancel 0", "failed \(ErrorCode.authChannelCancelled.rawValue)"])
        }
    }

    @Test("onFailed(errCode) for every failure: a device that is not enrolled (3007), a PIN that does not unlock the key (9104), a server that cannot be reached (9101)")
    func failures() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            let seen = Seen()
            let unenrolled = TesseraGuardian(client: TesseraClient(
                configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundle, timeout: .sdkTestDeadline), keyStore: MemoryKeyStore()
            ))
            await unenrolled.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
                seen.add("success")
            } onProcess: { status in
                seen.add(status)
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()

            // A file key store seals the user-verification key under the PIN: the seed's call without it fails on
            // the device; with the PIN the user entered (the migration guide's one addition) it completes.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-gccs-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let tessera = try await LiveServer.enrol(
                runtime, client, url, userKey: "gus", bundleId: Self.bundle, keyStore: try FileKeyStore(directory: directory)
            )
            let sharedInstance = TesseraGuardian(client: tessera)
            await sharedInstance.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
                seen.add("success \(rtCode)")
            } onProcess: { status in
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            await sharedInstance.requestAuthResult(isSecondaryCertification: true) { rtCode, rtMsg in
                seen.add("result \(rtCode)")
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            await sharedInstance.requestAuthResult(isSecondaryCertification: true, unlockSecret: "482913") { rtCode, rtMsg in
                seen.add("result \(rtCode)")
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()

            // Port 1 on loopback refuses connections.
            let unreachable = TesseraGuardian(client: TesseraClient(
                configuration: .init(serverURL: URL(string: "http://127.0.0.1:1")!, clientKey: client.clientKey, bundleIdentifier: Self.bundle, timeout: .sdkTestDeadline),
                keyStore: tessera.keyStore
            ))
            await unreachable.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
                seen.add("success")
            } onProcess: { status in
                seen.add(status)
            } onFailed: { errCode, errMsg in
                seen.add("failed \(errCode)")
            }.wait()
            #expect(seen.all == [
                "failed \(ErrorCode.deviceUnknown.rawValue)", "success 0", "failed \(ErrorCode.localFailure.rawValue)", "result 0",
                "failed \(ErrorCode.networkError.rawValue)",
            ])
        }
    }
}
