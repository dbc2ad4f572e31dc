import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The contract of ``SessionRepository`` that ``SQLSessionRepository`` (on SQLite and PostgreSQL) and
/// ``InMemorySessionRepository`` both keep, each case written once against `any SessionRepository`:
///
/// - `insert` stores a session used at its creation and not revoked; a token hash or ID used before,
///   an unknown user or an unknown device is refused.
/// - `find` answers the session by token hash whatever its state (revoked, expired: the service
///   judges), with its user's client and whether its device is revoked.
/// - `touch` records a use only when the last one is more than a minute old, never backwards.
/// - `list` answers all of a user's sessions, newest first, ties by ID.
/// - `revoke` revokes a session not yet revoked, only the given user's when one is given, and keeps the
///   first revocation time; `revokeAll` does that for every session of one device, nothing else.
/// - `bindDevice` binds a session that has no device and is not revoked, once.
/// - Writes look at revocation, never at expiry (``SessionService`` checks that before it writes).
/// - `purge` deletes what expired or was revoked strictly before the cutoff, nothing else.
/// - `introspect` answers only a session of the client's user that is not revoked, not expired, used
///   since `usedSince` (both strictly) and bound to an active device.
@Suite("Sessions: the repository's contract, in memory and in SQL")
struct SessionRepositoryConformanceTests {
    static let t0: Int64 = 1_800_000_000_000
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// What runs the cases: the double, and the SQL implementation on each engine `TestDatabase.kinds` names.
    enum Implementation: String, Sendable, CustomTestStringConvertible {
        case inMemory = "in memory"
        case sqlite = "SQL on SQLite"
        case postgres = "SQL on PostgreSQL"

        var testDescription: String { rawValue }

        static var all: [Implementation] { [.inMemory] + TestDatabase.kinds.map { $0 == .sqlite ? .sqlite : .postgres } }
    }

    /// Runs `body` against a fresh store of `implementation`.
    static func withStore(_ implementation: Implementation, _ body: (Store) async throws -> Void) async throws {
        switch implementation {
        case .inMemory:
            let double = InMemorySessionRepository()
            try await body(Store(repository: double, database: DetachedDatabase(), seed: Seeder(backing: .inMemory(double))))
        case .sqlite, .postgres:
            try await withTestRuntime(implementation == .sqlite ? .sqlite : .postgres) { runtime in
                try await body(Store(repository: SQLSessionRepository(), database: runtime.database, seed: Seeder(backing: .sql(runtime))))
            }
        }
    }

