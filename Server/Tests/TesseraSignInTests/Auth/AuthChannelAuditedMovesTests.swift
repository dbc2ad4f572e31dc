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
    /// A client, and a device signed up to it under `name`, with its user's ID: the owner of the test's channels.
    private static func signedUpDevice(
        _ runtime: TesseraRuntime, name: String, phone: String
    ) async throws -> (client: Client, signedUp: SignUpResponse, userId: String) {
        let client = try await runtime.makeTestClient()
        let email = "\(name)@example.com"
        let request = SignUpFixtures.request(
            client, email: email, phone: phone, userKey: name, token: try await SignUpFixtures.disposeToken(runtime, client, email: email),
            deviceKey: P256.Signing.PrivateKey()
        )
        let checked = try runtime.signUp.validate(request, client: client, bundleId: client.bundleIds[0])
        let signedUp = try await runtime.signUp.signUp(request, client: client, email: checked.email, phone: checked.phone)
        let userId = try #require(try await runtime.database.read { sql in
            try await sql.raw("SELECT user_id FROM devices WHERE id = \(bind: signedUp.deviceId)").first()?.decode(column: "user_id", as: String.self)
        })
        return (client, signedUp, userId)
    }

    /// Device logins `ids` of a device signed up under `name`, each selected (and with `sent`, its requests sent to
    /// the nodes), open until five minutes after `now`.
    private static func openDeviceChannels(
        _ ids: [String], _ runtime: TesseraRuntime, _ repository: AuthChannelRepository, name: String, phone: String, now: Int64, sent: Bool
    ) async throws {
        let (client, signedUp, userId) = try await signedUpDevice(runtime, name: name, phone: phone)
        for id in ids {
            try await repository.insert(AuthChannelRecord(
                id: id, clientId: client.id, userId: userId, deviceId: nil, initiator: .device, challenge: "c", connectIp: "",
                message: "", outcome: .inProgress, state: .created, code: nil, nodes: [], tokenSealed: nil, createdAt: now,
                verifyStartedAt: nil, attestedAt: nil, endedAt: nil, expiresAt: now + 300_000
            ))
            #expect(try await repository.markSelected(id, deviceId: signedUp.deviceId, now: now))
            if sent { #expect(try await repository.markRequestsSent(id, now: now)) }
        }
    }

    @Test("40 concurrent selections of 20 channels (each twice): each channel selected once, one login.started each", arguments: TestDatabase.kinds)
    func concurrentMoves(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (client, signedUp, userId) = try await Self.signedUpDevice(runtime, name: "moves", phone: "+41790000081")
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
        "Concurrent inserts, reads and `selected` → `verifying` moves (batched on PostgreSQL): a failing insert fails alone, each channel read as stored, each moved once, none past its expiry or from another step",
        arguments: TestDatabase.kinds
    )
    func concurrentReadsAndRequestsSent(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (client, signedUp, userId) = try await Self.signedUpDevice(runtime, name: "sent", phone: "+41790000082")
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            // 0..<16 selected and open; 16, 17 selected but expired at `now`; 18, 19 never selected.
            let ids = (0..<20).map { "ch_sent_\($0)" }
            func record(_ index: Int, userId: String) -> AuthChannelRecord {
                AuthChannelRecord(
                    id: index < 0 ? "ch_sent_orphan" : ids[index], clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty,
                    challenge: "challenge-\(index)", connectIp: index == 1 ? "192.0.2.7" : "", message: "m\(index)", outcome: .pending,
                    state: .created, code: nil, nodes: [], tokenSealed: nil, createdAt: now, verifyStartedAt: nil, attestedAt: nil, endedAt: nil,
                    expiresAt: index == 16 || index == 17 ? now + 1 : now + 300_000,
                    numberMatch: index == 0 ? NumberMatch(number: "42", choices: ["17", "42", "88"]) : nil
                )
            }
            // Inserted together (one statement on PostgreSQL), with one of a user that does not exist: only that one fails.
            let inserted = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in -1..<20 {
                    group.addTask {
                        do {
                            try await repository.insert(record(index, userId: index < 0 ? "us_missing" : userId))
                            return (index, true)
                        } catch { return (index, false) }
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect((-1..<20).map { inserted[$0] } == [false] + Array(repeating: true, count: 20), "\(inserted)")
            for (index, id) in ids.enumerated() where index < 18 {
                #expect(try await repository.markSelected(id, deviceId: signedUp.deviceId, now: now))
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
            let first = try #require(read[ids[0]] ?? nil), second = try #require(read[ids[1]] ?? nil)
            #expect(first.numberMatch == NumberMatch(number: "42", choices: ["17", "42", "88"]) && second.numberMatch == nil)
            #expect(second.connectIp == "192.0.2.7" && first.connectIp == "" && (read[ids[19]] ?? nil)?.deviceId == nil)
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

    @Test(
        "Concurrent moves of every audited kind (grouped by kind on PostgreSQL): attested, completed, failed, and channels attested and failed at once — each as if alone, one event per move",
        arguments: TestDatabase.kinds
    )
    func concurrentMovesOfEveryKind(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            // 0..<4 attested then completed; 4..<8 failed; 8..<12 attested and failed at once.
            let ids = (0..<12).map { "ch_kinds_\($0)" }
            try await Self.openDeviceChannels(ids, runtime, repository, name: "kinds", phone: "+41790000082", now: now, sent: true)
            enum Move: Sendable { case attest(Int), fail(Int) }
            let moves: [Move] = (0..<4).map { .attest($0) } + (4..<8).map { .fail($0) } + (8..<12).flatMap { [.attest($0), .fail($0)] }
            let results = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for move in moves {
                    group.addTask {
                        switch move {
                        case .attest(let index):
                            ("attest \(index)", try await repository.markAttested(ids[index], nodes: ["nd_a", "nd_\(index)"], appAttestNodes: index % 3, now: now + 1))
                        case .fail(let index):
                            ("fail \(index)", try await repository.finish(ids[index], outcome: .failed, code: .authQuorumNotReached, now: now + 1))
                        }
                    }
                }
                return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect((0..<4).allSatisfy { results["attest \($0)"] == true } && (4..<12).allSatisfy { results["fail \($0)"] == true }, "\(results)")
            // Completed twice each at once: once.
            let completed = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in Array(0..<4) + Array(0..<4) {
                    group.addTask { (index, try await repository.complete(ids[index], tokenSealed: index == 3 ? nil : "sealed-\(index)", now: now + 2)) }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1.0, default: 0] += $1.1 ? 1 : 0 }
            }
            #expect(completed == [0: 1, 1: 1, 2: 1, 3: 1], "each completed once: \(completed)")
            for (index, id) in ids.enumerated() {
                let channel = try #require(try await repository.find(id))
                switch index {
                case 0..<4:
                    #expect(channel.state == .completed && channel.outcome == .completed && channel.endedAt == now + 2, "\(id)")
                    #expect(channel.nodes == ["nd_a", "nd_\(index)"] && channel.appAttestNodes == index % 3 && channel.attestedAt == now + 1, "\(id)")
                    #expect(channel.tokenSealed == (index == 3 ? nil : "sealed-\(index)"), "\(id)")
                case 4..<8:
                    #expect(channel.state == .verifying && channel.outcome == .failed && channel.code == ErrorCode.authQuorumNotReached.rawValue, "\(id)")
                default:
                    // Attested only if its move ran before the failure.
                    let attested = results["attest \(index)"] == true
                    #expect(channel.state == (attested ? .attested : .verifying) && channel.outcome == .failed && channel.endedAt == now + 1, "\(id)")
                    #expect(channel.nodes == (attested ? ["nd_a", "nd_\(index)"] : []), "\(id)")
                }
            }
            let entries = try await runtime.database.withSQL { [audit = runtime.repositories.audit] sql in
                try await audit.entries(AuditQuery(limit: 1000), in: sql)
            }
            func count(_ type: String, _ id: String) -> Int { entries.filter { $0.type == type && $0.details.contains("\"\(id)\"") }.count }
            for (index, id) in ids.enumerated() {
                let attested = index < 4 || (index >= 8 && results["attest \(index)"] == true)
                #expect(count("login.attested", id) == (attested ? 1 : 0), "\(id)")
                #expect(count("login.completed", id) == (index < 4 ? 1 : 0), "\(id)")
                #expect(count("login.failed", id) == (index >= 4 ? 1 : 0), "\(id)")
            }
        }
    }

    @Test(
        "Channels sent to their nodes and failed at once, in opposite orders (two batches on PostgreSQL, each locking in ID order): no deadlock, each as if alone",
        arguments: TestDatabase.kinds
    )
    func requestsSentAndFailedAtOnce(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            let ids = (0..<24).map { "ch_order_\($0)" }
            try await Self.openDeviceChannels(ids, runtime, repository, name: "order", phone: "+41790000083", now: now, sent: false)
            // The sends against ID order, the failures in it, interleaved.
            let results = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
                for (sent, failed) in zip(ids.reversed(), ids) {
                    group.addTask { ("sent \(sent)", try await repository.markRequestsSent(sent, now: now)) }
                    group.addTask { ("failed \(failed)", try await repository.finish(failed, outcome: .failed, code: .authQuorumNotReached, now: now)) }
                }
                return try await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            for id in ids {
                #expect(results["failed \(id)"] == true, "\(id)")
                let channel = try #require(try await repository.find(id))
                #expect(channel.outcome == .failed && channel.state == (results["sent \(id)"] == true ? .verifying : .selected), "\(id)")
            }
        }
    }

    @Test(
        "Expiry while a transaction locks two of its channels in ID order (PostgreSQL): the expiry locks them in ID order too, so it waits holding nothing and neither waits on the other",
        arguments: TestDatabase.kinds.filter { $0 == .postgres }
    )
    func expiryLocksInIDOrder(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0 }) { runtime in
            let (client, _, userId) = try await Self.signedUpDevice(runtime, name: "expiry", phone: "+41790000084")
            let repository = AuthChannelRepository(database: runtime.database, audit: runtime.repositories.audit)
            let now = runtime.clock.now()
            // The later ID inserted first and expiring first: the table's order and the index's both meet it first.
            for (id, expiresAt) in [("ch_expiry_b", now + 1000), ("ch_expiry_a", now + 2000)] {
                try await repository.insert(AuthChannelRecord(
                    id: id, clientId: client.id, userId: userId, deviceId: nil, initiator: .relyingParty, challenge: "c", connectIp: "",
                    message: "", outcome: .pending, state: .created, code: nil, nodes: [], tokenSealed: nil, createdAt: now,
                    verifyStartedAt: nil, attestedAt: nil, endedAt: nil, expiresAt: expiresAt
                ))
            }
            let (locked, lockedNow) = AsyncStream.makeStream(of: Void.self)
            let (proceed, proceedNow) = AsyncStream.makeStream(of: Void.self)
            // A transaction locking both channels in ID order (as a batch of moves does), the second once the expiry waits.
            let holder = Task {
                try await runtime.database.transaction { sql in
                    try await sql.raw("SELECT id FROM auth_channels WHERE id = 'ch_expiry_a' FOR UPDATE").run()
                    lockedNow.yield()
                    for await _ in proceed { break }
                    try await sql.raw("SELECT id FROM auth_channels WHERE id = 'ch_expiry_b' FOR UPDATE").run()
                }
            }
            for await _ in locked { break }
            let expiry = Task { try await repository.expireDue(now: now + 5000) }
            // The expiry waiting for the holder's lock: awaited by asking PostgreSQL, not by a pause.
            var waiting = false
            for _ in 0..<3000 where !waiting {
                waiting = try await runtime.database.withSQL { sql in
                    try await sql.raw(
                        "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    ).first()?.decode(column: "n", as: Int.self) ?? 0 > 0
                }
                if !waiting { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(waiting, "the expiry waits for the holder's lock")
            proceedNow.yield()
            // In the table's order the expiry would hold ch_expiry_b while waiting: a deadlock, one of the two failed after
            // PostgreSQL's deadlock_timeout.
            try await holder.value
            #expect(Set(try await expiry.value) == ["ch_expiry_a", "ch_expiry_b"])
            for id in ["ch_expiry_a", "ch_expiry_b"] {
                let channel = try #require(try await repository.find(id))
                #expect(channel.outcome == .expired && channel.code == ErrorCode.authChannelExpired.rawValue, "\(id)")
            }
        }
    }
}
