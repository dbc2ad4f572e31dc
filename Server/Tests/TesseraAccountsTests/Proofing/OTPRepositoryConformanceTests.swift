import SQLKit
import Testing
import TesseraCore
// `OTPBinding`'s memberwise initializer is internal to TesseraAccounts.
@testable import TesseraAccounts
@testable import TesseraServer
import TesseraServerTestSupport

/// The implementations of ``OTPRepository`` the conformance suite runs against.
enum OTPRepositoryImplementation: String, Sendable, CustomTestStringConvertible {
    /// ``InMemoryOTPRepository``, the services' test double.
    case inMemory
    /// ``SQLOTPRepository`` on SQLite.
    case sqlite
    /// ``SQLOTPRepository`` on PostgreSQL.
    case postgres

    var testDescription: String { rawValue }

    /// The double always; SQL on each engine the storage suites run on (``TestDatabase/kinds``).
    static var all: [OTPRepositoryImplementation] {
        [.inMemory] + TestDatabase.kinds.map { $0 == .sqlite ? .sqlite : .postgres }
    }

    /// Runs `body` on a fresh repository of this implementation, then closes and removes its database.
    func withHarness(_ body: (OTPRepositoryHarness) async throws -> Void) async throws {
        let harness: OTPRepositoryHarness
        let drop: @Sendable () async -> Void
        switch self {
        case .inMemory:
            // A database without a schema, only to open transactions with: the double must not need one.
            let (database, dropDatabase) = try await TestDatabase.sqlite.open()
            harness = OTPRepositoryHarness(repository: InMemoryOTPRepository(), database: database)
            drop = dropDatabase
        case .sqlite, .postgres:
            let (database, dropDatabase) = try await (self == .sqlite ? TestDatabase.sqlite : .postgres).open()
            drop = dropDatabase
            do {
                try await Migrator.migrate(database)
                // The challenges and dispose tokens reference their client.
                let clients = SQLClientRepository(database: database)
                for id in [OTPBinding.a.clientId, OTPBinding.otherClient.clientId] {
                    try await clients.insert(
                        Client(id: id, clientKey: "key_\(id)", name: id, bundleIds: ["com.example.\(id)"], enabled: true, createdAt: 0),
                        secretHash: "unused"
                    )
                }
            } catch {
                await database.close()
                await drop()
                throw error
            }
            harness = OTPRepositoryHarness(repository: SQLOTPRepository(), database: database)
        }
        do {
            try await body(harness)
        } catch {
            await harness.database.close()
            await drop()
            throw error
        }
        await harness.database.close()
        await drop()
    }
}

/// A repository with a database to run its methods in: each call below is a transaction of its own,
/// as a service's would be.
struct OTPRepositoryHarness: Sendable {
    let repository: any OTPRepository
    let database: any Database

    func run<T: Sendable>(_ body: @escaping @Sendable (any OTPRepository, any SQLDatabase) async throws -> T) async throws -> T {
        let repository = self.repository
        return try await database.transaction { sql in try await body(repository, sql) }
    }

    func gate(_ key: String, at now: Int64, cooldown: Duration = .seconds(30)) async throws -> Int64? {
        try await run { try await $0.passCooldownGate(key, now: now, cooldown: cooldown, in: $1) }
    }

    func insert(_ id: String, _ binding: OTPBinding = .a, hash: String = "hash", at now: Int64, expiresAt: Int64) async throws {
        try await run { try await $0.insertChallenge(id: id, binding: binding, codeHash: hash, now: now, expiresAt: expiresAt, in: $1) }
    }

    func latest(_ binding: OTPBinding = .a) async throws -> String? {
        try await run { try await $0.latestOpenChallenge(binding, in: $1) }
    }

    func supersede(_ binding: OTPBinding = .a, at now: Int64) async throws {
        try await run { try await $0.supersede(binding, now: now, in: $1) }
    }

    func claim(_ id: String, at now: Int64, max: Int = 5) async throws -> (codeHash: String, attempts: Int)? {
        try await run { try await $0.claimAttempt(id: id, now: now, maxAttempts: max, in: $1) }
    }

    func state(_ id: String) async throws -> ChallengeState? {
        try await run { try await $0.state(id: id, in: $1) }
    }

    func consume(_ id: String, at now: Int64) async throws -> Bool {
        try await run { try await $0.consume(id: id, now: now, in: $1) }
    }

    func insertToken(_ hash: String, _ binding: OTPBinding = .a, at now: Int64, expiresAt: Int64) async throws {
        try await run { try await $0.insertDisposeToken(hash: hash, binding: binding, now: now, expiresAt: expiresAt, in: $1) }
    }