    @Test("insert stores every column; find answers it with its user's client, with or without a device", arguments: Implementation.all)
    func insertAndFind(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client(), other = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client), bob = try await store.seed.user("bob", client: other)
            let phone = try await store.seed.device("phone", user: alice, client: client)
            try await store.insert("ses_a", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_b", user: alice, at: Self.t0 + 1, expiresAt: Self.t0 + Self.hour)
            try await store.insert("ses_c", user: bob, at: Self.t0 + 2, expiresAt: Self.t0 + Self.hour)

            let a = try #require(try await store.find("ses_a"))
            #expect(StoredSession(a.0) == StoredSession(
                id: "ses_a", tokenHash: Store.hash("ses_a"), userId: alice, deviceId: phone, createdAt: Self.t0, lastUsedAt: Self.t0,
                expiresAt: Self.t0 + Self.day, revokedAt: nil
            ))
            #expect(a.clientId == client && !a.deviceRevoked)
            let b = try #require(try await store.find("ses_b"))
            #expect(StoredSession(b.0) == StoredSession(
                id: "ses_b", tokenHash: Store.hash("ses_b"), userId: alice, deviceId: nil, createdAt: Self.t0 + 1, lastUsedAt: Self.t0 + 1,
                expiresAt: Self.t0 + Self.hour, revokedAt: nil
            ))
            #expect(b.clientId == client && !b.deviceRevoked)
            #expect(try await store.find("ses_c")?.clientId == other)
            #expect(try await store.find("ses_unknown") == nil)
        }
    }

    @Test("insert refuses a token hash or an ID used before, an unknown user and an unknown device", arguments: Implementation.all)
    func insertConstraints(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            try await store.insert("ses_a", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            await #expect(throws: (any Error).self) {
                try await store.insert("ses_other", hash: Store.hash("ses_a"), user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            }
            await #expect(throws: (any Error).self) {
                try await store.insert("ses_a", hash: "another-hash", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            }
            await #expect(throws: (any Error).self) { try await store.insert("ses_nobody", user: "usr_nobody", at: Self.t0, expiresAt: Self.t0 + Self.day) }
            await #expect(throws: (any Error).self) {
                try await store.insert("ses_nodevice", user: alice, device: "dev_nowhere", at: Self.t0, expiresAt: Self.t0 + Self.day)
            }
            #expect(try await store.list(alice).map(\.id) == ["ses_a"])
            #expect(try await store.find("ses_a")?.0.user_id == alice)
        }
    }

    @Test("find answers revoked sessions as stored, and whether their device is revoked", arguments: Implementation.all)
    func findRevokedDevice(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            let phone = try await store.seed.device("phone", user: alice, client: client)
            let tablet = try await store.seed.device("tablet", user: alice, client: client)
            try await store.insert("ses_phone", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_tablet", user: alice, device: tablet, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.seed.revokeDevice(phone, now: Self.t0 + 5)
            // A revoked device's sessions are revoked with it (by the device's owner, through revokeAll).
            let revoked = try #require(try await store.find("ses_phone"))
            #expect(revoked.0.revoked_at == Self.t0 + 5 && revoked.deviceRevoked)
            // A session on a revoked device that is not revoked itself: find tells the device's state apart.
            try await store.insert("ses_late", user: alice, device: phone, at: Self.t0 + 10, expiresAt: Self.t0 + Self.day)
            let late = try #require(try await store.find("ses_late"))
            #expect(late.0.revoked_at == nil && late.deviceRevoked)
            let other = try #require(try await store.find("ses_tablet"))
            #expect(other.0.revoked_at == nil && !other.deviceRevoked)
        }
    }

    @Test("touch records a use only when the last one is more than a minute old, never backwards, on that session only", arguments: Implementation.all)
    func touch(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            try await store.insert("ses_a", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_b", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            func lastUse(_ id: String) async throws -> Int64? { try await store.find(id)?.0.last_used_at }

            try await store.touch("ses_a", now: Self.t0 + Self.minute)
            #expect(try await lastUse("ses_a") == Self.t0)
            try await store.touch("ses_a", now: Self.t0 + Self.minute + 1)
            #expect(try await lastUse("ses_a") == Self.t0 + Self.minute + 1)
            try await store.touch("ses_a", now: Self.t0 + Self.minute + 30_000)
            #expect(try await lastUse("ses_a") == Self.t0 + Self.minute + 1)
            try await store.touch("ses_a", now: Self.t0 - Self.hour)
            #expect(try await lastUse("ses_a") == Self.t0 + Self.minute + 1)
            try await store.touch("ses_unknown", now: Self.t0 + Self.hour)
            #expect(try await lastUse("ses_b") == Self.t0)
        }
    }

    @Test("list answers all of a user's sessions, ended ones too, newest first, ties by ID", arguments: Implementation.all)
    func list(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client), bob = try await store.seed.user("bob", client: client)
            try await store.insert("ses_1", user: alice, at: Self.t0, expiresAt: Self.t0 + 1)
            try await store.insert("ses_2b", user: alice, at: Self.t0 + 1, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_2a", user: alice, at: Self.t0 + 1, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_3", user: alice, at: Self.t0 + 2, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_bob", user: bob, at: Self.t0 + 3, expiresAt: Self.t0 + Self.day)
            #expect(try await store.run { try await $0.revoke(id: "ses_3", userId: nil, now: Self.t0 + 10, in: $1) })

            let listed = try await store.list(alice)
            #expect(listed.map(\.id) == ["ses_3", "ses_2a", "ses_2b", "ses_1"])
            #expect(listed.first?.revoked_at == Self.t0 + 10)
            for record in listed {
                #expect(try await store.find(record.id).map { StoredSession($0.0) } == StoredSession(record))
            }
            #expect(try await store.list(bob).map(\.id) == ["ses_bob"])
            #expect(try await store.list("usr_nobody").isEmpty)
        }
    }

    @Test("revoke: once, only the given user's, by the admin without one; expiry does not matter", arguments: Implementation.all)
    func revoke(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client), bob = try await store.seed.user("bob", client: client)
            try await store.insert("ses_a", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_b", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_old", user: alice, at: Self.t0, expiresAt: Self.t0 + 1)
            try await store.insert("ses_bob", user: bob, at: Self.t0, expiresAt: Self.t0 + Self.day)
            func revoke(_ id: String, by userId: String?, at now: Int64) async throws -> Bool {
                try await store.run { try await $0.revoke(id: id, userId: userId, now: now, in: $1) }
            }
            func revokedAt(_ id: String) async throws -> Int64? { try await store.find(id)?.0.revoked_at }

            #expect(try await revoke("ses_a", by: bob, at: Self.t0 + 10) == false)
            #expect(try await revokedAt("ses_a") == nil)
            #expect(try await revoke("ses_a", by: alice, at: Self.t0 + 20))
            #expect(try await revokedAt("ses_a") == Self.t0 + 20)
            #expect(try await revoke("ses_a", by: alice, at: Self.t0 + 30) == false)
            #expect(try await revoke("ses_a", by: nil, at: Self.t0 + 40) == false)
            #expect(try await revokedAt("ses_a") == Self.t0 + 20)
            #expect(try await revoke("ses_b", by: nil, at: Self.t0 + 50))
            #expect(try await revokedAt("ses_b") == Self.t0 + 50)
            #expect(try await revoke("ses_old", by: alice, at: Self.t0 + Self.hour))
            #expect(try await revokedAt("ses_old") == Self.t0 + Self.hour)
            #expect(try await revoke("ses_unknown", by: nil, at: Self.t0 + 60) == false)
            #expect(try await revokedAt("ses_bob") == nil)
        }
    }

    @Test("revokeAll revokes the device's sessions not yet revoked, and nothing else", arguments: Implementation.all)
    func revokeAll(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            let phone = try await store.seed.device("phone", user: alice, client: client)
            let tablet = try await store.seed.device("tablet", user: alice, client: client)
            try await store.insert("ses_p1", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_p2", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_p3", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + 1)
            try await store.insert("ses_t", user: alice, device: tablet, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_none", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            #expect(try await store.run { try await $0.revoke(id: "ses_p2", userId: nil, now: Self.t0 + 5, in: $1) })

            try await store.run { try await $0.revokeAll(deviceId: phone, now: Self.t0 + 10, in: $1) }
            try await store.run { try await $0.revokeAll(deviceId: "dev_nowhere", now: Self.t0 + 20, in: $1) }
            let revokedAt = Dictionary(uniqueKeysWithValues: try await store.list(alice).map { ($0.id, $0.revoked_at) })
            #expect(revokedAt == ["ses_p1": Self.t0 + 10, "ses_p2": Self.t0 + 5, "ses_p3": Self.t0 + 10, "ses_t": nil, "ses_none": nil])
            // Only the sessions: the device itself is the devices' owner's to revoke.
            #expect(try await store.find("ses_p1")?.deviceRevoked == false)
        }
    }

    @Test("bindDevice binds a session without a device that is not revoked, once; expiry does not matter", arguments: Implementation.all)
    func bindDevice(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            let phone = try await store.seed.device("phone", user: alice, client: client)
            let tablet = try await store.seed.device("tablet", user: alice, client: client)
            try await store.insert("ses_a", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_bound", user: alice, device: phone, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_revoked", user: alice, at: Self.t0, expiresAt: Self.t0 + Self.day)
            try await store.insert("ses_old", user: alice, at: Self.t0, expiresAt: Self.t0 + 1)
            #expect(try await store.run { try await $0.revoke(id: "ses_revoked", userId: nil, now: Self.t0 + 5, in: $1) })
            func bind(_ id: String, to deviceId: String) async throws -> Bool {
                try await store.run { try await $0.bindDevice(tokenHash: Store.hash(id), deviceId: deviceId, in: $1) }
            }
            func device(_ id: String) async throws -> String? { try await store.find(id)?.0.device_id }

            #expect(try await bind("ses_a", to: phone))
            #expect(try await device("ses_a") == phone)
            #expect(try await bind("ses_a", to: tablet) == false)
            #expect(try await device("ses_a") == phone)
            #expect(try await bind("ses_bound", to: tablet) == false)
            #expect(try await device("ses_bound") == phone)
            #expect(try await bind("ses_revoked", to: tablet) == false)
            #expect(try await device("ses_revoked") == nil)
            #expect(try await bind("ses_old", to: tablet))
            #expect(try await device("ses_old") == tablet)
            #expect(try await bind("ses_unknown", to: phone) == false)
        }
    }

    @Test("purge deletes what expired or was revoked before the cutoff and keeps the rest, however old", arguments: Implementation.all)
    func purge(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            let cutoff = Self.t0 + 10 * Self.day, far = Self.t0 + 100 * Self.day
            try await store.insert("ses_expired", user: alice, at: Self.t0, expiresAt: cutoff - 1)
            try await store.insert("ses_expires_at_cutoff", user: alice, at: Self.t0, expiresAt: cutoff)
            try await store.insert("ses_revoked", user: alice, at: Self.t0, expiresAt: far)
            try await store.insert("ses_revoked_at_cutoff", user: alice, at: Self.t0, expiresAt: far)
            try await store.insert("ses_revoked_later", user: alice, at: Self.t0, expiresAt: far)
            try await store.insert("ses_live", user: alice, at: Self.t0 - 100 * Self.day, expiresAt: far)
            for (id, now) in [("ses_revoked", cutoff - 1), ("ses_revoked_at_cutoff", cutoff), ("ses_revoked_later", cutoff + 1)] {
                #expect(try await store.run { try await $0.revoke(id: id, userId: nil, now: now, in: $1) })
            }

            try await store.run { try await $0.purge(endedBefore: cutoff, in: $1) }
            #expect(try await store.list(alice).map(\.id).sorted() == ["ses_expires_at_cutoff", "ses_live", "ses_revoked_at_cutoff", "ses_revoked_later"])
            #expect(try await store.find("ses_expired") == nil)
            #expect(try await store.find("ses_revoked") == nil)
        }
    }

    @Test("introspect answers a live session on an active device for its client only, with strict bounds", arguments: Implementation.all)
    func introspect(_ implementation: Implementation) async throws {
        try await Self.withStore(implementation) { store in
            let client = try await store.seed.client(), other = try await store.seed.client()
            let alice = try await store.seed.user("alice", client: client)
            let phone = try await store.seed.device("phone", user: alice, client: client)
            let tablet = try await store.seed.device("tablet", user: alice, client: client)
            let expires = Self.t0 + Self.day
            try await store.insert("ses_live", user: alice, device: phone, at: Self.t0, expiresAt: expires)
            try await store.insert("ses_pending", user: alice, at: Self.t0, expiresAt: expires)
            try await store.insert("ses_revoked", user: alice, device: phone, at: Self.t0, expiresAt: expires)
            try await store.insert("ses_tablet", user: alice, device: tablet, at: Self.t0, expiresAt: expires)
            #expect(try await store.run { try await $0.revoke(id: "ses_revoked", userId: nil, now: Self.t0 + 1, in: $1) })
            func introspect(_ id: String, client asked: String? = nil, now: Int64 = Self.t0 + Self.minute, usedSince: Int64 = Self.t0 - 1)
                async throws -> IntrospectedSession? {
                let clientId = asked ?? client
                return try await store.run {
                    try await $0.introspect(tokenHash: Store.hash(id), clientId: clientId, now: now, usedSince: usedSince, in: $1)
                }
            }

            let live = try #require(try await introspect("ses_live"))
            #expect(live.created_at == Self.t0 && live.expires_at == expires && live.device_id == phone && live.user_key == "alice")
            #expect(try await introspect("ses_live", client: other) == nil)
            #expect(try await introspect("ses_live", now: expires - 1) != nil)
            #expect(try await introspect("ses_live", now: expires) == nil)
            #expect(try await introspect("ses_live", usedSince: Self.t0) == nil)
            try await store.touch("ses_live", now: Self.t0 + 2 * Self.minute)
            #expect(try await introspect("ses_live", now: Self.t0 + 3 * Self.minute, usedSince: Self.t0 + 2 * Self.minute - 1) != nil)
            #expect(try await introspect("ses_pending") == nil)
            #expect(try await introspect("ses_revoked") == nil)
            #expect(try await introspect("ses_unknown") == nil)

            // A revoked device: its sessions (revoked with it) and one made on it later (not revoked) are not answered.
            #expect(try await introspect("ses_tablet") != nil)
            try await store.seed.revokeDevice(tablet, now: Self.t0 + 2)
            try await store.insert("ses_tablet_late", user: alice, device: tablet, at: Self.t0 + 3, expiresAt: expires)
            #expect(try await introspect("ses_tablet") == nil)
            #expect(try await introspect("ses_tablet_late") == nil)
            #expect(try await introspect("ses_live") != nil)
        }
    }
}

