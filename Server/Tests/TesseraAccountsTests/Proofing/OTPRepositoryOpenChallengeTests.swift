import SQLKit
import Testing
import TesseraCore
@testable import TesseraAccounts
@testable import TesseraServer
import TesseraServerTestSupport

/// ``OTPRepository/openChallenge(gateKey:cooldown:id:binding:codeHash:now:expiresAt:in:)``, a send's gate,
/// supersession and insertion (one statement on PostgreSQL): the same outcomes as the three steps, on the double
/// and on both engines.
@Suite("OTP repository: opening a challenge")
struct OTPRepositoryOpenChallengeTests {
    static let t0: Int64 = 1_800_000_000_000
    static let lifetime: Int64 = 300_000

    private func open(_ harness: OTPRepositoryHarness, _ id: String, _ binding: OTPBinding = .a, at now: Int64) async throws -> Int64? {
        try await harness.run {
            try await $0.openChallenge(
                gateKey: "gate|\(binding.target)", cooldown: .seconds(30), id: id, binding: binding, codeHash: "hash-\(id)", now: now,
                expiresAt: now + Self.lifetime, in: $1
            )
        }
    }

    @Test("opened: the binding's live challenge ends, the new one is the newest; within the cooldown: refused with the next allowed time, nothing changed", arguments: OTPRepositoryImplementation.all)
    func openAndRefuse(implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { harness async throws in
            #expect(try await open(harness, "otp_1", at: Self.t0) == nil)
            #expect(try await harness.latest() == "otp_1")
            // Within the cooldown: the time the gate opens again, and no new challenge, the old one still live.
            #expect(try await open(harness, "otp_2", at: Self.t0 + 10_000) == Self.t0 + 30_000)
            #expect(try await harness.latest() == "otp_1")
            #expect(try await harness.state("otp_2") == nil)
            #expect(try await harness.state("otp_1")?.consumed_at == nil)
            // After it: the old challenge ends, the new one is the one to verify.
            #expect(try await open(harness, "otp_3", at: Self.t0 + 30_000) == nil)
            #expect(try await harness.latest() == "otp_3")
            #expect(try await harness.state("otp_1")?.consumed_at == Self.t0 + 30_000)
            #expect(try await harness.state("otp_3")?.consumed_at == nil)
            #expect(try await harness.claim("otp_3", at: Self.t0 + 31_000)?.codeHash == "hash-otp_3")
            // Another target has a gate of its own.
            #expect(try await open(harness, "otp_4", .otherTarget, at: Self.t0 + 31_000) == nil)
            #expect(try await harness.latest(.otherTarget) == "otp_4")
            #expect(try await harness.latest() == "otp_3")
        }
    }
}
