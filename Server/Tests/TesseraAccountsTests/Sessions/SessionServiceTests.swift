import Crypto
import Foundation
import SQLKit
import Synchronization
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// ``SessionService``'s rules on ``InMemorySessionRepository``, with no database at all (its handle is
/// ``DetachedDatabase``'s) and a manual clock: which client a token works for, the idle timeout, the
/// lifetime, the pending lifetime of a session without a device key, revocation and its audit event,
/// the order of a user's list.
@Suite("Sessions: the service's rules, on the in-memory repository")
struct SessionServiceTests {
    static let start: Int64 = 1_800_000_000_000
    static let client = Client(id: "cli_a", clientKey: "tck_a", name: "A", bundleIds: ["com.example.a"], enabled: true, createdAt: 0)
    static let otherClient = Client(id: "cli_b", clientKey: "tck_b", name: "B", bundleIds: ["com.example.b"], enabled: true, createdAt: 0)

    /// A service over a fresh double that knows alice and bob (of ``client``) and the devices
    /// `dev_phone` and `dev_tablet`: 3 h lifetime, 1 h idle timeout, 15 min without a device key.
    struct Fixture {
        let clock = ManualClock(start: SessionServiceTests.start)
        let sessions = InMemorySessionRepository()
        let audit = RecordingAuditLog()
        let service: SessionService

        init() {
            service = SessionService(
                database: DetachedDatabase(), repository: sessions, users: SQLUserRepository(), audit: audit,
                hasher: SecretHasher(key: SymmetricKey(size: .bits256)), random: .system, clock: clock.clock,
                lifetime: .seconds(3 * 3600), idleTimeout: .seconds(3600), pendingLifetime: .seconds(900)
            )
            sessions.register(userId: "usr_alice", clientId: SessionServiceTests.client.id, userKey: "alice")
            sessions.register(userId: "usr_bob", clientId: SessionServiceTests.client.id, userKey: "bob")
            sessions.register(deviceId: "dev_phone")
            sessions.register(deviceId: "dev_tablet")
        }

        func create(_ userId: String, device: String?) async throws -> SessionService.Created {
            try await service.create(userId: userId, deviceId: device, now: clock.clock.now(), in: DetachedSQL())
        }

        func authenticate(_ created: SessionService.Created, client: Client = SessionServiceTests.client) async throws -> SessionService.Authenticated {
            try await service.authenticate(token: created.token, client: client)
        }
    }

    @Test("a token works for its own client only; an unknown token is 7101")
    func clients() async throws {
        let fixture = Fixture()
        let created = try await fixture.create("usr_alice", device: "dev_phone")
        let session = try await fixture.authenticate(created)
        #expect(session.id == created.id && session.userId == "usr_alice" && session.deviceId == "dev_phone")
        await expectCode(.sessionInvalid) { _ = try await fixture.authenticate(created, client: Self.otherClient) }
        await expectCode(.sessionInvalid) { _ = try await fixture.service.authenticate(token: "tss_forged", client: Self.client) }
    }

    @Test("a session ends when idle, at its lifetime however used, and without a device key after the pending lifetime")
    func expiry() async throws {
        let fixture = Fixture()
        let used = try await fixture.create("usr_alice", device: "dev_phone")
        let idle = try await fixture.create("usr_alice", device: "dev_phone")
        let pending = try await fixture.create("usr_alice", device: nil)
        let bound = try await fixture.create("usr_alice", device: nil)

        fixture.clock.advance(by: .seconds(600))  // 10 min
        _ = try await fixture.authenticate(pending)
        let hash = try await fixture.authenticate(bound).tokenHash
        #expect(try await fixture.sessions.bindDevice(tokenHash: hash, deviceId: "dev_tablet", in: DetachedSQL()))

        fixture.clock.advance(by: .seconds(2400))  // 50 min
        _ = try await fixture.authenticate(used)
        // Used 40 minutes ago, but it never got a device key: it ended 15 minutes after its creation.
        await expectCode(.sessionExpired) { _ = try await fixture.authenticate(pending) }
        // Bound to a device before then: it lives on.
        _ = try await fixture.authenticate(bound)

        // A use is recorded at most once a minute.
        fixture.clock.advance(by: .seconds(30))
        _ = try await fixture.authenticate(used)
        let lastUse = try await fixture.service.list(userId: "usr_alice", currentId: nil).sessions.first { $0.id == used.id }?.lastUsedAt
        #expect(lastUse == Self.start + 50 * 60_000)

        fixture.clock.advance(by: .seconds(630))  // 61 min: `idle` was never used
        await expectCode(.sessionExpired) { _ = try await fixture.authenticate(idle) }
        _ = try await fixture.authenticate(used)
        for _ in 0..<2 {
            fixture.clock.advance(by: .seconds(3000))
            _ = try await fixture.authenticate(used)
        }
        // 161 minutes, just used; at 181 minutes it is past its 3 hours, however recently used.
        fixture.clock.advance(by: .seconds(1200))
        await expectCode(.sessionExpired) { _ = try await fixture.authenticate(used) }
    }

