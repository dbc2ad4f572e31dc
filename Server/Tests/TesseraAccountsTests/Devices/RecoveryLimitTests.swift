import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

@Suite("Re-registration identity checks")
struct RecoveryLimitTests {
    @Test("guessing is answered the same way, and limited per IP and per user key", arguments: TestDatabase.kinds)
    func limited(kind: TestDatabase) async throws {
        // A manual clock in the middle of an hour: the limit's window is the clock's hour (no run across it).
        try await withTestRuntime(kind, clock: ManualClock(start: 1_800_001_800_000).clock, configure: { $0.identityChecksPerHour = 3 }) { runtime in
            let client = try await runtime.makeTestClient()
            func check(_ userKey: String, ip: String) async -> ErrorCode? {
                do {
                    _ = try await runtime.registration.sendRecoveryOTP(
                        RecoveryOTPRequest(userKey: userKey, name: "Nobody", sendType: .email, sendTarget: "x@example.com"), client: client, ip: ip
                    )
                    return nil
                } catch let error as AppError {
                    return error.code
                } catch {
                    return .internalError
                }
            }
            for index in 0..<3 {
                #expect(await check("guess\(index)", ip: "10.1.1.1") == .identityNotMatched)
            }
            #expect(await check("guess9", ip: "10.1.1.1") == .identityCheckRateLimited)
            // Another address, the same user key three times, then limited on the key.
            for _ in 0..<3 {
                #expect(await check("target", ip: "10.2.2.\(Int.random(in: 1...250))") == .identityNotMatched)
            }
            #expect(await check("target", ip: "10.3.3.3") == .identityCheckRateLimited)
        }
    }
}
