import Foundation
import Testing
@testable import TesseraServer
@testable import TesseraSignIn
import TesseraServerTestSupport

/// The refresh-token part of the ``OIDCRepository`` contract, run on the in-memory double, SQLite and
/// PostgreSQL as ``OIDCRepositoryConformanceTests`` runs the rest:
///
/// - `insertToken` with a refresh token stores both, unused and unrevoked, or neither;
/// - `rotate` uses a refresh token once, storing its successor and the new access token of the same
///   family; a used or revoked token is refused and nothing is stored; of concurrent uses one wins;
/// - `revokeTokens` revokes a family's refresh tokens with its access tokens, and no other family's;
/// - `revokeToken` revokes one access token, once; `purge` removes expired refresh tokens.
@Suite("OIDC: the repository contract for refresh tokens, on the in-memory double, SQLite and PostgreSQL", .serialized)
struct OIDCRefreshTokenConformanceTests {
    typealias Base = OIDCRepositoryConformanceTests
    static let now = Base.now

    static func refresh(_ hash: String, family: String, clientId: String, expiresAt: Int64 = now + 86_400_000) -> OIDCRefreshToken {
        OIDCRefreshToken(
            tokenHash: hash, family: family, clientId: clientId, userKey: "alice", scope: "openid email offline_access",
            authTime: now / 1000 - 7, amr: ["hwk", "pin"], expiresAt: expiresAt
        )
    }

