import Crypto
import Foundation
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport
@testable import TesseraSignIn

/// A channel's audited moves (`login.started`, `login.attested`, `login.completed`): on PostgreSQL the moves of
/// concurrent requests run in one transaction, each its conditional UPDATE, their events in one append. Whatever the
/// batch, a move happens once and has exactly one audit event, in both databases.
@Suite("Auth channels: audited moves")
struct AuthChannelAuditedMovesTests {
    @Test("40 concurrent selections of 20 channels (each twice): each channel selected once, one login.started each", arguments: TestDatabase.kinds)
    func concurrentMoves(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient()
            let email = "moves@example.com"
            let request = SignUpFixtures.request(
                client, email: email, phone: "+41790000081", userKey: "moves", token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
                deviceKey: P256.Signing.PrivateKey()
            )
            let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
            let signedUp = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone)
            let userId = try #require(try await runtime.database.read { sql in
                try await sql.raw("SELECT user_id FROM devices WHERE id = \(bind: signedUp.deviceId)").first()?.decode(column: "user_id", as: String.self)
            })
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            let ids = (0..<20).map { "ch_moves_\($0)" }
            for id in ids {
                try await repository.insert(AuthChannelRecord(
                    id: id, clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty, challenge: "c", connectIp: "",
                    message: "", outcome: .pending, state: .created, code: nil, nodes: [], tokenSealed: nil, createdAt: now,
                    verifyStartedAt: nil, attestedAt: nil, endedAt: nil, expiresAt: now + 300_000
                ))
            }
            let moved = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for id in ids + ids {
                    group.addTask { (id, try await repository.markSelected(id, deviceId: signedUp.deviceId, now: now)) }
                }
                return try await group.reduce(into: [String: Int]()) { counts, result in counts[result.0, default: 0] += result.1 ? 1 : 0 }
            }
            #expect(moved.count == 20 && moved.values.allSatisfy { $0 == 1 }, "each channel moved once: \(moved)")
            let started = try await runtime.database.withSQL { [audit = runtime.repositories.audit] sql in
                try await audit.entries(AuditQuery(type: "login.started", limit: 1000), in: sql)
            }
            let channels = ids.map { id in started.filter { $0.details.contains("\"\(id)\"") }.count }
            #expect(channels == Array(repeating: 1, count: 20), "one login.started per channel: \(channels)")
            #expect(started.allSatisfy { $0.deviceId == signedUp.deviceId && $0.clientId == client.id })
            // A later move of a selected channel still passes once, audited.
            #expect(try await repository.markRequestsSent(ids[0], now: now))
            #expect(!(try await repository.markRequestsSent(ids[0], now: now)))
        }
    }

    @Test(
        "Concurrent reads and `selected` → `verifying` moves (batched on PostgreSQL): each channel read as stored, each moved once, none past its expiry or from another step",
        arguments: TestDatabase.kinds
    )
    func concurrentReadsAndRequestsSent(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient()
            let email = "sent@example.com"
            let request = SignUpFixtures.request(
                client, email: email, phone: "+41790000082", userKey: "sent", token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
                deviceKey: P256.Signing.PrivateKey()
            )
            let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
            let signedUp = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone)
            let userId = try #require(try await runtime.database.read { sql in
                try await sql.raw("SELECT user_id FROM devices WHERE id = \(bind: signedUp.deviceId)").first()?.decode(column: "user_id", as: String.self)
            })
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            // 0..<16 selected and open; 16, 17 selected but expired at `now`; 18, 19 never selected.
            let ids = (0..<20).map { "ch_sent_\($0)" }
            for (index, id) in ids.enumerated() {
                try await repository.insert(AuthChannelRecord(
                    id: id, clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty, challenge: "challenge-\(index)",
                    connectIp: "", message: "m\(index)", outcome: .pending, state: .created, code: nil, nodes: [], tokenSealed: nil,
                    createdAt: now, verifyStartedAt: nil, attestedAt: nil, endedAt: nil, expiresAt: index == 16 || index == 17 ? now + 1 : now + 300_000
                ))
                if index < 18 { #expect(try await repository.markSelected(id, deviceId: signedUp.deviceId, now: now)) }
            }
            let read = try await withThrowingTaskGroup(of: (String, AuthChannelRecord?).self) { group in
                for id in ids + ["ch_sent_unknown"] { group.addTask { (id, try await repository.find(id)) } }
                return try await group.reduce(into: [String: AuthChannelRecord?]()) { $0[$1.0] = $1.1 }
            }
            for (index, id) in ids.enumerated() {
                let channel = try #require(read[id] ?? nil, "\(id) read")
                #expect(channel.id == id && channel.challenge == "challenge-\(index)" && channel.message == "m\(index)")
                #expect(channel.state == (index < 18 ? .selected : .created) && channel.deviceId == (index < 18 ? signedUp.deviceId : nil))
            }
            #expect(read.keys.contains("ch_sent_unknown") && read["ch_sent_unknown"]! == nil, "an unknown ID reads as nil")
            let later = now + 1
            let moved = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for id in ids + ids { group.addTask { (id, try await repository.markRequestsSent(id, now: later)) } }
                return try await group.reduce(into: [String: Int]()) { counts, result in counts[result.0, default: 0] += result.1 ? 1 : 0 }
            }
            #expect(ids.map { moved[$0] ?? -1 } == (0..<20).map { $0 < 16 ? 1 : 0 }, "each open, selected channel moved once: \(moved)")
            for (index, id) in ids.enumerated() {
                let expected: AuthChannelState = index < 16 ? .verifying : index < 18 ? .selected : .created
                #expect(try await repository.find(id)?.state == expected, "\(id)")
            }
        }
    }
}
