import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import SQLiteKit
import Synchronization
import Testing
@testable import TesseraServer
@testable import TesseraSignIn
import TesseraServerTestSupport

/// The contract every ``OIDCRepository`` keeps, written once and run on ``InMemoryOIDCRepository``,
/// on ``SQLOIDCRepository`` over SQLite and on ``SQLOIDCRepository`` over PostgreSQL:
///
/// - settings: none until set, then exactly what was set (redirect URIs in order), per client; a second set replaces them;
/// - a request reads back as inserted, pending (no channel, identification or completion); an id is inserted once;
/// - `identify` succeeds once per request (with or without a channel) and keeps the first channel and time (it
///   looks at nothing else: neither completion nor expiry, which the service checks first);
/// - `complete` succeeds once per request and stores the code unused; a refused completion stores no code; a
///   completion whose code hash is taken fails and leaves the request pending; of concurrent completions one wins;
/// - `end` succeeds once per request that is neither completed nor ended, and stores no code;
/// - `markUsed` succeeds once per code and keeps the first time; of concurrent calls one wins;
/// - a token is stored unrevoked, once per hash; `revokeTokens` revokes only that code's tokens, keeping the first time;
/// - `purge` removes what expired strictly before the cutoff, each table on its own, and keeps the settings.
@Suite("OIDC: the repository contract, on the in-memory double, SQLite and PostgreSQL")
struct OIDCRepositoryConformanceTests {
    static let now: Int64 = 1_800_000_000_000

    /// The implementations the cases run on (PostgreSQL as ``TestDatabase/kinds`` says).
    enum Implementation: String, Sendable, CustomTestStringConvertible {
        case inMemory = "in memory"
        case sqlite = "SQL on SQLite"
        case postgres = "SQL on PostgreSQL"

        var testDescription: String { rawValue }

        static var all: [Implementation] { [.inMemory] + TestDatabase.kinds.map { $0 == .sqlite ? .sqlite : .postgres } }
    }

    /// A repository under test, with what the cases need around it.
    struct Subject: Sendable {
        let repository: any OIDCRepository
        /// Runs `body` in a transaction of the repository's database, as the service runs `identify`
        /// (for the double: a connection that refuses every statement, which it must not use).
        let transaction: @Sendable (@escaping @Sendable (any SQLDatabase) async throws -> Bool) async throws -> Bool
        /// A new client's id (`oidc_*` rows reference `clients` in SQL).
        let newClientId: @Sendable () async throws -> String

        func identify(_ id: String, channelId: String?, at time: Int64) async throws -> Bool {
            let repository = self.repository
            return try await transaction { sql in try await repository.identify(id, channelId: channelId, at: time, in: sql) }
        }
    }

    static func with(_ implementation: Implementation, _ body: (Subject) async throws -> Void) async throws {
        let counter = Mutex(0)
        let next: @Sendable () -> Int = { counter.withLock { $0 += 1; return $0 } }
        switch implementation {
        case .inMemory:
            try await body(Subject(
                repository: InMemoryOIDCRepository(), transaction: { body in try await body(DetachedSQL()) },
                newClientId: { "client_\(next())" }
            ))
        case .sqlite, .postgres:
            try await withTestRuntime(implementation == .sqlite ? .sqlite : .postgres, configure: { $0.embeddedNodes = 0 }) { runtime in
                let database = runtime.database
                try await body(Subject(
                    repository: SQLOIDCRepository(database: database), transaction: { body in try await database.transaction(body) },
                    newClientId: { try await runtime.makeTestClient(bundle: "com.example.oidc\(next())").id }
                ))
            }
        }
    }

    // MARK: Records

    static func request(_ id: String, clientId: String, expiresAt: Int64 = now + 600_000) -> OIDCPendingRequest {
        OIDCPendingRequest(
            id: id, clientId: clientId, clientKey: "key_\(clientId)", redirectUri: "https://app.example.com/cb?from=\(id)", state: "state-\(id)",
            nonce: "nonce-\(id)", codeChallenge: String(repeating: "c", count: 43), scope: "openid email", csrfHash: "csrf-\(id)",
            createdAt: now - 1_000, expiresAt: expiresAt
        )
    }

