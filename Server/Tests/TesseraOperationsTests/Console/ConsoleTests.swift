import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The admin console's routes: its headers, sign-in with the admin token into an `HttpOnly` session
/// cookie, CSRF and same-origin checks on every change made with that cookie, sign-out and the idle
/// timeout, the live stream of authentication events, and the audit chain check it shows.
@Suite("Admin console")
struct ConsoleTests {
    static let csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// A signed-in console: the cookie header to send and the CSRF token.
    struct SignedIn {
        var cookie: String
        var csrf: String
        var setCookie: String
    }

    static func signIn(_ http: some TestClientProtocol, token: String, headers: HTTPFields = [:]) async throws -> SignedIn {
        var headers = headers
        headers[.contentType] = "application/json"
        let response = try await http.executeRequest(
            uri: "/admin/session", method: .post, headers: headers,
            body: ByteBuffer(string: #"{"token":"\#(token)"}"#)
        )
        try #require(response.status == .ok, "\(String(buffer: response.body))")
        let setCookie = try #require(response.headers[.setCookie])
        let pair = try #require(setCookie.split(separator: ";").first.map(String.init))
        let body = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any]
        let csrf = try #require(body?["csrf"] as? String)
        return SignedIn(cookie: pair, csrf: csrf, setCookie: setCookie)
    }

