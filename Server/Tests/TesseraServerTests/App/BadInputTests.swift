import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// Bad input that used to answer 5xx: U+0000 in text (PostgreSQL refuses it), chunked bodies over
/// the limit, broken chunked framing, HTTP that cannot be parsed, unknown methods.
@Suite("Bad input")
struct BadInputTests {
    static let adminToken = "test-admin-token"

    struct Setup: Sendable {
        let client: ClientWithSecret
        var clientKey: String { client.client.clientKey }

        var app: HTTPFields {
            var fields: HTTPFields = [.contentType: "application/json"]
            fields[HTTPField.Name(TesseraHeader.clientKey)!] = client.client.clientKey
            fields[HTTPField.Name(TesseraHeader.bundleId)!] = client.client.bundleIds[0]
            return fields
        }
        var admin: HTTPFields { [.authorization: "Bearer \(BadInputTests.adminToken)", .contentType: "application/json"] }
        func backend(_ contentType: String = "application/json", key: String? = nil) -> HTTPFields {
            let credentials = Data("\(key ?? client.client.clientKey):\(client.clientSecret)".utf8).base64EncodedString()
            return [.authorization: "Basic \(credentials)", .contentType: contentType]
        }
    }

    func withApp(
        _ kind: TestDatabase, live: Bool = false, _ body: @escaping @Sendable (Setup, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withTestRuntime(kind, configure: { $0.adminToken = Self.adminToken }) { runtime in
            let client = try await runtime.clients.create(name: "Test app", bundleIds: ["com.example.app"])
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
            try await app.test(live ? .live : .router) { http in
                try await body(Setup(client: client), http)
            }
        }
    }

    func problem(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> Problem {
        #expect(response.headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
    }

    func problem(_ response: RawHTTP, sourceLocation: SourceLocation = #_sourceLocation) throws -> Problem {
        #expect(response.headers["content-type"] == "application/problem+json", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(Problem.self, from: Data(response.body.utf8))
    }

    // MARK: U+0000

    @Test("U+0000 in a body, a form or a query answers 400 naming the field, on both engines", arguments: TestDatabase.kinds)
    func nulCharacter(_ kind: TestDatabase) async throws {
        try await withApp(kind) { setup, http in
            let key = setup.clientKey
            let cases: [(String, HTTPRequest.Method, HTTPFields, String?, String)] = [
                (
                    "/v1/devices/recovery/send-otp", .post, setup.app,
                    #"{"userKey":"\u0000","name":"A","sendType":"email","sendTarget":"a@example.com"}"#, "userKey"
                ),
                ("/v1/otp/send", .post, setup.app, #"{"sendType":"email","sendTarget":"a\u0000@example.com"}"#, "sendTarget"),
                ("/v1/users/check-user-key", .post, setup.app, #"{"userKey":"x\u0000"}"#, "userKey"),
                ("/v1/rp/totp/verify", .post, setup.backend(), #"{"userKey":"\u0000","code":"123456"}"#, "userKey"),
                ("/v1/rp/auth-requests", .post, setup.backend(), #"{"userKey":"\u0000","connectIp":"192.0.2.1","message":"hi"}"#, "userKey"),
                ("/v1/rp/introspect", .post, setup.backend("application/x-www-form-urlencoded"), "token=a%00b", "token"),
                ("/v1/rp/introspect", .post, setup.backend(), #"{"token":"\u0000"}"#, "token"),
                ("/v1/admin/clients", .post, setup.admin, #"{"name":"a\u0000b","bundleIds":["com.x.app"]}"#, "name"),
                ("/v1/admin/totp/reset", .post, setup.admin, #"{"clientKey":"\u0000","userKey":"u"}"#, "clientKey"),
                ("/v1/admin/users?clientKey=\(key)&after=%00", .get, setup.admin, nil, "after"),
                ("/v1/admin/users?clientKey=%00", .get, setup.admin, nil, "clientKey"),
                ("/v1/admin/users/u/sessions?clientKey=a%00", .get, setup.admin, nil, "clientKey"),
                ("/v1/admin/users/u/authenticators?clientKey=%00", .get, setup.admin, nil, "clientKey"),
                ("/v1/admin/users/u/passkeys?clientKey=%00", .get, setup.admin, nil, "clientKey"),
                ("/v1/rp/auth-requests/x?wait=%00", .get, setup.backend(), nil, "wait"),
            ]
            for (uri, method, headers, body, field) in cases {
                try await http.run(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    #expect(response.status == .badRequest, "\(uri) \(body ?? "")")
                    let decoded = try problem(response)
                    #expect(decoded.code == ErrorCode.fieldInvalid.rawValue, "\(uri) \(body ?? "")")
                    #expect(decoded.field == field, "\(uri) \(body ?? "")")
                }
            }
            // Client credentials with U+0000 are wrong credentials, as on SQLite.
            try await http.run(
                uri: "/v1/rp/totp/verify", method: .post, headers: setup.backend(key: "tck_\u{0}"),
                body: ByteBuffer(string: #"{"userKey":"u","code":"123456"}"#)
            ) { response in
                #expect(response.status == .unauthorized)
                try #expect(problem(response).code == ErrorCode.clientSecretInvalid.rawValue)
            }
        }
    }

    @Test("a nested string or a member name with U+0000 is named by its path")
    func nulPaths() throws {
        let cases: [(String, String)] = [
            (#"{"a":[{"b":"x"},{"b":"y\u0000"}]}"#, "a.1.b"),
            (#"{"a":{"k\u0000":1}}"#, #"a.k\u0000"#),
            (#""\u0000""#, "body"),
        ]
        for (json, path) in cases {
            do {
                try TextCheck.checkJSON(Data(json.utf8))
                Issue.record("\(json) passed")
            } catch let error as AppError {
                #expect(error.code == .fieldInvalid)
                #expect(error.field == path)
            }
        }
        try TextCheck.checkJSON(Data(#"{"a":"\\u0000"}"#.utf8))  // an escaped backslash, not U+0000
    }

    @Test("PostgreSQL refusing a value is a 400, not a 500", arguments: TestDatabase.kinds.filter { $0 == .postgres })
    func refusedValue(_ kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            await expectCode(.fieldInvalid) {
                _ = try await runtime.clients.create(name: "a\u{0}b", bundleIds: ["com.example.app"])
            }
            await expectCode(.fieldInvalid) {
                try await runtime.database.transaction { sql in try await sql.raw("SELECT \(bind: "a\u{0}")::text").run() }
            }
        }
    }

    // MARK: HTTP framing

    func rawRequest(_ setup: Setup, _ method: String, _ path: String, headers: [String] = [], body: String = "") -> String {
        let lines = ["\(method) \(path) HTTP/1.1", "Host: localhost", "Connection: close"] + headers
        return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
    }

    func chunked(_ text: String, chunkSize: Int = 8192) -> String {
        var out = "", rest = Substring(text)
        while !rest.isEmpty {
            let chunk = rest.prefix(chunkSize)
            out += String(chunk.utf8.count, radix: 16) + "\r\n" + String(chunk) + "\r\n"
            rest = rest.dropFirst(chunk.count)
        }
        return out + "0\r\n\r\n"
    }

    func appHeaderLines(_ setup: Setup) -> [String] {
        [
            "Content-Type: application/json", "\(TesseraHeader.clientKey): \(setup.clientKey)",
            "\(TesseraHeader.bundleId): \(setup.client.client.bundleIds[0])", "Transfer-Encoding: chunked",
        ]
    }

    @Test("a chunked body over the limit answers 413 like one with Content-Length")
    func chunkedTooLarge() async throws {
        try await withApp(.sqlite, live: true) { setup, http in
            let port = try #require(http.port)
            let big = #"{"sendType":"email","sendTarget":""# + String(repeating: "a", count: 70_000) + #""}"#
            let adminLines = ["Authorization: Bearer \(Self.adminToken)", "Content-Type: application/json", "Transfer-Encoding: chunked"]
            let requests = [
                rawRequest(setup, "POST", "/v1/otp/send", headers: appHeaderLines(setup), body: chunked(big)),
                rawRequest(setup, "POST", "/v1/admin/clients", headers: adminLines, body: chunked(big)),
            ]
            for request in requests {
                let response = try await RawHTTP.exchange(port: port, request)
                #expect(response.status == 413)
                try #expect(problem(response).code == ErrorCode.bodyTooLarge.rawValue)
            }
        }
    }

    @Test("broken chunked framing, a garbage request line, a broken header or binary junk answer a 400 problem")
    func malformedHTTP() async throws {
        try await withApp(.sqlite, live: true) { setup, http in
            let port = try #require(http.port)
            let cases: [(String, [UInt8])] = [
                ("chunk size", Array(rawRequest(setup, "POST", "/v1/otp/send", headers: appHeaderLines(setup), body: "zz\r\n{}\r\n0\r\n\r\n").utf8)),
                ("chunk end", Array(rawRequest(setup, "POST", "/v1/otp/send", headers: appHeaderLines(setup), body: "2\r\n{}XX0\r\n\r\n").utf8)),
                ("request line", Array("GARBAGE\r\n\r\n".utf8)),
                ("header", Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nno colon here\r\n\r\n".utf8)),
                ("binary", [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03, 0x0D, 0x0A, 0x0D, 0x0A]),
            ]
            for (name, request) in cases {
                let response = try await RawHTTP.exchange(port: port, request)
                #expect(response.status == 400, "\(name)")
                try #expect(problem(response).code == ErrorCode.badRequest.rawValue, "\(name)")
            }
            // The server still answers afterwards.
            let health = try await RawHTTP.exchange(port: port, rawRequest(setup, "GET", "/healthz"))
            #expect(health.status == 200)
        }
    }

    // MARK: Methods

    @Test("every route answers an unknown method with 405 and Allow")
    func unknownMethods() async throws {
        try await withTestRuntime(.sqlite) { runtime in
            let router = runtime.makeRouter()
            var methods: [String: Set<String>] = [:]
            for route in router.routes {
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix("{") || $0.hasPrefix(":") ? "x" : String($0) }
                methods["/" + path.joined(separator: "/"), default: []].insert(route.method.rawValue)
            }
            #expect(methods.count > 40)
            let routed = methods
            let app = Application(router: router, logger: TestDatabase.logger)
            try await app.test(.router) { http in
                for (path, allowed) in routed {
                    let method: HTTPRequest.Method = allowed.contains("PATCH") ? .options : .patch
                    try await http.run(uri: path, method: method) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                        let listed = allowed.contains("GET") ? allowed.union(["HEAD"]) : allowed   // HEAD is answered as GET
                        #expect(response.headers[.allow] == listed.sorted().joined(separator: ", "), "\(path)")
                        try #expect(problem(response).code == ErrorCode.methodNotAllowed.rawValue)
                    }
                }
            }
        }
    }

    @Test("over a real socket, any method token on a routed path answers 405 with Allow, also one the parser does not know")
    func unknownMethodLive() async throws {
        try await withApp(.sqlite, live: true) { setup, http in
            let port = try #require(http.port)
            for method in ["PROPFIND", "PATCH", "FOO", "BREW"] {
                let response = try await RawHTTP.exchange(port: port, rawRequest(setup, method, "/v1/admin/clients/x/policy?a=b"))
                #expect(response.status == 405, "\(method)")
                #expect(response.headers["allow"] == "GET, HEAD, PUT", "\(method)")
                try #expect(problem(response).code == ErrorCode.methodNotAllowed.rawValue, "\(method)")
            }
            let unrouted = try await RawHTTP.exchange(port: port, rawRequest(setup, "FOO", "/v1/nothing"))
            #expect(unrouted.status == 404)
            try #expect(problem(unrouted).code == ErrorCode.notFound.rawValue)
        }
    }
}