    static func code(_ hash: String, request: OIDCPendingRequest, expiresAt: Int64 = now + 60_000) -> OIDCCode {
        OIDCCode(
            codeHash: hash, requestId: request.id, clientId: request.clientId, redirectUri: request.redirectUri,
            codeChallenge: request.codeChallenge, nonce: request.nonce, scope: request.scope, userKey: "user-\(hash)",
            authTime: now / 1000 - 5, amr: ["hwk", "pin", "face"], expiresAt: expiresAt
        )
    }

    static func token(clientId: String, expiresAt: Int64 = now + 3_600_000) -> OIDCAccessToken {
        OIDCAccessToken(clientId: clientId, userKey: "alice", scope: "openid email", expiresAt: expiresAt)
    }

    /// A request inserted and completed with the code `hash`.
    static func completed(_ subject: Subject, _ id: String, clientId: String, code hash: String, codeExpiresAt: Int64 = now + 60_000) async throws -> OIDCCode {
        let request = request(id, clientId: clientId)
        try await subject.repository.insert(request)
        let code = code(hash, request: request, expiresAt: codeExpiresAt)
        #expect(try await subject.repository.complete(id, code: code, at: now))
        return code
    }

    /// Every field, for comparing records that are not `Equatable`.
    static func fields(_ value: Any?) -> String { String(reflecting: value) }

    // MARK: Settings