    func consumeToken(_ hash: String, client: String = OTPBinding.a.clientId, purpose: OTPPurpose = .signup, at now: Int64) async throws
        -> DisposeTokenRecord?
    {
        try await run { try await $0.consumeDisposeToken(hash: hash, clientId: client, purpose: purpose, now: now, in: $1) }
    }

    func purge(before cutoff: Int64) async throws {
        try await run { try await $0.purge(before: cutoff, in: $1) }
    }
}

extension OTPBinding {
    static let a = OTPBinding(clientId: "cl_a", channel: .email, target: "a@example.com", purpose: .signup)
    static let otherClient = OTPBinding(clientId: "cl_b", channel: .email, target: "a@example.com", purpose: .signup)
    static let otherChannel = OTPBinding(clientId: "cl_a", channel: .sms, target: "a@example.com", purpose: .signup)
    static let otherTarget = OTPBinding(clientId: "cl_a", channel: .email, target: "b@example.com", purpose: .signup)
    static let otherPurpose = OTPBinding(clientId: "cl_a", channel: .email, target: "a@example.com", purpose: .recovery)
    /// The bindings that differ from ``a`` in exactly one part.
    static let neighbours: [OTPBinding] = [otherClient, otherChannel, otherTarget, otherPurpose]
}

/// The contract of ``OTPRepository`` that both implementations keep: ``SQLOTPRepository`` (on SQLite and
/// on PostgreSQL) and its in-memory test double ``InMemoryOTPRepository``. Each case is written once
/// against the protocol and runs on all three, so the double cannot drift from the SQL it stands in for:
/// the send cooldown gate, supersede, the newest open challenge, counted tries (limit, expiry), consume
/// once, single-use dispose tokens bound to client and purpose, and the purge cutoff. Times are injected.
@Suite("OTP repository conformance")
struct OTPRepositoryConformanceTests {
    static let t0: Int64 = 1_800_000_000_000
    static let lifetime: Int64 = 300_000

    @Test("the cooldown gate lets a send through, then refuses until the cooldown has passed, per key", arguments: OTPRepositoryImplementation.all)
    func cooldownGate(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { (repo) async throws in
            let t0 = Self.t0
            #expect(try await repo.gate("k", at: t0) == nil)
            // Refused with the time the next send is allowed; a refused try does not push that time further.
            #expect(try await repo.gate("k", at: t0 + 1) == t0 + 30_000)
            #expect(try await repo.gate("k", at: t0 + 29_999) == t0 + 30_000)
            // Another key has its own gate.
            #expect(try await repo.gate("other", at: t0 + 1) == nil)
            // At the allowed time exactly, it lets through and starts a new cooldown from then.
            #expect(try await repo.gate("k", at: t0 + 30_000, cooldown: .seconds(60)) == nil)
            #expect(try await repo.gate("k", at: t0 + 30_001) == t0 + 90_000)
            // A zero cooldown never refuses.
            #expect(try await repo.gate("zero", at: t0, cooldown: .zero) == nil)
            #expect(try await repo.gate("zero", at: t0, cooldown: .zero) == nil)
        }
    }