    static func code(_ response: TestResponse) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8)) as? [String: Any])?["code"] as? Int
    }

    static func app(_ runtime: TesseraRuntime) -> some ApplicationProtocol {
        Application(router: runtime.makeRouter(), configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: TestDatabase.logger)
    }

    @Test("the page and its modules carry a strict CSP, no framing, no sniffing, no referrer, no caching; no inline script or style")
    func headers() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            try await Self.app(runtime).test(.router) { http in
                for (path, type) in [("/admin", "text/html"), ("/admin/app.js", "text/javascript"), ("/admin/console.css", "text/css"),
                                     ("/admin/page-live.js", "text/javascript")] {
                    let response = try await http.executeRequest(uri: path, method: .get, headers: [:], body: nil)
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(path)")
                    #expect(response.headers[.contentSecurityPolicy] == Self.csp, "\(path)")
                    #expect(response.headers[.cacheControl] == "no-store", "\(path)")
                    for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")] {
                        #expect(response.headers[try #require(HTTPField.Name(name))] == value, "\(path) \(name)")
                    }
                }
                let page = String(buffer: try await http.executeRequest(uri: "/admin", method: .get, headers: [:], body: nil).body)
                #expect(page.contains(#"<script type="module" src="/admin/app.js"></script>"#))
                #expect(page.components(separatedBy: "<script").count == 2, "one script, from a file")
                #expect(!page.contains("<style") && !page.contains("style="))
                // Every module the page imports is served.
                for file in ConsoleAssets.files.keys {
                    #expect(try await http.executeRequest(uri: "/admin/" + file, method: .get, headers: [:], body: nil).status == .ok)
                }
                let missing = try await http.executeRequest(uri: "/admin/nothing.js", method: .get, headers: [:], body: nil)
                #expect(missing.status == .notFound)
                #expect(missing.headers[.contentType] == "application/problem+json")
            }
        }
    }

    @Test("sign-in: a wrong token is refused (1105) and never echoed; the right one sets an HttpOnly, SameSite=Strict, Secure cookie")
    func signIn() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            try await Self.app(runtime).test(.router) { http in
                let wrongToken = "tat_wrong-" + UUID().uuidString
                let wrong = try await http.executeRequest(
                    uri: "/admin/session", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"token":"\#(wrongToken)"}"#)
                )
                #expect(wrong.status == .unauthorized)
                #expect(Self.code(wrong) == 1105)
                #expect(wrong.headers[.setCookie] == nil)
                #expect(!String(buffer: wrong.body).contains(wrongToken))

                let state = try await http.executeRequest(uri: "/admin/session", method: .get, headers: [:], body: nil)
                #expect(state.status == .ok)
                #expect(String(buffer: state.body) == #"{"signedIn":false}"#)

                let signedIn = try await Self.signIn(http, token: token)
                let attributes = Set(signedIn.setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
                #expect(signedIn.cookie.hasPrefix("tessera_console=tcs_"))
                #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/", "Secure", "Max-Age=28800"]), "\(signedIn.setCookie)")
                #expect(!signedIn.setCookie.contains(token))
                // The page learns the CSRF token again after a reload; the cookie is not readable by scripts.
                let again = try await http.executeRequest(uri: "/admin/session", method: .get, headers: [.cookie: signedIn.cookie], body: nil)
                #expect(String(buffer: again.body) == #"{"csrf":"\#(signedIn.csrf)","signedIn":true}"#)

                let crossSite = try await http.executeRequest(
                    uri: "/admin/session", method: .post, headers: [.contentType: "application/json", .origin: "https://evil.example"],
                    body: ByteBuffer(string: #"{"token":"\#(token)"}"#)
                )
                #expect(crossSite.status == .forbidden)
                #expect(Self.code(crossSite) == 1122)
            }
        }
    }

    @Test("plain HTTP on loopback: the cookie has no Secure attribute (a browser would drop it)")
    func loopbackCookie() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            try await Self.app(runtime).test(.live) { http in
                // The live test client connects from 127.0.0.1 to "localhost".
                let signedIn = try await Self.signIn(http, token: token)
                #expect(signedIn.setCookie.contains("HttpOnly"))
                #expect(!signedIn.setCookie.contains("Secure"), "\(signedIn.setCookie)")
            }
        }
    }

    @Test("with the console cookie: reads work, a change needs the CSRF token (1121) and the same origin (1122), and is audited as admin:console", arguments: TestDatabase.kinds)
    func csrf(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            try await Self.app(runtime).test(.router) { http in
                let console = try await Self.signIn(http, token: token)
                let list = try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: console.cookie], body: nil)
                #expect(list.status == .ok)
                let body = ByteBuffer(string: #"{"name":"Console app","bundleIds":["com.example.console"]}"#)
                let csrf = try #require(HTTPField.Name("X-CSRF-Token"))
                let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
                let refused: [(HTTPFields, Int)] = [
                    ([.cookie: console.cookie, .contentType: "application/json"], 1121),
                    ([.cookie: console.cookie, .contentType: "application/json", csrf: "wrong"], 1121),
                    ([.cookie: console.cookie, .contentType: "application/json", csrf: console.csrf, .origin: "https://evil.example"], 1122),
                    ([.cookie: console.cookie, .contentType: "application/json", csrf: console.csrf, .origin: "null"], 1122),
                    ([.cookie: console.cookie, .contentType: "application/json", csrf: console.csrf, fetchSite: "cross-site"], 1122),
                ]
                for (headers, code) in refused {
                    let response = try await http.executeRequest(uri: "/v1/admin/clients", method: .post, headers: headers, body: body)
                    #expect(response.status == .forbidden)
                    #expect(Self.code(response) == code, "\(headers)")
                }
                #expect(try await runtime.clients.list().isEmpty, "nothing was created")
                let created = try await http.executeRequest(
                    uri: "/v1/admin/clients", method: .post,
                    headers: [.cookie: console.cookie, .contentType: "application/json", csrf: console.csrf, fetchSite: "same-origin"], body: body
                )
                #expect(created.status == .created)
                let entries = try await runtime.database.read { try await runtime.repositories.audit.entries(AuditQuery(limit: 100), in: $0) }
                #expect(entries.last?.type == "admin.client.created")
                #expect(entries.last?.actor == "admin:console")
                // The bearer token keeps working as before, audited as admin.
                let bearer = try await http.executeRequest(
                    uri: "/v1/admin/keys/rotate", method: .post, headers: [.authorization: "Bearer \(token)"], body: nil
                )
                #expect(bearer.status == .ok)
                let last = try await runtime.database.read { try await runtime.repositories.audit.entries(AuditQuery(limit: 100), in: $0) }.last
                #expect(last?.type == "admin.key.rotated" && last?.actor == "admin")
                // A wrong cookie is no session.
                let stale = try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: "tessera_console=tcs_nope"], body: nil)
                #expect(stale.status == .unauthorized)
                #expect(Self.code(stale) == 1105)
            }
        }
    }

    @Test("sign-out ends the session; an idle session ends after 30 minutes on the injected clock")
    func signOutAndIdle() async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(.sqlite, clock: manual.clock) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            try await Self.app(runtime).test(.router) { http in
                let csrf = try #require(HTTPField.Name("X-CSRF-Token"))
                let first = try await Self.signIn(http, token: token)
                let noToken = try await http.executeRequest(uri: "/admin/session", method: .delete, headers: [.cookie: first.cookie], body: nil)
                #expect(Self.code(noToken) == 1121)
                let out = try await http.executeRequest(uri: "/admin/session", method: .delete, headers: [.cookie: first.cookie, csrf: first.csrf], body: nil)
                #expect(out.status == .noContent)
                #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
                let after = try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: first.cookie], body: nil)
                #expect(after.status == .unauthorized)

                let second = try await Self.signIn(http, token: token)
                manual.advance(by: .seconds(29 * 60))
                #expect(try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: second.cookie], body: nil).status == .ok)
                manual.advance(by: .seconds(29 * 60))
                #expect(try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: second.cookie], body: nil).status == .ok)
                manual.advance(by: .seconds(31 * 60))
                let idle = try await http.executeRequest(uri: "/v1/admin/clients", method: .get, headers: [.cookie: second.cookie], body: nil)
                #expect(idle.status == .unauthorized)
                #expect(Self.code(idle) == 1105)
            }
        }
    }

    @Test("the live stream sends new login, OTP, device and session rows with their sequence number, and nothing else", arguments: TestDatabase.kinds)
    func liveEvents(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            let audit = runtime.repositories.audit
            try await runtime.database.transaction { try await audit.append(AuditEvent("login.completed", actor: "system", deviceId: "dev_old"), in: $0) }
            let start = try await runtime.database.read { try await audit.head(in: $0) }.seq
            try await Self.app(runtime).test(.live) { http in
                let base = "http://127.0.0.1:\(try #require(http.port))"
                let console = try await Self.signIn(http, token: token)
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                do {
                    var stream = try await EventStreamClient(client, url: base + "/v1/admin/events", headers: [("Cookie", console.cookie)])
                    #expect(stream.status == 200)
                    #expect(stream.contentType == "text/event-stream")
                    try await runtime.database.transaction { sql in
                        try await audit.append([
                            AuditEvent("admin.client.created", actor: "admin"),
                            AuditEvent("login.started", actor: "device:dev_1", deviceId: "dev_1"),
                            AuditEvent("user.signed_up", actor: "device:dev_1"),
                            AuditEvent("login.completed", actor: "device:dev_1", deviceId: "dev_1"),
                        ], in: sql)
                    }
                    let first = try #require(try await stream.next())
                    let second = try #require(try await stream.next())
                    #expect([first.name, second.name] == ["audit", "audit"])
                    let rows = try [first, second].map { try JSONDecoder().decode(AuditEntry.self, from: Data($0.data.utf8)) }
                    #expect(rows.map(\.type) == ["login.started", "login.completed"], "the old row and the other types are not sent")
                    #expect(rows.map(\.seq) == [start + 2, start + 4])
                    // Resuming after a sequence number replays what follows it.
                    var resumed = try await EventStreamClient(client, url: base + "/v1/admin/events?after=0", headers: [("Cookie", console.cookie)])
                    let replayed = try #require(try await resumed.next())
                    #expect(try JSONDecoder().decode(AuditEntry.self, from: Data(replayed.data.utf8)).seq == 1)
                    // Without a session there is no stream.
                    var anonymous = try await EventStreamClient(client, url: base + "/v1/admin/events")
                    #expect(anonymous.status == 401)
                    _ = try await anonymous.body()
                } catch {
                    try? await client.shutdown()
                    throw error
                }
                try await client.shutdown()
            }
        }
    }

    @Test("audit/verify runs the chain check: OK on an untouched log, the first bad row named after tampering", arguments: TestDatabase.kinds)
    func verify(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let token = try #require(runtime.firstStart?.adminToken)
            let audit = runtime.repositories.audit
            for index in 1...3 {
                try await runtime.database.transaction { try await audit.append(AuditEvent("login.completed", actor: "system", deviceId: "dev_\(index)"), in: $0) }
            }
            try await Self.app(runtime).test(.router) { http in
                let ok = try await http.executeRequest(uri: "/v1/admin/audit/verify", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil)
                let good = try JSONDecoder().decode(AuditVerification.self, from: Data(String(buffer: ok.body).utf8))
                #expect(good.ok && good.rows >= 3 && good.problem == nil)
                let target = try #require(try await runtime.database.read { try await audit.entries(AuditQuery(limit: 1000), in: $0) }
                    .first { $0.deviceId == "dev_2" }?.seq)
                try await runtime.database.withSQL { try await $0.raw("UPDATE audit_log SET device_id = 'dev_x' WHERE seq = \(bind: target)").run() }
                let bad = try JSONDecoder().decode(
                    AuditVerification.self,
                    from: Data(String(buffer: try await http.executeRequest(uri: "/v1/admin/audit/verify", method: .get, headers: [.authorization: "Bearer \(token)"], body: nil).body).utf8)
                )
                #expect(!bad.ok)
                #expect(bad.problem?.seq == target)
            }
        }
    }
}
