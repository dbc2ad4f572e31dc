import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// The session routes over HTTP: RFC 6750 challenges on 401, a session without a device key limited
/// to registering one or logging out, and log-out ending the session.
@Suite("HTTP: sessions")
struct SessionHTTPTests {
    @Test("401s challenge for a bearer token; a session without a device is 7104 until it logs out; then 7103")
    func sessionRoutes() async throws {
        try await withTestRuntime(.sqlite, configure: { $0.passwordScryptLogN = 10 }) { runtime in
            let client = try await runtime.makeTestClient()
            let grant = try await PasswordLoginTests.identity(runtime, client, phone: "+41790000301", password: nil)
            let app = Application(router: runtime.makeRouter(), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                func headers(_ bearer: String?) -> HTTPFields {
                    var fields = HTTPFixtures.appHeaders(client)
                    if let bearer { fields[.authorization] = "Bearer \(bearer)" }
                    return fields
                }
                func code(_ response: TestResponse) throws -> Int {
                    try JSONDecoder().decode(Problem.self, from: Data(buffer: response.body)).code
                }
                try await http.run(uri: "/v1/sessions", method: .get, headers: headers(nil)) { response in
                    #expect(response.status == .unauthorized)
                    #expect((try? code(response)) == 7101)
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="tessera""#)
                }
                try await http.run(uri: "/v1/sessions", method: .get, headers: headers("tss_forged")) { response in
                    #expect(response.status == .unauthorized)
                    #expect((try? code(response)) == 7101)
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="tessera", error="invalid_token""#)
                }
                try await http.run(uri: "/v1/sessions", method: .get, headers: headers(grant.sessionToken)) { response in
                    #expect(response.status == .forbidden)
                    #expect((try? code(response)) == 7104)
                }
                try await http.run(uri: "/v1/session", method: .delete, headers: headers(grant.sessionToken)) { response in
                    #expect(response.status == .noContent)
                }
                try await http.run(uri: "/v1/session", method: .delete, headers: headers(grant.sessionToken)) { response in
                    #expect(response.status == .unauthorized)
                    #expect((try? code(response)) == 7103)
                    #expect(response.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
                }
            }
        }
    }
}