    @Test("revoking another user's session is 7105 and logs nothing; a revocation is logged; revoked sessions and devices are 7103")
    func revocation() async throws {
        let fixture = Fixture()
        let alice = try await fixture.create("usr_alice", device: "dev_phone")
        let tablet = try await fixture.create("usr_alice", device: "dev_tablet")
        let actor = try await fixture.authenticate(alice).auditActor

        await expectCode(.sessionUnknown) { try await fixture.service.revoke(id: alice.id, userId: "usr_bob", by: actor) }
        #expect(fixture.audit.events.isEmpty)
        _ = try await fixture.authenticate(alice)

        try await fixture.service.revoke(id: alice.id, userId: "usr_alice", by: actor)
        #expect(actor == AuditEvent.device("dev_phone"))
        #expect(fixture.audit.events == [AuditEvent("session.revoked", actor: actor, userId: "usr_alice", sessionId: alice.id)])
        await expectCode(.sessionRevoked) { _ = try await fixture.authenticate(alice) }
        await expectCode(.sessionUnknown) { try await fixture.service.revoke(id: alice.id, userId: nil) }
        #expect(fixture.audit.events.count == 1)

        // The device alone revoked (its sessions not yet): the session is refused all the same.
        _ = try await fixture.authenticate(tablet)
        fixture.sessions.revokeDevice("dev_tablet")
        await expectCode(.sessionRevoked) { _ = try await fixture.authenticate(tablet) }
    }

    @Test("a user's list: live sessions first, newest first, then ended ones; the caller's is marked current")
    func list() async throws {
        let fixture = Fixture()
        let first = try await fixture.create("usr_alice", device: "dev_phone")
        fixture.clock.advance(by: .seconds(60))
        let second = try await fixture.create("usr_alice", device: "dev_phone")
        fixture.clock.advance(by: .seconds(60))
        let third = try await fixture.create("usr_alice", device: "dev_phone")
        _ = try await fixture.create("usr_bob", device: nil)
        try await fixture.service.revoke(id: third.id, userId: nil)

        let listed = try await fixture.service.list(userId: "usr_alice", currentId: first.id).sessions
        #expect(listed.map(\.id) == [second.id, first.id, third.id])
        #expect(listed.map(\.current) == [false, true, false])
        #expect(listed.last?.revokedAt == Self.start + 120_000)
    }
}

extension SessionServiceTests {
    /// An ``AuditLog`` that keeps what is appended; nothing else is needed here.
    final class RecordingAuditLog: AuditLog {
        struct Unsupported: Error {}

        private let appendedEvents = Mutex<[AuditEvent]>([])

        var events: [AuditEvent] { appendedEvents.withLock { $0 } }

        func append(_ events: [AuditEvent], in sql: any SQLDatabase) async throws {
            appendedEvents.withLock { $0 += events }
        }

        func entries(_ query: AuditQuery, in sql: any SQLDatabase) async throws -> [AuditEntry] { throw Unsupported() }
        func head(in sql: any SQLDatabase) async throws -> AuditHead { throw Unsupported() }
        func insert(_ checkpoint: AuditCheckpoint, in sql: any SQLDatabase) async throws { throw Unsupported() }
        func lastCheckpointSeq(in sql: any SQLDatabase) async throws -> Int64? { throw Unsupported() }
        func checkpoints(in sql: any SQLDatabase) async throws -> [AuditCheckpoint] { throw Unsupported() }
    }
}