    @Test("settings: none until set, then exactly what was set, per client; a second set replaces them", arguments: Implementation.all)
    func settings(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let web = try await subject.newClientId(), other = try await subject.newClientId()
            #expect(try await repository.settings(clientId: web) == nil)
            let first = OIDCClientSettings(redirectUris: ["https://b.example/cb", "https://a.example/cb", "http://127.0.0.1:8000/cb"], numberMatching: true)
            try await repository.setSettings(first, clientId: web, at: Self.now)
            #expect(try await repository.settings(clientId: web) == first)
            #expect(try await repository.settings(clientId: other) == nil)
            let second = OIDCClientSettings(redirectUris: ["https://c.example/cb"], numberMatching: false)
            try await repository.setSettings(second, clientId: web, at: Self.now + 1)
            #expect(try await repository.settings(clientId: web) == second)
            try await repository.setSettings(OIDCClientSettings(redirectUris: []), clientId: other, at: Self.now + 2)
            #expect(try await repository.settings(clientId: other) == OIDCClientSettings(redirectUris: []))
            #expect(try await repository.settings(clientId: web) == second)
        }
    }

    // MARK: Requests

    @Test("insert and request: every field reads back, the request pending; an unknown id is nil; an id is inserted once", arguments: Implementation.all)
    func insertAndRead(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let request = Self.request("oar_one", clientId: clientId)
            try await repository.insert(request)
            #expect(Self.fields(try await repository.request("oar_one")) == Self.fields(request))
            #expect(try await repository.request("oar_unknown") == nil)
            // What a record carries beyond a new request is not stored: it starts pending.
            var carrying = Self.request("oar_two", clientId: clientId)
            carrying.channelId = "ch_x"
            carrying.identifiedAt = Self.now
            carrying.completedAt = Self.now
            try await repository.insert(carrying)
            #expect(Self.fields(try await repository.request("oar_two")) == Self.fields(Self.request("oar_two", clientId: clientId)))
            var again = request
            again.state = "other"
            await #expect(throws: (any Error).self) { try await repository.insert(again) }
            #expect(try await repository.request("oar_one")?.state == request.state)
        }
    }

    @Test("identify: once per request, keeping the first channel and time; an unknown request, or one identified and completed, is refused", arguments: Implementation.all)
    func identify(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            for id in ["oar_user", "oar_nobody", "oar_untouched"] { try await repository.insert(Self.request(id, clientId: clientId)) }

            #expect(try await subject.identify("oar_user", channelId: "ch_one", at: Self.now + 10))
            #expect(try await subject.identify("oar_user", channelId: "ch_two", at: Self.now + 20) == false)
            var expected = Self.request("oar_user", clientId: clientId)
            expected.channelId = "ch_one"
            expected.identifiedAt = Self.now + 10
            #expect(Self.fields(try await repository.request("oar_user")) == Self.fields(expected))

            // No user: identified without a channel, and that counts as the one identification.
            #expect(try await subject.identify("oar_nobody", channelId: nil, at: Self.now + 30))
            #expect(try await subject.identify("oar_nobody", channelId: "ch_late", at: Self.now + 40) == false)
            let nobody = try #require(try await repository.request("oar_nobody"))
            #expect(nobody.channelId == nil && nobody.identifiedAt == Self.now + 30)

            #expect(try await subject.identify("oar_unknown", channelId: "ch_three", at: Self.now) == false)
            #expect(try await repository.request("oar_unknown") == nil)
            let untouched = try #require(try await repository.request("oar_untouched"))
            #expect(untouched.channelId == nil && untouched.identifiedAt == nil)

            // The page's course: identified, then completed; the completed request is not identified again.
            #expect(try await repository.complete("oar_user", code: Self.code("h_user", request: expected), at: Self.now + 50))
            #expect(try await subject.identify("oar_user", channelId: "ch_four", at: Self.now + 60) == false)
            #expect(try await repository.request("oar_user")?.channelId == "ch_one")
        }
    }

    // MARK: Completion and codes

    @Test("complete: once per request, storing its code unused; a refused completion stores no code; an unknown request is refused", arguments: Implementation.all)
    func complete(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let request = Self.request("oar_one", clientId: clientId)
            try await repository.insert(request)
            #expect(try await repository.code(hash: "h_one") == nil)
            // A used time the record carries is not stored: a code starts unused.
            var code = Self.code("h_one", request: request)
            code.usedAt = Self.now
            #expect(try await repository.complete("oar_one", code: code, at: Self.now + 5))
            #expect(try await repository.request("oar_one")?.completedAt == Self.now + 5)
            #expect(Self.fields(try await repository.code(hash: "h_one")) == Self.fields(Self.code("h_one", request: request)))

            #expect(try await repository.complete("oar_one", code: Self.code("h_two", request: request), at: Self.now + 6) == false)
            #expect(try await repository.code(hash: "h_two") == nil)
            #expect(try await repository.request("oar_one")?.completedAt == Self.now + 5)

            #expect(try await repository.complete("oar_unknown", code: Self.code("h_three", request: request), at: Self.now) == false)
            #expect(try await repository.code(hash: "h_three") == nil)
            #expect(try await repository.code(hash: "h_unknown") == nil)
        }
    }

    @Test("end: once per request, without a code; an ended request completes no more and a completed one does not end; an unknown request is refused", arguments: Implementation.all)
    func end(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let declined = Self.request("oar_declined", clientId: clientId)
            try await repository.insert(declined)
            #expect(try await repository.end("oar_declined", at: Self.now + 3))
            #expect(try await repository.request("oar_declined")?.completedAt == Self.now + 3)
            #expect(try await repository.end("oar_declined", at: Self.now + 4) == false)
            #expect(try await repository.request("oar_declined")?.completedAt == Self.now + 3)
            #expect(try await repository.complete("oar_declined", code: Self.code("h_late", request: declined), at: Self.now + 5) == false)
            #expect(try await repository.code(hash: "h_late") == nil)

            let approved = Self.request("oar_approved", clientId: clientId)
            try await repository.insert(approved)
            #expect(try await repository.complete("oar_approved", code: Self.code("h_approved", request: approved), at: Self.now + 6))
            #expect(try await repository.end("oar_approved", at: Self.now + 7) == false)
            #expect(try await repository.request("oar_approved")?.completedAt == Self.now + 6)

            #expect(try await repository.end("oar_unknown", at: Self.now) == false)
            #expect(try await repository.request("oar_unknown") == nil)
        }
    }

    @Test("a completion whose code hash is taken fails and leaves the request pending", arguments: Implementation.all)
    func completeWithTakenCode(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let first = try await Self.completed(subject, "oar_first", clientId: clientId, code: "h_taken")
            let second = Self.request("oar_second", clientId: clientId)
            try await repository.insert(second)
            await #expect(throws: (any Error).self) {
                _ = try await repository.complete("oar_second", code: Self.code("h_taken", request: second), at: Self.now + 1)
            }
            #expect(try await repository.request("oar_second")?.completedAt == nil)
            #expect(Self.fields(try await repository.code(hash: "h_taken")) == Self.fields(first))
            // Still completable with a fresh code.
            #expect(try await repository.complete("oar_second", code: Self.code("h_fresh", request: second), at: Self.now + 2))
        }
    }

    @Test("of concurrent completions of one request exactly one wins, and only its code is stored", arguments: Implementation.all)
    func concurrentCompletions(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let request = Self.request("oar_race", clientId: try await subject.newClientId())
            try await repository.insert(request)
            let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await repository.complete("oar_race", code: Self.code("h_\(index)", request: request), at: Self.now) ? "h_\(index)" : nil
                    }
                }
                return try await group.reduce(into: [String]()) { if let hash = $1 { $0.append(hash) } }
            }
            #expect(winners.count == 1)
            for index in 0..<6 {
                #expect((try await repository.code(hash: "h_\(index)") != nil) == winners.contains("h_\(index)"))
            }
        }
    }

    @Test("markUsed: once per code, keeping the first time; an unknown code is refused; other codes stay unused", arguments: Implementation.all)
    func markUsed(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Self.completed(subject, "oar_one", clientId: clientId, code: "h_one")
            _ = try await Self.completed(subject, "oar_two", clientId: clientId, code: "h_two")
            #expect(try await repository.markUsed(codeHash: "h_one", at: Self.now + 7))
            #expect(try await repository.markUsed(codeHash: "h_one", at: Self.now + 8) == false)
            #expect(try await repository.code(hash: "h_one")?.usedAt == Self.now + 7)
            #expect(try await repository.code(hash: "h_two")?.usedAt == nil)
            #expect(try await repository.markUsed(codeHash: "h_unknown", at: Self.now) == false)
            #expect(try await repository.code(hash: "h_unknown") == nil)
            #expect(try await repository.markUsed(codeHash: "h_two", at: Self.now + 9))
        }
    }

    @Test("of concurrent markUsed calls on one code exactly one wins", arguments: Implementation.all)
    func concurrentMarkUsed(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            _ = try await Self.completed(subject, "oar_race", clientId: try await subject.newClientId(), code: "h_race")
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<6 { group.addTask { try await repository.markUsed(codeHash: "h_race", at: Self.now + Int64(index)) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
            #expect(try await repository.code(hash: "h_race")?.usedAt != nil)
        }
    }

    // MARK: Tokens

    @Test("insertToken and token: every field reads back, unrevoked; an unknown hash is nil; a hash is inserted once", arguments: Implementation.all)
    func tokens(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Self.completed(subject, "oar_one", clientId: clientId, code: "h_code")
            let token = Self.token(clientId: clientId)
            try await repository.insertToken(hash: "t_one", codeHash: "h_code", token, at: Self.now)
            #expect(Self.fields(try await repository.token(hash: "t_one")) == Self.fields(token))
            // A revocation time the record carries is not stored: a token starts valid.
            var revoked = Self.token(clientId: clientId)
            revoked.revokedAt = Self.now
            try await repository.insertToken(hash: "t_two", codeHash: "h_code", revoked, at: Self.now)
            #expect(try await repository.token(hash: "t_two")?.revokedAt == nil)
            #expect(try await repository.token(hash: "t_unknown") == nil)
            var other = token
            other.userKey = "mallory"
            await #expect(throws: (any Error).self) { try await repository.insertToken(hash: "t_one", codeHash: "h_code", other, at: Self.now) }
            #expect(try await repository.token(hash: "t_one")?.userKey == "alice")
        }
    }

    @Test("revokeTokens revokes every token of that code and no other, keeping the first revocation time", arguments: Implementation.all)
    func revokeTokens(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            _ = try await Self.completed(subject, "oar_reused", clientId: clientId, code: "h_reused")
            _ = try await Self.completed(subject, "oar_other", clientId: clientId, code: "h_other")
            for hash in ["t_a", "t_b"] { try await repository.insertToken(hash: hash, codeHash: "h_reused", Self.token(clientId: clientId), at: Self.now) }
            try await repository.insertToken(hash: "t_other", codeHash: "h_other", Self.token(clientId: clientId), at: Self.now)

            try await repository.revokeTokens(codeHash: "h_reused", at: Self.now + 100)
            #expect(try await repository.token(hash: "t_a")?.revokedAt == Self.now + 100)
            #expect(try await repository.token(hash: "t_b")?.revokedAt == Self.now + 100)
            #expect(try await repository.token(hash: "t_other")?.revokedAt == nil)

            try await repository.revokeTokens(codeHash: "h_reused", at: Self.now + 200)
            #expect(try await repository.token(hash: "t_a")?.revokedAt == Self.now + 100)
            // A code without tokens: nothing to revoke, nothing changes.
            try await repository.revokeTokens(codeHash: "h_none", at: Self.now + 300)
            #expect(try await repository.token(hash: "t_other")?.revokedAt == nil)
        }
    }

    // MARK: Purge

    @Test("purge removes what expired before the cutoff, table by table, and keeps newer rows and the settings", arguments: Implementation.all)
    func purge(_ implementation: Implementation) async throws {
        try await Self.with(implementation) { subject in
            let repository = subject.repository
            let clientId = try await subject.newClientId()
            let cutoff = Self.now + 1_000_000
            let settings = OIDCClientSettings(redirectUris: ["https://app.example.com/cb"])
            try await repository.setSettings(settings, clientId: clientId, at: Self.now)
            let at = Self.request("oar_at", clientId: clientId, expiresAt: cutoff)
            try await repository.insert(Self.request("oar_old", clientId: clientId, expiresAt: cutoff - 1))
            try await repository.insert(at)
            try await repository.insert(Self.request("oar_new", clientId: clientId, expiresAt: cutoff + 1))
            // Codes and tokens expire on their own: an old code of a request that stays, a new token of a code that goes.
            let kept = Self.request("oar_kept", clientId: clientId, expiresAt: cutoff + 1)
            try await repository.insert(kept)
            #expect(try await repository.complete("oar_kept", code: Self.code("h_old", request: kept, expiresAt: cutoff - 1), at: Self.now))
            #expect(try await repository.complete("oar_at", code: Self.code("h_at", request: at, expiresAt: cutoff), at: Self.now))
            try await repository.insertToken(hash: "t_old", codeHash: "h_at", Self.token(clientId: clientId, expiresAt: cutoff - 1), at: Self.now)
            try await repository.insertToken(hash: "t_new", codeHash: "h_old", Self.token(clientId: clientId, expiresAt: cutoff + 1), at: Self.now)

            try await repository.purge(before: cutoff)
            #expect(try await repository.request("oar_old") == nil)
            #expect(try await repository.request("oar_at") != nil)
            #expect(try await repository.request("oar_new") != nil)
            #expect(try await repository.request("oar_kept")?.completedAt == Self.now)
            #expect(try await repository.code(hash: "h_old") == nil)
            #expect(try await repository.code(hash: "h_at") != nil)
            #expect(try await repository.token(hash: "t_old") == nil)
            #expect(try await repository.token(hash: "t_new") != nil)
            #expect(try await repository.settings(clientId: clientId) == settings)
            // What was kept still behaves: the code can be used once, the token revoked through its (purged) code.
            #expect(try await repository.markUsed(codeHash: "h_at", at: Self.now))
            try await repository.revokeTokens(codeHash: "h_old", at: Self.now + 1)
            #expect(try await repository.token(hash: "t_new")?.revokedAt == Self.now + 1)
        }
    }
}