    @Test("insertToken with a refresh token stores both, unused and unrevoked; a taken refresh hash stores neither", arguments: Base.Implementation.all)
    func insertWithRefresh(_ implementation: Base.Implementation) async throws {
        try await Base.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Base.completed(subject, "oar_r1", clientId: clientId, code: "h_family")
            var carrying = Self.refresh("r_one", family: "h_family", clientId: clientId)
            carrying.usedAt = Self.now
            carrying.revokedAt = Self.now
            try await repository.insertToken(hash: "t_one", codeHash: "h_family", Base.token(clientId: clientId), refresh: carrying, at: Self.now)
            #expect(try await repository.refreshToken(hash: "r_one") == Self.refresh("r_one", family: "h_family", clientId: clientId))
            #expect(try await repository.token(hash: "t_one")?.revokedAt == nil)
            #expect(try await repository.refreshToken(hash: "r_unknown") == nil)

            await #expect(throws: (any Error).self) {
                try await repository.insertToken(
                    hash: "t_two", codeHash: "h_family", Base.token(clientId: clientId), refresh: Self.refresh("r_one", family: "h_family", clientId: clientId),
                    at: Self.now
                )
            }
            #expect(try await repository.token(hash: "t_two") == nil)
        }
    }

    @Test("rotate: once per refresh token, storing the successor and the access token in the family; a used or revoked token stores nothing", arguments: Base.Implementation.all)
    func rotate(_ implementation: Base.Implementation) async throws {
        try await Base.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Base.completed(subject, "oar_r2", clientId: clientId, code: "h_family")
            try await repository.insertToken(
                hash: "t_first", codeHash: "h_family", Base.token(clientId: clientId), refresh: Self.refresh("r_first", family: "h_family", clientId: clientId),
                at: Self.now
            )
            let second = Self.refresh("r_second", family: "h_family", clientId: clientId)
            var narrower = Base.token(clientId: clientId)
            narrower.scope = "openid"
            #expect(try await repository.rotate(refreshHash: "r_first", successor: second, accessHash: "t_second", access: narrower, at: Self.now + 10))
            #expect(try await repository.refreshToken(hash: "r_first")?.usedAt == Self.now + 10)
            #expect(try await repository.refreshToken(hash: "r_second") == second)
            #expect(try await repository.token(hash: "t_second")?.scope == "openid")

            // Used already: refused, nothing stored, the first use's time kept.
            #expect(try await repository.rotate(
                refreshHash: "r_first", successor: Self.refresh("r_third", family: "h_family", clientId: clientId), accessHash: "t_third",
                access: Base.token(clientId: clientId), at: Self.now + 20
            ) == false)
            #expect(try await repository.refreshToken(hash: "r_third") == nil)
            #expect(try await repository.token(hash: "t_third") == nil)
            #expect(try await repository.refreshToken(hash: "r_first")?.usedAt == Self.now + 10)

            // The family revoked (the access token of the rotation too): the unused successor is refused as well.
            try await repository.revokeTokens(codeHash: "h_family", at: Self.now + 30)
            #expect(try await repository.token(hash: "t_second")?.revokedAt == Self.now + 30)
            #expect(try await repository.refreshToken(hash: "r_second")?.revokedAt == Self.now + 30)
            #expect(try await repository.rotate(
                refreshHash: "r_second", successor: Self.refresh("r_fourth", family: "h_family", clientId: clientId), accessHash: "t_fourth",
                access: Base.token(clientId: clientId), at: Self.now + 40
            ) == false)
            #expect(try await repository.refreshToken(hash: "r_fourth") == nil)
            // An unknown token: refused.
            #expect(try await repository.rotate(
                refreshHash: "r_unknown", successor: Self.refresh("r_fifth", family: "h_family", clientId: clientId), accessHash: "t_fifth",
                access: Base.token(clientId: clientId), at: Self.now + 50
            ) == false)
        }
    }

    @Test("of concurrent uses of one refresh token exactly one wins, and only its successor is stored", arguments: Base.Implementation.all)
    func concurrentRotations(_ implementation: Base.Implementation) async throws {
        try await Base.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Base.completed(subject, "oar_r3", clientId: clientId, code: "h_family")
            try await repository.insertToken(
                hash: "t_0", codeHash: "h_family", Base.token(clientId: clientId), refresh: Self.refresh("r_0", family: "h_family", clientId: clientId),
                at: Self.now
            )
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 1...8 {
                    group.addTask {
                        try await repository.rotate(
                            refreshHash: "r_0", successor: Self.refresh("r_\(index)", family: "h_family", clientId: clientId), accessHash: "t_\(index)",
                            access: Base.token(clientId: clientId), at: Self.now + Int64(index)
                        )
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(wins.filter { $0 }.count == 1)
            var stored = 0
            for index in 1...8 where try await repository.refreshToken(hash: "r_\(index)") != nil {
                stored += 1
                #expect(try await repository.token(hash: "t_\(index)") != nil)
            }
            #expect(stored == 1)
        }
    }

    @Test("revokeTokens revokes one family's refresh and access tokens and no other's; revokeToken revokes one access token once", arguments: Base.Implementation.all)
    func revocation(_ implementation: Base.Implementation) async throws {
        try await Base.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Base.completed(subject, "oar_a", clientId: clientId, code: "h_a")
            _ = try await Base.completed(subject, "oar_b", clientId: clientId, code: "h_b")
            try await repository.insertToken(
                hash: "t_a", codeHash: "h_a", Base.token(clientId: clientId), refresh: Self.refresh("r_a", family: "h_a", clientId: clientId), at: Self.now
            )
            try await repository.insertToken(
                hash: "t_b", codeHash: "h_b", Base.token(clientId: clientId), refresh: Self.refresh("r_b", family: "h_b", clientId: clientId), at: Self.now
            )
            try await repository.revokeTokens(codeHash: "h_a", at: Self.now + 5)
            #expect(try await repository.refreshToken(hash: "r_a")?.revokedAt == Self.now + 5)
            #expect(try await repository.token(hash: "t_a")?.revokedAt == Self.now + 5)
            #expect(try await repository.refreshToken(hash: "r_b")?.revokedAt == nil)
            #expect(try await repository.token(hash: "t_b")?.revokedAt == nil)

            #expect(try await repository.revokeToken(hash: "t_b", at: Self.now + 6))
            #expect(try await repository.revokeToken(hash: "t_b", at: Self.now + 7) == false)
            #expect(try await repository.token(hash: "t_b")?.revokedAt == Self.now + 6)
            #expect(try await repository.refreshToken(hash: "r_b")?.revokedAt == nil)
            #expect(try await repository.revokeToken(hash: "t_unknown", at: Self.now) == false)
        }
    }

    @Test("purge removes refresh tokens that expired before the cutoff and keeps the others", arguments: Base.Implementation.all)
    func purge(_ implementation: Base.Implementation) async throws {
        try await Base.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let cutoff = Self.now + 10_000_000
            _ = try await Base.completed(subject, "oar_p", clientId: clientId, code: "h_p")
            try await repository.insertToken(
                hash: "t_p1", codeHash: "h_p", Base.token(clientId: clientId, expiresAt: cutoff + 1),
                refresh: Self.refresh("r_old", family: "h_p", clientId: clientId, expiresAt: cutoff - 1), at: Self.now
            )
            try await repository.insertToken(
                hash: "t_p2", codeHash: "h_p", Base.token(clientId: clientId, expiresAt: cutoff + 1),
                refresh: Self.refresh("r_new", family: "h_p", clientId: clientId, expiresAt: cutoff), at: Self.now
            )
            try await repository.purge(before: cutoff)
            #expect(try await repository.refreshToken(hash: "r_old") == nil)
            #expect(try await repository.refreshToken(hash: "r_new") != nil)
        }
    }
}