    @Test("a new challenge has no tries and is open; an ID is unique; an unknown ID has no state", arguments: OTPRepositoryImplementation.all)
    func insertAndState(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            try await repo.insert("c1", at: t0, expiresAt: t0 + Self.lifetime)
            let state = try #require(try await repo.state("c1"))
            #expect(state.attempts == 0 && state.expires_at == t0 + Self.lifetime && state.consumed_at == nil)
            #expect(try await repo.latest() == "c1")
            await #expect(throws: (any Error).self) { try await repo.insert("c1", .otherTarget, at: t0 + 1, expiresAt: t0 + Self.lifetime) }
            // The refused insert changed nothing.
            #expect(try await repo.latest(.otherTarget) == nil)
            #expect(try await repo.state("unknown") == nil)
        }
    }

    @Test("the latest open challenge is the newest by creation time, unused and not superseded, of this exact binding", arguments: OTPRepositoryImplementation.all)
    func latestOpenChallenge(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            #expect(try await repo.latest() == nil)
            // Newest by `created_at`, not by the order of insertion.
            try await repo.insert("newer", at: t0 + 2_000, expiresAt: t0 + Self.lifetime)
            try await repo.insert("older", at: t0 + 1_000, expiresAt: t0 + Self.lifetime)
            #expect(try await repo.latest() == "newer")
            // A binding differing in any one part (client, channel, target, purpose) has its own challenges.
            for binding in OTPBinding.neighbours { #expect(try await repo.latest(binding) == nil, "\(binding)") }
            // A used challenge is no longer open: the older one is the latest open one again.
            #expect(try await repo.consume("newer", at: t0 + 3_000))
            #expect(try await repo.latest() == "older")
            // An expired challenge that was never used is still the latest open one (so a verify can say "expired").
            #expect(try await repo.claim("older", at: t0 + Self.lifetime) == nil)
            #expect(try await repo.latest() == "older")
        }
    }

    @Test("supersede ends every live challenge of the binding, and only those", arguments: OTPRepositoryImplementation.all)
    func supersede(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            try await repo.insert("used", at: t0, expiresAt: t0 + Self.lifetime)
            #expect(try await repo.consume("used", at: t0 + 500))
            try await repo.insert("first", at: t0 + 1_000, expiresAt: t0 + Self.lifetime)
            try await repo.insert("second", at: t0 + 2_000, expiresAt: t0 + Self.lifetime)
            for (index, binding) in OTPBinding.neighbours.enumerated() {
                try await repo.insert("neighbour\(index)", binding, at: t0 + 2_000, expiresAt: t0 + Self.lifetime)
            }
            try await repo.supersede(at: t0 + 3_000)
            #expect(try await repo.latest() == nil)
            #expect(try await repo.state("first")?.consumed_at == t0 + 3_000)
            #expect(try await repo.state("second")?.consumed_at == t0 + 3_000)
            // An already used challenge keeps the time it was used.
            #expect(try await repo.state("used")?.consumed_at == t0 + 500)
            // A superseded code can no longer be tried or used.
            #expect(try await repo.claim("second", at: t0 + 3_001) == nil)
            #expect(try await repo.consume("second", at: t0 + 3_001) == false)
            for (index, binding) in OTPBinding.neighbours.enumerated() {
                #expect(try await repo.latest(binding) == "neighbour\(index)", "\(binding)")
                #expect(try await repo.state("neighbour\(index)")?.consumed_at == nil)
            }
            // The code sent after the supersede is the one that works.
            try await repo.insert("third", at: t0 + 3_000, expiresAt: t0 + 3_000 + Self.lifetime)
            #expect(try await repo.latest() == "third")
            #expect(try await repo.claim("third", at: t0 + 3_001)?.attempts == 1)
        }
    }

    @Test("each claimed try is counted and returns the stored hash; none beyond the limit", arguments: OTPRepositoryImplementation.all)
    func claimAttemptLimit(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            try await repo.insert("c", hash: "stored-hash", at: t0, expiresAt: t0 + Self.lifetime)
            for expected in 1...3 {
                let claimed = try #require(try await repo.claim("c", at: t0 + Int64(expected), max: 3))
                #expect(claimed.codeHash == "stored-hash")
                #expect(claimed.attempts == expected)
                #expect(try await repo.state("c")?.attempts == expected)
            }
            // The fourth try is refused and not counted; the challenge is locked, not used.
            #expect(try await repo.claim("c", at: t0 + 4, max: 3) == nil)
            #expect(try await repo.claim("c", at: t0 + 5, max: 3) == nil)
            let locked = try #require(try await repo.state("c"))
            #expect(locked.attempts == 3 && locked.consumed_at == nil)
            // The limit is the caller's: a higher one lets the next try through.
            #expect(try await repo.claim("c", at: t0 + 6, max: 4)?.attempts == 4)
        }
    }

    @Test("a try is refused on an expired, used or unknown challenge, and not counted", arguments: OTPRepositoryImplementation.all)
    func claimAttemptRefusals(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0, expiry = t0 + Self.lifetime
            try await repo.insert("c", at: t0, expiresAt: expiry)
            // Live until the millisecond before `expires_at`; expired from it on.
            #expect(try await repo.claim("c", at: expiry - 1)?.attempts == 1)
            #expect(try await repo.claim("c", at: expiry) == nil)
            #expect(try await repo.claim("c", at: expiry + 1) == nil)
            #expect(try await repo.state("c")?.attempts == 1)
            try await repo.insert("used", at: t0, expiresAt: expiry)
            #expect(try await repo.consume("used", at: t0 + 1))
            #expect(try await repo.claim("used", at: t0 + 2) == nil)
            #expect(try await repo.state("used")?.attempts == 0)
            #expect(try await repo.claim("unknown", at: t0) == nil)
        }
    }

    @Test("a challenge is consumed once: the second use fails and keeps the first use's time", arguments: OTPRepositoryImplementation.all)
    func consumeOnce(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            try await repo.insert("c", at: t0, expiresAt: t0 + Self.lifetime)
            #expect(try await repo.claim("c", at: t0 + 1)?.attempts == 1)
            #expect(try await repo.consume("c", at: t0 + 10))
            #expect(try await repo.consume("c", at: t0 + 20) == false)
            let state = try #require(try await repo.state("c"))
            #expect(state.consumed_at == t0 + 10 && state.attempts == 1)
            #expect(try await repo.consume("unknown", at: t0) == false)
            // Consuming checks use, not expiry (the claimed try before it checked expiry).
            try await repo.insert("late", at: t0, expiresAt: t0 + 1)
            #expect(try await repo.consume("late", at: t0 + Self.lifetime))
        }
    }

    @Test("concurrent tries and uses never exceed the limit or use a challenge twice", arguments: OTPRepositoryImplementation.all)
    func concurrentClaimsAndConsumes(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0
            try await repo.insert("c", at: t0, expiresAt: t0 + Self.lifetime)
            let claimed = try await withThrowingTaskGroup(of: Int?.self) { group in
                for _ in 0..<12 { group.addTask { try await repo.claim("c", at: t0 + 1, max: 5)?.attempts } }
                return try await group.reduce(into: [Int]()) { if let attempts = $1 { $0.append(attempts) } }
            }
            #expect(claimed.sorted() == [1, 2, 3, 4, 5])
            try await repo.insert("once", at: t0, expiresAt: t0 + Self.lifetime)
            let consumed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 { group.addTask { try await repo.consume("once", at: t0 + Int64(index)) } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(consumed == 1)
        }
    }

    @Test("a dispose token is used once, before it expires, by its client for its purpose", arguments: OTPRepositoryImplementation.all)
    func disposeToken(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0, expiry = t0 + 600_000
            let binding = OTPBinding(clientId: "cl_a", channel: .sms, target: "+41446681800", purpose: .recovery)
            try await repo.insertToken("token", binding, at: t0, expiresAt: expiry)
            // Another client or another purpose cannot use it, and does not use it up.
            #expect(try await repo.consumeToken("token", client: "cl_b", purpose: .recovery, at: t0 + 1) == nil)
            #expect(try await repo.consumeToken("token", client: "cl_a", purpose: .signup, at: t0 + 1) == nil)
            #expect(try await repo.consumeToken("unknown", client: "cl_a", purpose: .recovery, at: t0 + 1) == nil)
            let record = try await repo.consumeToken("token", client: "cl_a", purpose: .recovery, at: t0 + 2)
            #expect(record == DisposeTokenRecord(client_id: "cl_a", channel: "sms", target: "+41446681800", purpose: "recovery", expires_at: expiry))
            #expect(try await repo.consumeToken("token", client: "cl_a", purpose: .recovery, at: t0 + 3) == nil)
            // Usable until the millisecond before `expires_at`.
            try await repo.insertToken("late", at: t0, expiresAt: expiry)
            #expect(try await repo.consumeToken("late", at: expiry) == nil)
            #expect(try await repo.consumeToken("late", at: expiry - 1)?.target == "a@example.com")
            // A token hash is unique.
            await #expect(throws: (any Error).self) { try await repo.insertToken("late", .otherPurpose, at: t0, expiresAt: expiry) }
            #expect(try await repo.consumeToken("late", purpose: .recovery, at: t0) == nil)
        }
    }

    @Test("purge removes challenges, gates and tokens that ended before the cutoff, and nothing else", arguments: OTPRepositoryImplementation.all)
    func purge(_ implementation: OTPRepositoryImplementation) async throws {
        try await implementation.withHarness { repo in
            let t0 = Self.t0, cutoff = t0 + 60_000
            // Challenges by `expires_at`, used or not.
            try await repo.insert("ended", at: t0, expiresAt: cutoff - 1)
            try await repo.insert("used", at: t0, expiresAt: cutoff - 1)
            #expect(try await repo.consume("used", at: t0 + 1))
            try await repo.insert("edge", at: t0, expiresAt: cutoff)
            try await repo.insert("live", at: t0, expiresAt: cutoff + 1)
            // Gates by `next_allowed_at`: a purged gate no longer refuses, even at a time it would have.
            #expect(try await repo.gate("ended", at: t0, cooldown: .milliseconds(59_999)) == nil)
            #expect(try await repo.gate("edge", at: t0, cooldown: .seconds(60)) == nil)
            // Tokens by `expires_at`: a purged token can no longer be used, even at a time it would have been.
            try await repo.insertToken("ended", at: t0, expiresAt: cutoff - 1)
            try await repo.insertToken("edge", at: t0, expiresAt: cutoff)

            try await repo.purge(before: cutoff)

            #expect(try await repo.state("ended") == nil)
            #expect(try await repo.state("used") == nil)
            #expect(try await repo.state("edge") != nil)
            #expect(try await repo.state("live") != nil)
            #expect(try await repo.gate("ended", at: t0 + 1) == nil)
            #expect(try await repo.gate("edge", at: t0 + 1) == cutoff)
            #expect(try await repo.consumeToken("ended", at: t0 + 1) == nil)
            #expect(try await repo.consumeToken("edge", at: t0 + 1)?.expires_at == cutoff)
        }
    }
}
