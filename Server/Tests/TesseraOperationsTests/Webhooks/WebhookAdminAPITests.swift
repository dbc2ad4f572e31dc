import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The webhook routes of the admin API: the secret is answered once (creation, rotation) and never
/// again, nor logged, nor stored in the clear; bad input gets a problem with a stable code.
@Suite("Webhook admin API")
struct WebhookAdminAPITests {
    static let adminToken = "test-admin-token"
    static let admin: HTTPFields = [.authorization: "Bearer \(adminToken)", .contentType: "application/json"]

    /// The problem's code (nil when the answer is not expected to be a problem).
    static func problemCode(_ response: TestResponse, expected: Bool = true) throws -> Int? {
        guard expected else { return nil }
        #expect(response.headers[.contentType] == "application/problem+json")
        return try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body)).code
    }

    @Test("the secret appears in the create and rotate answers only: not in list, show, update, deliveries, the logs or the database", arguments: TestDatabase.kinds)
    func secretShownOnce(kind: TestDatabase) async throws {
        let log = CapturedLog()
        var configuration = ServerConfiguration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-webhook-admin-\(UUID().uuidString)").path
        configuration.createDemoClient = false
        configuration.adminToken = Self.adminToken
        configuration.embeddedNodes = 0
        let (database, drop) = try await kind.open()
        // Time stands still: the failed delivery's retry (5 s later) never falls due while the test drains, which
        // on a busy machine it did with the real clock (two attempts where the test expects one).
        let runtime = try await TesseraRuntime.bootstrap(
            configuration: configuration, database: database, logger: log.logger, clock: ManualClock(start: WallClock.system.now()).clock, runsNodes: false
        )
        defer { try? FileManager.default.removeItem(atPath: configuration.dataDirectory) }
        do {
            let client = try await runtime.makeTestClient()
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: log.logger)
            try await app.test(.router) { http in
                // Nothing listens on port 9: every delivery fails and is logged.
                let create = CreateWebhookRequest(url: "http://127.0.0.1:9/hooks", eventTypes: ["user.signed_up", "webhook.*"])
                let created = try await http.execute(
                    uri: "/v1/admin/clients/\(client.clientKey)/webhooks", method: .post, headers: Self.admin, body: ByteBuffer(bytes: try JSONEncoder().encode(create))
                ) { response in
                    #expect(response.status == .created)
                    return try JSONDecoder().decode(WebhookEndpointWithSecret.self, from: Data(buffer: response.body))
                }
                #expect(created.endpoint.eventTypes == ["user.signed_up", "webhook.*"] && created.endpoint.enabled)
                let endpointId = created.endpoint.id
                let rotated = try await http.execute(uri: "/v1/admin/webhooks/\(endpointId)/rotate-secret", method: .post, headers: Self.admin) { response in
                    #expect(response.status == .ok)
                    return try JSONDecoder().decode(WebhookEndpointWithSecret.self, from: Data(buffer: response.body))
                }
                let secrets = [created.secret, rotated.secret]
                try await http.run(uri: "/v1/admin/webhooks/\(endpointId)/test", method: .post, headers: Self.admin) { response in
                    #expect(response.status == .accepted)
                }
                // The one delivery is attempted (and fails). A claim that fails for a moment (a busy machine can time
                // out a pool connection) is tried again, as the worker's own loop would; the log says why it failed.
                let attempted = await eventually { await runtime.webhooks.drain() == 1 }
                #expect(attempted, "\(log.text.split(separator: "\n").filter { $0.contains("failed") }.suffix(5))")
                var answers: [String] = []
                for (uri, method, body) in [
                    ("/v1/admin/clients/\(client.clientKey)/webhooks", HTTPRequest.Method.get, nil),
                    ("/v1/admin/webhooks/\(endpointId)", .get, nil),
                    ("/v1/admin/webhooks/\(endpointId)", .patch, #"{"eventTypes":["*"]}"#),
                    ("/v1/admin/webhooks/\(endpointId)/deliveries?limit=10", .get, nil),
                ] as [(String, HTTPRequest.Method, String?)] {
                    answers.append(try await http.execute(uri: uri, method: method, headers: Self.admin, body: body.map { ByteBuffer(string: $0) }) { response in
                        #expect(response.status == .ok, "\(uri)")
                        return String(buffer: response.body)
                    })
                }
                let deliveries = try JSONDecoder().decode(WebhookDeliveryPage.self, from: Data(answers[3].utf8))
                #expect(deliveries.deliveries.first?.attempts == 1 && deliveries.deliveries.first?.status == "pending")
                #expect(deliveries.deliveries.first?.lastError != nil)
                let stored = try await database.withSQL { sql in
                    try await sql.raw("SELECT * FROM webhook_endpoints").all().map { row in
                        try ["sealed_secret", "sealed_previous_secret"].compactMap { try row.decode(column: $0, as: String?.self) }.joined(separator: " ")
                    }.joined()
                }
                for secret in secrets {
                    let keyText = String(secret.dropFirst("whsec_".count))
                    for answer in answers { #expect(!answer.contains(keyText)) }
                    #expect(!log.text.contains(keyText))
                    #expect(!stored.contains(keyText))
                }
                #expect(log.text.contains("webhook attempt failed"))
            }
            await runtime.shutdown()
            await drop()
        } catch {
            await runtime.shutdown()
            await drop()
            throw error
        }
    }

    @Test("bad URLs, unknown event types and unknown IDs get problems 8202, 8203, 8201, 8204; plain http is refused in production except to loopback or with webhooks.allowHttp")
    func problems() async throws {
        for allowHttp in [false, true] {
            try await withTestRuntime(.sqlite, configure: { $0.adminToken = Self.adminToken; $0.production = true; $0.embeddedNodes = 0; $0.webhooksAllowHttp = allowHttp }) { runtime in
                let client = try await runtime.makeTestClient()
                let router = runtime.makeRouter()
                let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
                try await app.test(.router) { http in
                    let path = "/v1/admin/clients/\(client.clientKey)/webhooks"
                    let cases: [(String, HTTPResponse.Status, ErrorCode?)] = [
                        (#"{"url":"ftp://example.com/x","eventTypes":["*"]}"#, .badRequest, .webhookURLInvalid),
                        (#"{"url":"https://user:pw@example.com/x","eventTypes":["*"]}"#, .badRequest, .webhookURLInvalid),
                        (#"{"url":"not a url","eventTypes":["*"]}"#, .badRequest, .webhookURLInvalid),
                        (#"{"url":"http://example.com/x","eventTypes":["*"]}"#, allowHttp ? .created : .badRequest, allowHttp ? nil : .webhookURLInvalid),
                        (#"{"url":"http://127.0.0.1:8080/x","eventTypes":["*"]}"#, .created, nil),
                        (#"{"url":"https://example.com/x","eventTypes":["user.nope"]}"#, .badRequest, .webhookEventTypeUnknown),
                        (#"{"url":"https://example.com/x","eventTypes":[]}"#, .badRequest, .webhookEventTypeUnknown),
                        (#"{"url":"https://example.com/x","eventTypes":["login.*","user.signed_up"]}"#, .created, nil),
                        (#"{"url":"https://example.com/x"}"#, .badRequest, .fieldMissing),
                    ]
                    for (body, status, code) in cases {
                        try await http.run(uri: path, method: .post, headers: Self.admin, body: ByteBuffer(string: body)) { response in
                            #expect(response.status == status, "\(body)")
                            let answered = try Self.problemCode(response, expected: code != nil)
                            if let code { #expect(answered == code.rawValue, "\(body)") }
                        }
                    }
                    for (uri, method, code) in [
                        ("/v1/admin/webhooks/whe_nope", HTTPRequest.Method.get, ErrorCode.webhookEndpointUnknown),
                        ("/v1/admin/webhooks/whe_nope", .delete, .webhookEndpointUnknown),
                        ("/v1/admin/webhooks/whe_nope/rotate-secret", .post, .webhookEndpointUnknown),
                        ("/v1/admin/webhooks/whe_nope/test", .post, .webhookEndpointUnknown),
                        ("/v1/admin/webhooks/whe_nope/deliveries", .get, .webhookEndpointUnknown),
                    ] {
                        try await http.run(uri: uri, method: method, headers: Self.admin) { response in
                            #expect(response.status == .notFound, "\(uri)")
                            let answered = try Self.problemCode(response)
                            #expect(answered == code.rawValue, "\(uri)")
                        }
                    }
                    let endpoint = try await runtime.webhookAdmin.list(clientKey: client.clientKey).endpoints[0]
                    try await http.run(uri: "/v1/admin/webhooks/\(endpoint.id)/deliveries/whd_nope/redeliver", method: .post, headers: Self.admin) { response in
                        #expect(response.status == .notFound)
                        let answered = try Self.problemCode(response)
                        #expect(answered == ErrorCode.webhookDeliveryUnknown.rawValue)
                    }
                    try await http.run(uri: "/v1/admin/webhooks/\(endpoint.id)/deliveries?limit=0", method: .get, headers: Self.admin) { response in
                        #expect(response.status == .badRequest)
                    }
                    try await http.run(uri: "/v1/admin/webhooks/\(endpoint.id)/deliveries?before=zzz", method: .get, headers: Self.admin) { response in
                        #expect(response.status == .badRequest)
                    }
                    try await http.run(uri: "/v1/admin/webhooks/\(endpoint.id)", method: .delete, headers: Self.admin) { response in
                        #expect(response.status == .noContent)
                    }
                }
            }
        }
    }
}