extension SessionRepositoryConformanceTests {
    /// One implementation under test: its repository, a transaction runner and the seeding helper.
    struct Store: Sendable {
        let repository: any SessionRepository
        let database: any Database
        let seed: Seeder

        /// The token hash the shorthands give a session: derived from its ID.
        static func hash(_ id: String) -> String { "th_" + id }

        /// Runs `body` with the repository in one transaction (which the double ignores).
        func run<T: Sendable>(_ body: @escaping @Sendable (any SessionRepository, any SQLDatabase) async throws -> T) async throws -> T {
            let repository = self.repository
            return try await database.transaction { try await body(repository, $0) }
        }

        func insert(_ id: String, hash: String? = nil, user: String, device: String? = nil, at now: Int64, expiresAt: Int64) async throws {
            let tokenHash = hash ?? Self.hash(id)
            try await run { try await $0.insert(id: id, tokenHash: tokenHash, userId: user, deviceId: device, now: now, expiresAt: expiresAt, in: $1) }
        }

        func find(_ id: String) async throws -> (SessionRecord, clientId: String, deviceRevoked: Bool)? {
            try await run { try await $0.find(tokenHash: Self.hash(id), in: $1) }
        }

        func touch(_ id: String, now: Int64) async throws {
            try await run { try await $0.touch(tokenHash: Self.hash(id), now: now, in: $1) }
        }

