import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// CIBA ping notifications (CIBA Core 1.0 §10.2) from two `tessera serve` processes on one PostgreSQL, to a receiver of
/// the test's own over HTTPS (a self-signed certificate the servers trust through `webhooks.caFile`): the instance
/// that took the requests is killed with SIGKILL at once, the receiver is down at first (503), and every ping still
/// arrives exactly once, sent by the other instance, with its own bearer token and `auth_req_id`.
@Suite("CIBA: pings survive kill -9 and a receiver outage", .serialized)
struct CIBAPingKillTests {
    #if os(Linux)
    @Test("8 ping-mode requests on instance A, A killed with SIGKILL, the HTTPS receiver down: B retries after the outage and each ping arrives once")
    func killedInstance() async throws {
        let binary = try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)")
        _ = try TestRequirements.postgresURL()
        let url = try await TestDatabase.freshPostgresURL()
        let receiver = try await FixtureServer(script: "ciba_ping_receiver.py", arguments: ["--tls"], imports: ["cryptography"], purpose: "the HTTPS CIBA ping receiver")
        let pair: ServePair
        do {
            pair = try await ServePair(binary: binary, databaseURL: url, label: "ciba-kill", arguments: [
                "--webhooks-ca-file", receiver.directory + "/cert.pem", "--webhooks-poll-interval-ms", "100",
            ])
        } catch {
            receiver.stop()
            throw error
        }
        defer {
            pair.stop()
            receiver.stop()
        }
        let (a, portA, admin) = (pair.a, pair.portA, pair.admin)
        let created = try #require(await Self.call(portA, "POST", "/v1/admin/clients", admin: admin, json: #"{"name":"Bank","bundleIds":["com.example.bank"]}"#))
        let clientKey = try #require(created["clientKey"] as? String ?? (created["client"] as? [String: Any])?["clientKey"] as? String, "\(created)")
        let rotated = try #require(await Self.call(portA, "POST", "/v1/admin/clients/\(clientKey)/rotate-secret", admin: admin))
        let secret = try #require(rotated["clientSecret"] as? String, "\(rotated)")
        let settings = try #require(await Self.call(
            portA, "PUT", "/v1/admin/clients/\(clientKey)/ciba", admin: admin,
            json: #"{"deliveryMode":"ping","notificationEndpoint":"https://127.0.0.1:\#(receiver.port)/ciba"}"#
        ))
        #expect(settings["deliveryMode"] as? String == "ping", "\(settings)")

        try receiver.setDown(true)
        var sent: [String: String] = [:]
        for index in 0..<8 {
            let token = "token-\(index)-\(UUID().uuidString.prefix(8))"
            let form = "scope=openid&login_hint=nobody\(index)%40example.com&requested_expiry=1&client_notification_token=\(token)"
            let started = try #require(await Self.call(portA, "POST", "/oauth2/bc-authorize", basic: (clientKey, secret), form: form))
            sent[try #require(started["auth_req_id"] as? String, "\(started)")] = "Bearer " + token
        }
        a.signal(SIGKILL)
        _ = await a.exited()

        // B finds the pings in the database once they are due, and is refused while the receiver is down.
        let refused = await eventually { (try? String(contentsOfFile: receiver.directory + "/refused", encoding: .utf8)).flatMap { Int($0) } ?? 0 > 0 }
        #expect(refused, "the surviving instance tried a ping during the outage")
        try receiver.setDown(false)
        let database = try await PostgresDatabase.open(url: url, logger: TestDatabase.logger)
        let settled = await eventually {
            struct Count: Decodable { var n: Int }
            let count = try? await database.read { sql in
                try await sql.raw("SELECT count(*) AS n FROM ciba_ping_outbox WHERE status = 'sent'").first(decoding: Count.self)
            }
            return count?.n == 8
        }
        let arrived = try receiver.records().count
        #expect(settled, "every ping sent: \(arrived) received")
        await database.close()
        let records = try receiver.records()
        #expect(records.count == 8, "each ping exactly once: \(records)")
        var received: [String: String] = [:]
        for record in records {
            guard let id = (record["body"] as? [String: String])?["auth_req_id"], let bearer = record["authorization"] as? String else { continue }
            received[id] = bearer
        }
        #expect(received == sent, "every request's ping with its own token")
        await TestDatabase.drop(url)
    }

    /// A call to a server on `port`: the JSON answer (an empty object for an empty body), nil when it did not answer 2xx.
    static func call(
        _ port: Int, _ method: String, _ path: String, admin: String? = nil, basic: (String, String)? = nil, json: String? = nil, form: String? = nil
    ) async -> [String: Any]? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .RAW(value: method)
        if let admin { request.headers.add(name: "Authorization", value: "Bearer \(admin)") }
        if let (user, password) = basic {
            request.headers.add(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: form))
        }
        guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(30)), (200..<300).contains(response.status.code),
              let body = try? await response.body.collect(upTo: 1 << 20)
        else { return nil }
        guard body.readableBytes > 0 else { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }
    #endif
}
