import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// Key rotation seen by another instance on the same database.
@Suite("Result tokens across instances")
struct ResultTokenRotationTests {
    @Test("a token signed with a key rotated in by another instance verifies at once; forged kids stay invalid", arguments: TestDatabase.kinds)
    func rotationReachesOtherInstance(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let here = runtime.tokens
            // A second instance: its own key cache over the same database.
            let there = ResultTokens(
                database: runtime.database, sealKey: runtime.keys.tokenSealKey, issuer: here.issuer, lifetime: .seconds(300), clock: .system
            )
            try await there.load()
            let newKid = try await here.rotate()
            let token = try await here.issue(
                userKey: "u", clientKey: "tck_x", clientId: "cl_x", deviceId: "dev_x", channelId: "ch_x", amr: ["hwk"], nodes: []
            )
            #expect(ResultTokens.kid(of: token) == newKid)
            let claims = try await there.verify(token)
            #expect(claims.sub.value == "u")

            // A token with an unknown kid (or none) is refused, and cannot force reloads faster than once a second.
            let parts = token.split(separator: ".").map(String.init)
            let header = Data(#"{"alg":"ES256","kid":"rk_forged","typ":"JWT"}"#.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            for _ in 0..<3 {
                await #expect(throws: AppError.self) { _ = try await there.verify([header, parts[1], parts[2]].joined(separator: ".")) }
            }
            await #expect(throws: AppError.self) { _ = try await there.verify("not.a.token") }
        }
    }

    @Test("keys are published before they sign: the key a rotation puts in use was in the JWKS before it, and a new upcoming key is published; another instance verifies its tokens without reloading", arguments: TestDatabase.kinds)
    func prePublication(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let here = runtime.tokens
            let there = ResultTokens(
                database: runtime.database, sealKey: runtime.keys.tokenSealKey, issuer: here.issuer, lifetime: .seconds(300), clock: .system
            )
            try await there.load()
            let before = try await here.jwks.map(\.kid)
            #expect(before.count == 2)  // the signing key and the upcoming one
            let active = try await here.rotate()
            #expect(before.contains(active) && before.first != active)
            let after = try await here.jwks.map(\.kid)
            #expect(after.count == 3)
            #expect(after.first == active)
            #expect(Set(before).isSubset(of: Set(after)))
            // The other instance loaded before the rotation: it already knows the new signing key.
            #expect(try await there.jwks.map(\.kid) == before)
            let token = try await here.issue(
                userKey: "u", clientKey: "tck_x", clientId: "cl_x", deviceId: "dev_x", channelId: "ch_x", amr: ["hwk"], nodes: []
            )
            #expect(try await there.verify(token).sub.value == "u")
            #expect(try await there.jwks.map(\.kid) == before)
            // A second rotation: the first signing key is retired, the previous upcoming one signs.
            let second = try await here.rotate()
            let third = try await here.jwks.map(\.kid)
            #expect(after.contains(second) && !third.contains(before.first ?? "") && third.count == 3)
        }
    }

    @Test("a verified token is remembered: still valid while its key is live, refused once the key is retired or the token expired", arguments: TestDatabase.kinds)
    func verifiedTokensAreRememberedUntilTheKeysChange(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let manual = ManualClock(start: WallClock.system.now())
            let tokens = ResultTokens(
                database: runtime.database, sealKey: runtime.keys.tokenSealKey, issuer: runtime.tokens.issuer, lifetime: .seconds(300),
                clock: manual.clock
            )
            try await tokens.load()
            func issue(_ user: String) async throws -> String {
                try await tokens.issue(userKey: user, clientKey: "tck_x", clientId: "cl_x", deviceId: "dev_x", channelId: "ch_\(user)", amr: ["hwk"], nodes: [])
            }
            let old = try await issue("old")
            #expect(try await tokens.verify(old).sub.value == "old")
            #expect(try await tokens.verify(old).sub.value == "old")  // remembered
            // One rotation: the previous key stays published, so the token still verifies.
            try await tokens.rotate()
            #expect(try await tokens.verify(old).sub.value == "old")
            // A second rotation retires its key: refused, although it was verified (and remembered) before.
            try await tokens.rotate()
            await #expect(throws: AppError.self) { _ = try await tokens.verify(old) }
            // A remembered token is refused once it expired (on the injected clock).
            let fresh = try await issue("fresh")
            #expect(try await tokens.verify(fresh).sub.value == "fresh")
            manual.advance(by: .seconds(301))
            await #expect(throws: AppError.self) { _ = try await tokens.verify(fresh) }
        }
    }

    @Test("a token's expiry is judged by the injected clock, first seen or remembered: valid at a clock in the past, refused once that clock passes its expiry", arguments: TestDatabase.kinds)
    func expiryOnTheInjectedClock(kind: TestDatabase) async throws {
        // Ten years ago: the system clock alone would call every token of this clock expired.
        let manual = ManualClock(start: Int64(Date().timeIntervalSince1970 * 1000) - 10 * 365 * 86_400_000)
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let here = runtime.tokens
            let token = try await here.issue(
                userKey: "u", clientKey: "tck_x", clientId: "cl_x", deviceId: "dev_x", channelId: "ch_clock", amr: ["hwk"], nodes: []
            )
            // Another instance has not seen it (jwt-kit verifies it there); this one remembers it after the first time.
            let there = ResultTokens(database: runtime.database, sealKey: runtime.keys.tokenSealKey, issuer: here.issuer, lifetime: .seconds(300), clock: manual.clock)
            try await there.load()
            #expect(try await there.verify(token).jti.value == "ch_clock")
            #expect(try await here.verify(token).jti.value == "ch_clock")
            #expect(try await here.verify(token).jti.value == "ch_clock")
            manual.advance(by: .seconds(301))
            let fresh = ResultTokens(database: runtime.database, sealKey: runtime.keys.tokenSealKey, issuer: here.issuer, lifetime: .seconds(300), clock: manual.clock)
            try await fresh.load()
            for verifier in [here, there, fresh] {
                await #expect(throws: AppError.self) { _ = try await verifier.verify(token) }
            }
        }
    }
}