        func list(_ userId: String) async throws -> [SessionRecord] {
            try await run { try await $0.list(userId: userId, in: $1) }
        }
    }

    /// The one seeding helper: the rows of other domains the sessions' queries join (clients, users,
    /// devices). On SQL they are written through their own repositories; the double is told
    /// (``InMemorySessionRepository/register(userId:clientId:userKey:)`` and the like).
    struct Seeder: Sendable {
        enum Backing: Sendable {
            case sql(TesseraRuntime)
            case inMemory(InMemorySessionRepository)
        }

        let backing: Backing

        /// A new client's ID.
        func client() async throws -> String {
            switch backing {
            case .sql(let runtime): try await runtime.clients.create(name: "Sessions", bundleIds: ["com.example.sessions"]).client.id
            case .inMemory: "cli_" + UUID().uuidString
            }
        }

        /// A user of `client` with user key `key`; returns its ID, `usr_<key>`.
        func user(_ key: String, client: String) async throws -> String {
            let id = "usr_\(key)"
            switch backing {
            case .sql(let runtime):
                let users = runtime.repositories.users
                let user = UserRecord(
                    id: id, clientId: client, userKey: key, name: key, email: "\(key)@example.org", phone: "+41 \(key)", localAuthType: "none",
                    createdAt: t0
                )
                try await runtime.database.transaction { try await users.insert(user, in: $0) }
            case .inMemory(let double):
                double.register(userId: id, clientId: client, userKey: key)
            }
            return id
        }

