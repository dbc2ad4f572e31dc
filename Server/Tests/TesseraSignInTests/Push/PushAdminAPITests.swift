import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// `PUT/GET /v1/admin/clients/{clientKey}/push`: settings are checked, stored with the key
/// sealed, and never shown with a private key.
@Suite("Push admin API")
struct PushAdminAPITests {
    static let adminToken = "test-admin-token"
    static let admin: HTTPFields = [.authorization: "Bearer \(adminToken)", .contentType: "application/json"]

    @Test("GET and PUT answer without the private key; the stored key is sealed; bad settings are refused with 8001", arguments: TestDatabase.kinds)
    func settingsWithoutSecrets(kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.adminToken = Self.adminToken }) { runtime in
            let client = try await runtime.makeTestClient()
            let key = P256.Signing.PrivateKey()
            let pem = key.pemRepresentation
            let secretBody = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
            let update = PushSettingsUpdate(apns: APNsSettingsUpdate(
                teamId: "TEAM123456", keyId: "ABC123DEFG", privateKey: pem, topic: "com.example.app", environment: .sandbox
            ))
            let path = "/v1/admin/clients/\(client.clientKey)/push"
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    #expect(response.status == .ok)
                    let view = try JSONDecoder().decode(PushSettingsView.self, from: Data(buffer: response.body))
                    #expect(view == PushSettingsView.empty && view.provider == nil && !view.hasKey)
                }
                // off on a client without settings succeeds.
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: #"{"off":true}"#)) { response in
                    #expect(response.status == .ok)
                }
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(bytes: try JSONEncoder().encode(update))) { response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    #expect(!text.contains("PRIVATE KEY") && !text.contains(secretBody))
                }
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    #expect(!text.contains("PRIVATE KEY") && !text.contains(secretBody))
                    let view = try JSONDecoder().decode(PushSettingsView.self, from: Data(buffer: response.body))
                    #expect(view == PushSettingsView(
                        provider: .apns, teamId: "TEAM123456", keyId: "ABC123DEFG", topic: "com.example.app", environment: .sandbox, hasKey: true
                    ))
                }
                var broken = update
                broken.apns?.privateKey = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----"
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(bytes: try JSONEncoder().encode(broken))) { response in
                    #expect(response.status == .badRequest)
                    #expect(response.headers[.contentType] == "application/problem+json")
                    let problem = try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body))
                    #expect(problem.code == ErrorCode.pushSettingsInvalid.rawValue)
                    #expect(!String(buffer: response.body).contains("not a key"))
                }
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: "{}")) { response in
                    #expect(response.status == .badRequest)
                }
                for body in [#"{"off":true,"apns":null,"fcm":{"projectId":"p","serviceAccount":"{}"}}"#, #"{"off":false}"#] {
                    try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: body)) { response in
                        #expect(response.status == .badRequest, "\(body)")
                    }
                }
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    let view = try JSONDecoder().decode(PushSettingsView.self, from: Data(buffer: response.body))
                    #expect(view.provider == .apns, "a refused update leaves the settings")
                }
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: #"{"off":true}"#)) { response in
                    #expect(response.status == .ok)
                }
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    #expect(response.status == .ok)
                    let view = try JSONDecoder().decode(PushSettingsView.self, from: Data(buffer: response.body))
                    #expect(view.provider == nil)
                }
                try await http.run(uri: "/v1/admin/clients/tck_unknown/push", method: .put, headers: Self.admin, body: ByteBuffer(string: #"{"off":true}"#)) { response in
                    #expect(response.status == .notFound)
                }
            }
            // At rest the key is sealed: the row holds neither the PEM nor its base64 body.
            _ = try await runtime.pushAdmin.set(update, clientKey: client.clientKey)
            let stored = try await runtime.database.withSQL { sql in
                try await sql.raw("SELECT settings, sealed_secret FROM client_push_settings").all().map {
                    try $0.decode(column: "settings", as: String.self) + (try $0.decode(column: "sealed_secret", as: String.self))
                }
            }
            #expect(stored.count == 1)
            #expect(!stored.joined().contains(secretBody))
            #expect(try await runtime.repositories.push.settings(clientId: client.id)?.privateKey == pem)
        }
    }
}
