import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SQLKit
import Synchronization
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Webhooks against a receiver that verifies every request with the published `standardwebhooks`
/// library (PyPI): signatures (also during a rotation overlap), every event exactly once by id after
/// an outage and across two instances on one PostgreSQL, retries exhausted → endpoint disabled.
/// Time is the injected ``ManualClock``; the receiver's timestamp check follows it (``WebhookReceiver/setNow(_:)``).
@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    static func clock() -> ManualClock { ManualClock(start: Int64(Date().timeIntervalSince1970 * 1000)) }

    static func withReceiver(_ body: (WebhookReceiver) async throws -> Void) async throws {
        let receiver = try await WebhookReceiver()
        do {
            try await body(receiver)
        } catch {
            print("webhook receiver log:\n\(receiver.log)")
            receiver.stop()
            throw error
        }
        receiver.stop()
    }

    /// Drains with the receiver's clock set to the server's.
    static func drain(_ runtime: TesseraRuntime, _ receiver: WebhookReceiver, _ manual: ManualClock) async throws -> Int {
        try receiver.setNow(manual.clock.now())
        return await runtime.webhooks.drain()
    }

    /// Appends one client event as a service does: inside a transaction, through the runtime's audit log.
    static func event(_ runtime: TesseraRuntime, _ type: String, client: Client, userId: String = "usr_" + UUID().uuidString) async throws {
        let audit = runtime.repositories.audit
        try await runtime.database.transaction { sql in
            try await audit.append(AuditEvent(type, actor: "system", clientId: client.id, userId: userId), in: sql)
        }
    }

    static func endpoint(_ runtime: TesseraRuntime, _ client: Client, _ receiver: WebhookReceiver, types: [String] = ["*"]) async throws -> WebhookEndpointWithSecret {
        let created = try await runtime.webhookAdmin.create(clientKey: client.clientKey, CreateWebhookRequest(url: receiver.url, eventTypes: types))
        try receiver.setSecrets([created.secret])
        return created
    }

    @Test("a login's event is signed as Standard Webhooks says: standardwebhooks verifies it; IDs and keys only in the body", arguments: TestDatabase.kinds)
    func signedAndVerified(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let client = try await runtime.makeTestClient()
                let created = try await Self.endpoint(runtime, client, receiver, types: ["login.*"])
                #expect(created.secret.hasPrefix("whsec_"))
                let fixture = try await PushFixtures.user(runtime, client: client, name: "alice")
                try await Self.event(runtime, "login.completed", client: client, userId: fixture.userId)
                #expect(try await Self.drain(runtime, receiver, manual) == 1)
                let records = try receiver.records()
                try #require(records.count == 1)
                let record = records[0]
                #expect(record["verified"] as? [Bool] == [true])
                #expect(record["status"] as? Int == 204)
                #expect(record["contentType"] as? String == "application/json")
                #expect(record["path"] as? String == "/hooks")
                let id = try #require(record["id"] as? String)
                #expect(id.hasPrefix("msg_"))
                #expect(record["timestamp"] as? String == String(manual.clock.now() / 1000))
                let payload = try #require(record["payload"] as? [String: Any])
                #expect(payload["type"] as? String == "login.completed")
                let data = try #require(payload["data"] as? [String: Any])
                #expect(data["clientId"] as? String == client.id)
                #expect(data["userId"] as? String == fixture.userId)
                // The client and the user also by the keys the operator and the app know them by.
                #expect(data["clientKey"] as? String == client.clientKey)
                #expect(data["userKey"] as? String == fixture.userKey)
                let text = String(decoding: try JSONSerialization.data(withJSONObject: payload), as: UTF8.self)
                for personal in ["alice@", "Alice", fixture.deviceToken] { #expect(!text.contains(personal)) }
                // Not subscribed: user.signed_up is not sent.
                try await Self.event(runtime, "user.signed_up", client: client)
                #expect(try await Self.drain(runtime, receiver, manual) == 0)
                let page = try await runtime.webhookAdmin.deliveries(created.endpoint.id, limit: 10, before: nil)
                #expect(page.deliveries.map(\.status) == ["delivered"])
                #expect(page.deliveries.first?.eventId == id)
            }
        }
    }

    @Test("events of real service calls (an OTP send, an admin's device revocation) arrive once each, verified, IDs and keys only", arguments: TestDatabase.kinds)
    func serviceEvents(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let client = try await runtime.makeTestClient()
                let created = try await Self.endpoint(runtime, client, receiver)
                let fixture = try await PushFixtures.user(runtime, client: client, name: "bob")
                _ = try await runtime.otp.send(client: client, channel: .email, target: "bob@example.org", purpose: .signup, ip: "192.0.2.9")
                try await runtime.userAdmin.revokeDevice(fixture.deviceId)
                #expect(try await Self.drain(runtime, receiver, manual) == 2)
                let records = try receiver.records()
                #expect(records.map { $0["verified"] as? [Bool] } == [[true], [true]])
                let payloads = records.compactMap { $0["payload"] as? [String: Any] }
                #expect(Set(payloads.compactMap { $0["type"] as? String }) == ["otp.sent", "device.revoked"])
                let revoked = try #require(payloads.first { $0["type"] as? String == "device.revoked" }?["data"] as? [String: Any])
                #expect(revoked["deviceId"] as? String == fixture.deviceId)
                #expect(revoked["userId"] as? String == fixture.userId)
                #expect(revoked["clientId"] as? String == client.id)
                #expect(revoked["clientKey"] as? String == client.clientKey)
                #expect(revoked["userKey"] as? String == fixture.userKey)
                let sent = try #require(payloads.first { $0["type"] as? String == "otp.sent" }?["data"] as? [String: Any])
                #expect(sent["clientKey"] as? String == client.clientKey)
                #expect(sent["userKey"] == nil)
                #expect(Set(records.compactMap { $0["id"] as? String }).count == 2)
                let text = String(decoding: try JSONSerialization.data(withJSONObject: payloads), as: UTF8.self)
                for personal in ["bob@example.org", "192.0.2.9"] { #expect(!text.contains(personal)) }
                // Nothing is sent twice: a later drain finds nothing due.
                #expect(try await Self.drain(runtime, receiver, manual) == 0)
                let page = try await runtime.webhookAdmin.deliveries(created.endpoint.id, limit: 10, before: nil)
                #expect(page.deliveries.map(\.status) == ["delivered", "delivered"])
            }
        }
    }

    @Test("a client whose endpoint refuses connections does not hold back another's: with a 60 s timeout, one drain delivers the healthy client's event and fails the refused one at once (connection refused, not a timeout)", arguments: TestDatabase.kinds)
    func refusedEndpointIsolated(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: { $0.webhooksTimeout = .seconds(60) }) { runtime in
                let healthy = try await runtime.makeTestClient(), dead = try await runtime.makeTestClient()
                let good = try await Self.endpoint(runtime, healthy, receiver)
                // Port 9 (discard) on loopback: nothing listens there, so a connection is refused at once.
                let bad = try await runtime.webhookAdmin.create(
                    clientKey: dead.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:9/hooks", eventTypes: ["*"])
                )
                try await Self.event(runtime, "login.completed", client: dead)
                try await Self.event(runtime, "login.completed", client: healthy)
                #expect(try await Self.drain(runtime, receiver, manual) == 2)
                #expect(try receiver.records().count == 1)
                let delivered = try await runtime.webhookAdmin.deliveries(good.endpoint.id, limit: 10, before: nil)
                #expect(delivered.deliveries.map(\.status) == ["delivered"])
                let refused = try await runtime.webhookAdmin.deliveries(bad.endpoint.id, limit: 10, before: nil).deliveries
                #expect(refused.map(\.status) == ["pending"] && refused.first?.attempts == 1, "\(refused)")
                let error = refused.first?.lastError ?? ""
                #expect(error.lowercased().contains("refused") && !error.lowercased().contains("deadline"), "failed at once as refused: \(error)")
                // What makes it fail at once (no clock is read here): the webhooks' client does not dial a refused
                // connection again until the connect timeout runs out, as async-http-client does by default.
                #expect(!OutboundHTTPClients.webhooks(runtime.configuration).connectionPool.retryConnectionEstablishment)
            }
        }
    }

    /// A loopback socket that listens but never accepts: the kernel completes connections and takes requests, and
    /// nothing ever answers (a receiver that hangs). Closing it resets them.
    final class SilentListener: Sendable {
        /// The socket until it is closed (closed once: a second close could hit a descriptor reused meanwhile).
        let fd: Mutex<Int32?>
        let port: Int

        init() throws {
            let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) } }
            guard bound == 0, listen(socketFD, 16) == 0 else { throw ConfigurationError("cannot listen on loopback") }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) } }
            fd = Mutex(socketFD)
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        func close() {
            if let open = fd.withLock({ fd in defer { fd = nil }; return fd }) { _ = Glibc.close(open) }
        }
    }

    @Test("a receiver that never answers holds only its own delivery: an event queued for another client while it hangs is delivered meanwhile (the worker claims again while deliveries are in flight)", arguments: TestDatabase.kinds)
    func slowEndpointIsolated(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock, configure: { $0.webhooksTimeout = .seconds(60); $0.webhooksPollInterval = .milliseconds(100) }) { runtime in
                let healthy = try await runtime.makeTestClient(), stuck = try await runtime.makeTestClient()
                let good = try await Self.endpoint(runtime, healthy, receiver)
                let silent = try SilentListener()
                defer { silent.close() }
                let hanging = try await runtime.webhookAdmin.create(
                    clientKey: stuck.clientKey, CreateWebhookRequest(url: "http://127.0.0.1:\(silent.port)/hooks", eventTypes: ["*"])
                )
                try receiver.setNow(manual.clock.now())
                try await Self.event(runtime, "login.completed", client: stuck)
                let draining = Task { await runtime.webhooks.drain() }
                // The stuck delivery is in flight (its attempt was counted when it was claimed)…
                let inFlight = await eventually {
                    (try? await runtime.webhookAdmin.deliveries(hanging.endpoint.id, limit: 10, before: nil).deliveries.first?.attempts) == 1
                }
                #expect(inFlight)
                // …when the other client's event is queued: it is claimed and delivered while the first still hangs.
                try await Self.event(runtime, "login.completed", client: healthy)
                let delivered = await eventually { (try? receiver.records().count) == 1 }
                #expect(delivered, "the healthy receiver's event arrived while the other receiver hung")
                // Recorded as delivered once the worker read the receiver's answer (after the receiver wrote its record).
                let settled = await eventually {
                    (try? await runtime.webhookAdmin.deliveries(good.endpoint.id, limit: 10, before: nil).deliveries.map(\.status)) == ["delivered"]
                }
                #expect(settled, "the healthy delivery is recorded delivered while the other receiver hangs")
                let stillHanging = try await runtime.webhookAdmin.deliveries(hanging.endpoint.id, limit: 10, before: nil).deliveries
                #expect(stillHanging.map(\.status) == ["pending"] && stillHanging.first?.lastError == nil, "\(stillHanging)")
                silent.close()
                #expect(await draining.value == 2)
            }
        }
    }

    @Test("rotation: during the overlap both secrets sign and either verifies; after it only the new one", arguments: TestDatabase.kinds)
    func rotationOverlap(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let client = try await runtime.makeTestClient()
                let created = try await Self.endpoint(runtime, client, receiver)
                let rotated = try await runtime.webhookAdmin.rotate(created.endpoint.id)
                #expect(rotated.secret != created.secret && rotated.secret.hasPrefix("whsec_"))
                #expect(rotated.endpoint.previousSecretExpiresAt == manual.clock.now() + 86_400_000)
                try receiver.setSecrets([created.secret, rotated.secret])
                let test = try await runtime.webhookAdmin.sendTest(created.endpoint.id)
                #expect(test.eventType == "webhook.test")
                #expect(try await Self.drain(runtime, receiver, manual) == 1)
                var records = try receiver.records()
                try #require(records.count == 1)
                #expect(records[0]["verified"] as? [Bool] == [true, true])
                #expect((records[0]["signature"] as? String)?.split(separator: " ").count == 2)
                #expect(records[0]["id"] as? String == test.eventId)
                let testData = (records[0]["payload"] as? [String: Any])?["data"] as? [String: Any]
                #expect(testData?["clientKey"] as? String == client.clientKey)
                #expect(testData?["clientId"] as? String == client.id)
                // After the overlap the old secret no longer signs.
                manual.advance(by: .seconds(86_401))
                _ = try await runtime.webhookAdmin.sendTest(created.endpoint.id)
                #expect(try await Self.drain(runtime, receiver, manual) == 1)
                records = try receiver.records()
                try #require(records.count == 2)
                #expect(records[1]["verified"] as? [Bool] == [false, true])
                #expect((records[1]["signature"] as? String)?.split(separator: " ").count == 1)
            }
        }
    }

    /// Drives a scripted sequence with an outage of several minutes in the middle; returns the IDs the server queued.
    static func outageScript(
        _ runtimes: [TesseraRuntime], client: Client, receiver: WebhookReceiver, manual: ManualClock, endpointId: String
    ) async throws -> Int {
        let first = runtimes[0]
        var events = 0
        func drainAll() async throws {
            try receiver.setNow(manual.clock.now())
            await withTaskGroup(of: Int.self) { group in
                for runtime in runtimes + runtimes { group.addTask { await runtime.webhooks.drain() } }
            }
        }
        // Up: sign-ups, logins, a revoked device.
        for index in 0..<3 {
            let fixture = try await PushFixtures.user(first, client: client, name: "user\(index)-\(UUID().uuidString.prefix(6))")
            try await event(runtimes[index % runtimes.count], "user.signed_up", client: client, userId: fixture.userId)
            try await event(runtimes[index % runtimes.count], "login.completed", client: client, userId: fixture.userId)
            events += 2
        }
        try await drainAll()
        // A change that rolls back queues nothing.
        struct Rollback: Error {}
        let audit = first.repositories.audit
        await #expect(throws: Rollback.self) {
            try await first.database.transaction { sql in
                try await audit.append(AuditEvent("device.revoked", actor: "admin", clientId: client.id, deviceId: "dev_rolled_back"), in: sql)
                throw Rollback()
            }
        }
        // Down for several minutes while more happens.
        try receiver.setDown(true)
        for index in 0..<4 {
            try await event(runtimes[index % runtimes.count], index.isMultiple(of: 2) ? "device.revoked" : "login.completed", client: client)
            events += 1
        }
        try await drainAll()  // attempt 1: 503
        manual.advance(by: .seconds(6))
        try await drainAll()  // attempt 2 (after 5 s): 503
        manual.advance(by: .seconds(331))
        try await drainAll()  // attempt 3 (after 5 min): 503
        // Back up; the next attempt is 30 min later.
        try receiver.setDown(false)
        try await drainAll()  // nothing due yet
        manual.advance(by: .seconds(1981))
        try await drainAll()
        try await drainAll()
        return events
    }

    static func checkExactlyOnce(_ runtime: TesseraRuntime, receiver: WebhookReceiver, endpointId: String, events: Int) async throws {
        let deliveries = try await runtime.webhookAdmin.deliveries(endpointId, limit: 500, before: nil).deliveries
        #expect(deliveries.count == events)
        #expect(deliveries.allSatisfy { $0.status == "delivered" }, "\(deliveries.filter { $0.status != "delivered" })")
        let accepted = try receiver.acceptedIds()
        // Every event arrived, each exactly once by id, and every request verified.
        #expect(accepted.count == events)
        #expect(Set(accepted) == Set(deliveries.map(\.eventId)))
        #expect(Set(accepted).count == accepted.count)
        #expect(try receiver.records().allSatisfy { ($0["status"] as? Int) == 503 || ($0["verified"] as? [Bool]) == [true] })
        #expect(!(try receiver.records().contains { (($0["payload"] as? [String: Any])?["data"] as? [String: Any])?["deviceId"] as? String == "dev_rolled_back" }))
    }

    @Test("Done-when: after a receiver outage of several minutes every event arrives exactly once by id, verified by standardwebhooks", arguments: TestDatabase.kinds)
    func outageExactlyOnce(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let client = try await runtime.makeTestClient()
                let created = try await Self.endpoint(runtime, client, receiver)
                let events = try await Self.outageScript([runtime], client: client, receiver: receiver, manual: manual, endpointId: created.endpoint.id)
                try await Self.checkExactlyOnce(runtime, receiver: receiver, endpointId: created.endpoint.id, events: events)
                // The events queued while down were tried 4 times with the same id: 3 × 503, then 204.
                let records = try receiver.records()
                let byId = Dictionary(grouping: records, by: { $0["id"] as? String ?? "" })
                #expect(byId.values.filter { $0.count == 4 }.count == 4)
                #expect(try await runtime.webhookAdmin.endpoint(created.endpoint.id).enabled)
            }
        }
    }

    @Test("Done-when: two server instances on one PostgreSQL database send every event exactly once, through an outage")
    func twoInstancesExactlyOnce() async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTwoPostgresInstances(clock: manual.clock) { first, second in
                let client = try await first.makeTestClient()
                let created = try await Self.endpoint(first, client, receiver, types: ["user.*", "device.*", "login.completed"])
                var events = 0
                try receiver.setDown(true)
                for index in 0..<12 {
                    let runtime = index.isMultiple(of: 2) ? first : second
                    try await Self.event(runtime, ["user.signed_up", "device.revoked", "login.completed"][index % 3], client: client)
                    events += 1
                }
                try receiver.setNow(manual.clock.now())
                async let a = first.webhooks.drain()
                async let b = second.webhooks.drain()
                async let c = first.webhooks.drain()
                async let d = second.webhooks.drain()
                let firstRound = await a + b + c + d
                #expect(firstRound == events)  // each claimed once: 503
                try receiver.setDown(false)
                manual.advance(by: .seconds(6))
                try receiver.setNow(manual.clock.now())
                async let e = first.webhooks.drain()
                async let f = second.webhooks.drain()
                async let g = first.webhooks.drain()
                async let h = second.webhooks.drain()
                let secondRound = await e + f + g + h
                #expect(secondRound == events)
                try await Self.checkExactlyOnce(first, receiver: receiver, endpointId: created.endpoint.id, events: events)
                #expect(try receiver.records().count == 2 * events)  // one attempt chain per event: 503, then 204
            }
        }
    }

    @Test("retries exhausted (8 attempts over about a day, same id): the endpoint is disabled and the audit log says so", arguments: TestDatabase.kinds)
    func retriesExhausted(kind: TestDatabase) async throws {
        try await Self.withReceiver { receiver in
            let manual = Self.clock()
            try await withTestRuntime(kind, clock: manual.clock) { runtime in
                let client = try await runtime.makeTestClient()
                let created = try await Self.endpoint(runtime, client, receiver)
                try receiver.setDown(true)
                try await Self.event(runtime, "user.signed_up", client: client)
                #expect(try await Self.drain(runtime, receiver, manual) == 1)
                for wait in WebhookDeliveries.retrySchedule {
                    manual.advance(by: wait * 0.9)
                    #expect(try await Self.drain(runtime, receiver, manual) == 0)  // not before the wait
                    manual.advance(by: wait * 0.21)
                    #expect(try await Self.drain(runtime, receiver, manual) == 1)
                }
                let records = try receiver.records()
                #expect(records.count == 8)
                #expect(Set(records.compactMap { $0["id"] as? String }).count == 1)
                let endpoint = try await runtime.webhookAdmin.endpoint(created.endpoint.id)
                #expect(!endpoint.enabled)
                #expect(endpoint.disabledReason == "retries-exhausted")
                let delivery = try #require(try await runtime.webhookAdmin.deliveries(created.endpoint.id, limit: 5, before: nil).deliveries.first)
                #expect(delivery.status == "failed" && delivery.attempts == 8 && delivery.lastStatus == 503)
                let audited = try await runtime.database.withSQL { [audit = runtime.repositories.audit] sql in
                    try await audit.entries(AuditQuery(type: "webhook.endpoint_disabled"), in: sql)
                }
                try #require(audited.count == 1)
                #expect(audited[0].clientId == client.id)
                #expect(audited[0].details.contains(created.endpoint.id))
                // A disabled endpoint gets nothing more; enabling it again clears the failure count.
                try await Self.event(runtime, "user.signed_up", client: client)
                #expect(try await Self.drain(runtime, receiver, manual) == 0)
                let enabled = try await runtime.webhookAdmin.update(created.endpoint.id, UpdateWebhookRequest(enabled: true))
                #expect(enabled.enabled && enabled.failureCount == 0 && enabled.disabledReason == nil)
                // Redelivery sends the given-up delivery again with the same id.
                try receiver.setDown(false)
                let again = try await runtime.webhookAdmin.redeliver(endpointId: created.endpoint.id, deliveryId: delivery.id)
                #expect(again.status == "pending" && again.eventId == delivery.eventId)
                #expect(try await Self.drain(runtime, receiver, manual) == 1)
                #expect(try receiver.acceptedIds() == [delivery.eventId])
            }
        }
    }
}