        /// An active device of `user`; returns its ID, `dev_<name>`.
        func device(_ name: String, user: String, client: String) async throws -> String {
            let id = "dev_\(name)"
            switch backing {
            case .sql(let runtime):
                let devices = runtime.repositories.devices
                let device = DeviceRecord(
                    id: id, userId: user, clientId: client, deviceKey: "key-\(name)", userVerificationKey: "uv-\(name)", os: "iOS", appVersion: "1.0",
                    pushToken: "", totpSecretSealed: "", createdAt: t0
                )
                try await runtime.database.transaction { try await devices.insert(device, in: $0) }
            case .inMemory(let double):
                double.register(deviceId: id)
            }
            return id
        }

        /// Revokes a device as its owner does (`SQLDeviceRepository.revoke`): the device, and its sessions
        /// through ``SessionRepository/revokeAll(deviceId:now:in:)``.
        func revokeDevice(_ id: String, now: Int64) async throws {
            switch backing {
            case .sql(let runtime):
                let devices = runtime.repositories.devices
                #expect(try await runtime.database.transaction { try await devices.revoke(deviceId: id, now: now, in: $0) })
            case .inMemory(let double):
                double.revokeDevice(id)
                try await double.revokeAll(deviceId: id, now: now, in: DetachedSQL())
            }
        }
    }

    /// A session's columns, compared as a whole.
    struct StoredSession: Equatable {
        var id: String
        var tokenHash: String
        var userId: String
        var deviceId: String?
        var createdAt: Int64
        var lastUsedAt: Int64
        var expiresAt: Int64
        var revokedAt: Int64?

        init(
            id: String, tokenHash: String, userId: String, deviceId: String?, createdAt: Int64, lastUsedAt: Int64, expiresAt: Int64, revokedAt: Int64?
        ) {
            self.id = id
            self.tokenHash = tokenHash
            self.userId = userId
            self.deviceId = deviceId
            self.createdAt = createdAt
            self.lastUsedAt = lastUsedAt
            self.expiresAt = expiresAt
            self.revokedAt = revokedAt
        }

        init(_ record: SessionRecord) {
            self.init(
                id: record.id, tokenHash: record.token_hash, userId: record.user_id, deviceId: record.device_id, createdAt: record.created_at,
                lastUsedAt: record.last_used_at, expiresAt: record.expires_at, revokedAt: record.revoked_at
            )
        }
    }
}
