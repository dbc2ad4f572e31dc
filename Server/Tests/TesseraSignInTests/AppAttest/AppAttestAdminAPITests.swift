import Configuration
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport

/// `GET`/`PUT /v1/admin/clients/{clientKey}/app-attest` (issue 41) on both databases: the defaults, each wrong member
/// refused with 1005 naming it (never a 5xx, the stored settings unchanged), each change audited as
/// `admin.client.app_attest_set`; and `appAttest.roots`, the tests-only replacement of Apple's root.
@Suite("App Attest admin API")
struct AppAttestAdminAPITests {
    /// The `admin.client.app_attest_set` entries of the audit log (`GET /v1/admin/audit`): actor and details.
    static func auditEntries(_ fixture: AppAttestHTTPFixture) async throws -> [(actor: String, details: [String: String])] {
        let response = try await fixture.http.executeRequest(
            uri: "/v1/admin/audit?type=admin.client.app_attest_set", method: .get, headers: AppAttestHTTPFixture.admin, body: nil
        )
        try #require(response.status == .ok)
        let page = try JSONDecoder().decode(AuditPage.self, from: Data(buffer: response.body))
        return try page.entries.map { ($0.actor, try JSONDecoder().decode([String: String].self, from: Data($0.details.utf8))) }
    }

    /// The settings `response` answers.
    static func decode(_ response: TestResponse) throws -> AppAttestSettings {
        try JSONDecoder().decode(AppAttestSettings.self, from: Data(buffer: response.body))
    }

    @Test("defaults, a stored change, and each wrong member refused with 1005 naming it; changes audited, refusals not",
          arguments: TestDatabase.kinds)
    func settingsValidatedAndAudited(kind: TestDatabase) async throws {
        try await AppAttestHTTPFixture.run(kind) { fixture in
            let path = "/v1/admin/clients/\(fixture.client.clientKey)/app-attest"
            let initial = try await fixture.http.executeRequest(uri: path, method: .get, headers: AppAttestHTTPFixture.admin, body: nil)
            #expect(initial.status == .ok)
            #expect(try Self.decode(initial) == AppAttestSettings(policy: "off", teamId: "", bundleId: "", environment: "production"))
            #expect(String(buffer: initial.body).contains(#""policy":"off""#))

            let settings = AppAttestHTTPFixture.settings("required", environment: "development")
            let stored = try await fixture.putSettings(settings)
            #expect(stored.status == .ok)
            #expect(try Self.decode(stored) == settings)
            // Members left out take their defaults (environment production); off may leave the app out.
            #expect(try Self.decode(try await fixture.putSettings(json: #"{"policy":"reported","teamId":"TESTTEAM42","bundleId":"org.example.tessera"}"#))
                == AppAttestHTTPFixture.settings("reported", environment: "production"))
            #expect(try Self.decode(try await fixture.putSettings(json: "{}")) == AppAttestSettings())
            #expect(try await fixture.putSettings(settings).status == .ok)

            let refused: [(String, String)] = [
                (#"{"policy":"sometimes"}"#, "policy"),
                (#"{"environment":"staging"}"#, "environment"),
                (#"{"teamId":"SHORT"}"#, "teamId"),
                (#"{"teamId":"testteam42"}"#, "teamId"),
                (#"{"bundleId":"org..example"}"#, "bundleId"),
                (#"{"bundleId":".org.example"}"#, "bundleId"),
                (#"{"bundleId":"org.ex ample"}"#, "bundleId"),
                ("{\"bundleId\":\"\(String(repeating: "a", count: 156))\"}", "bundleId"),
                (#"{"policy":"reported","bundleId":"org.example.tessera"}"#, "teamId"),
                (#"{"policy":"required","teamId":"TESTTEAM42"}"#, "bundleId"),
            ]
            for (body, field) in refused {
                expectProblem(try await fixture.putSettings(json: body), .badRequest, .fieldInvalid, field: field)
            }
            for body in [#"{"teamId":null}"#, #"{"policy":1}"#, #"{"environment":["production"]}"#, "not json", "[]"] {
                let response = try await fixture.putSettings(json: body)
                #expect(response.status == .badRequest, "\(body): \(String(buffer: response.body))")
                #expect(response.headers[.contentType] == "application/problem+json")
            }
            expectProblem(try await fixture.putSettings(json: "{}", clientKey: "tck_unknown"), .notFound, .clientUnknown)
            let unauthorized = try await fixture.http.executeRequest(
                uri: path, method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")
            )
            #expect(unauthorized.status == .unauthorized)

            let current = try await fixture.http.executeRequest(uri: path, method: .get, headers: AppAttestHTTPFixture.admin, body: nil)
            #expect(try Self.decode(current) == settings, "a refused change leaves the settings")
            let entries = try await Self.auditEntries(fixture)
            #expect(entries.count == 4, "\(entries)")
            #expect(entries.allSatisfy { $0.actor == "admin" && $0.details == ["clientKey": fixture.client.clientKey] }, "\(entries)")
        }
    }

    @Test("appAttest.roots is a configuration key: read as a file of PEM certificates, refused in production, a bad file stops the start")
    func rootsConfiguration() async throws {
        #expect(ConfigurationKeys.all.contains("appAttest.roots"))
        func read(_ arguments: [String]) throws -> ServerConfiguration {
            try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + arguments)))
        }
        #expect(try read(["--app-attest-roots", "/tmp/roots.pem"]).appAttestRoots == "/tmp/roots.pem")
        #expect(throws: ConfigurationError.self) { try read(["--app-attest-roots", "/tmp/roots.pem", "--production", "true"]) }
        #expect(ConfigurationKeys.environmentVariable(for: "appAttest.roots") == "TESSERA_APP_ATTEST_ROOTS")

        let minted = try await AppAttestFixtures.minted()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-appattest-roots-\(UUID().uuidString).pem")
        defer { try? FileManager.default.removeItem(at: file) }
        var configuration = ServerConfiguration()
        configuration.appAttestRoots = file.path
        #expect(throws: ConfigurationError.self) { try configuration.appAttestTrustedRoots() }
        try Data((minted.rootPEM + "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n").utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try configuration.appAttestTrustedRoots() }
        try Data((minted.rootPEM + minted.rootPEM).utf8).write(to: file)
        #expect(try configuration.appAttestTrustedRoots()?.count == 2)
        configuration.appAttestRoots = nil
        #expect(try configuration.appAttestTrustedRoots() == nil)
    }
}
