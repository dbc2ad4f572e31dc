import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// `ciba_requests` on SQLite and PostgreSQL: a poll within the interval is refused and raises the interval by the
/// step (`slow_down`), one after it is recorded; a request is used once (a second, racing use loses); the janitor
/// purges expired requests; and the state type reads a record as the token endpoint answers it.
@Suite("CIBA: requests and their state")
struct CIBARepositoryTests {
    static func record(_ client: Client, hash: String, channel: String?, now: Int64) -> CIBARequestRecord {
        CIBARequestRecord(
            idHash: hash, clientId: client.id, channelId: channel, scope: "openid", createdAt: now, expiresAt: now + 60_000, intervalMillis: 5_000
        )
    }

    @Test("poll: the first is recorded; one 1 s later is slow_down and the interval becomes 10 s; each further early poll adds 5 s more; one after the interval is recorded; used once; purged after expiry; another client cannot find it", arguments: TestDatabase.kinds)
    func polling(_ kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient(), other = try await runtime.makeTestClient(bundle: "com.example.other")
            let repository = SQLCIBARepository(), database = runtime.database, now: Int64 = 1_800_000_000_000
            try await database.transaction { sql in try await repository.insert(Self.record(client, hash: "h1", channel: nil, now: now), in: sql) }
            let poll = { (at: Int64) in try await database.transaction { sql in try await repository.poll(idHash: "h1", now: at, raise: 5_000, in: sql) } }
            #expect(try await poll(now + 5_000))
            #expect(try await poll(now + 6_000) == false)
            let raised = try await database.read { sql in try await repository.find(idHash: "h1", clientId: client.id, in: sql) }
            #expect(raised?.intervalMillis == 10_000 && raised?.polledAt == now + 6_000)
            #expect(try await poll(now + 15_000) == false, "10 s after the refused poll have not passed: slow_down again, 15 s (CIBA §11: each slow_down adds)")
            #expect(try await poll(now + 29_000) == false)
            #expect(try await database.read { sql in try await repository.find(idHash: "h1", clientId: client.id, in: sql) }?.intervalMillis == 20_000)
            #expect(try await poll(now + 49_000))
            #expect(try await database.read { sql in try await repository.find(idHash: "h1", clientId: other.id, in: sql) } == nil)
            #expect(try await database.transaction { sql in try await repository.markUsed(idHash: "h1", now: now + 50_000, in: sql) })
            #expect(try await database.transaction { sql in try await repository.markUsed(idHash: "h1", now: now + 51_000, in: sql) } == false)
            let used = try #require(try await database.read { sql in try await repository.find(idHash: "h1", clientId: client.id, in: sql) })
            #expect(CIBAState.of(used, request: nil, now: now + 51_000) == .used)
            try await database.transaction { sql in try await repository.purge(before: now + 59_000, in: sql) }
            #expect(try await database.read { sql in try await repository.find(idHash: "h1", clientId: client.id, in: sql) } != nil)
            try await database.transaction { sql in try await repository.purge(before: now + 61_000, in: sql) }
            #expect(try await database.read { sql in try await repository.find(idHash: "h1", clientId: client.id, in: sql) } == nil)
        }
    }

    @Test("the state: pending without a request or while the phone has not answered, approved with the token, denied for declined, cancelled or failed, expired by the record's or the request's expiry")
    func states() {
        let client = Client(id: "cl_1", clientKey: "tck_1", name: "t", bundleIds: [], enabled: true, createdAt: 0)
        let record = Self.record(client, hash: "h", channel: "ch_1", now: 0)
        let state = { (outcome: AuthOutcome, token: String?) in
            RPAuthState(requestId: "ch_1", outcome: outcome, code: nil, token: token, expiresIn: 60, matchNumber: nil)
        }
        #expect(CIBAState.of(record, request: nil, now: 1) == .pending)
        #expect(CIBAState.of(record, request: state(.pending, nil), now: 1) == .pending)
        #expect(CIBAState.of(record, request: state(.inProgress, nil), now: 1) == .pending)
        #expect(CIBAState.of(record, request: state(.completed, "jwt"), now: 1) == .approved(resultToken: "jwt"))
        for outcome in [AuthOutcome.declined, .cancelled, .failed] { #expect(CIBAState.of(record, request: state(outcome, nil), now: 1) == .denied) }
        #expect(CIBAState.of(record, request: state(.expired, nil), now: 1) == .expired)
        #expect(CIBAState.of(record, request: state(.pending, nil), now: 60_000) == .expired)
        #expect(CIBAState.pending.error?.error == "authorization_pending" && CIBAState.used.error?.error == "invalid_grant")
    }
}
