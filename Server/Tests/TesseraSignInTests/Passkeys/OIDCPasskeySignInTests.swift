import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// Passkey sign-in on the hosted page over HTTP (the page's script's two calls), on SQLite and
/// PostgreSQL: options bound to the pending authorization, the assertion of a software authenticator,
/// the code to the client with the state, and an ID token whose `amr` says how (RFC 8176).
@Suite("OIDC: passkey sign-in on the hosted page")
struct OIDCPasskeySignInTests {
    static let redirect = "https://app.example.com/callback"
    static let verifier = String(repeating: "p", count: 43)

    static func form(_ fields: [String: String]) -> ByteBuffer {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return ByteBuffer(string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&"))
    }

    static let formHeaders: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// The JSON payload of a JWT, without checking it (the test reads claims the token endpoint just made).
    static func payload(_ jwt: String) throws -> [String: Any] {
        let part = String(jwt.split(separator: ".")[1])
        let bytes = try #require(Base64URL.decode(part))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("button: options, assertion, code with the state; the ID token says amr [hwk, user]; the request cannot be used again", arguments: TestDatabase.kinds)
    func signIn(_ kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.embeddedNodes = 0; $0.issuer = PasskeyServiceTests.origin }) { runtime in
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            try await OIDCRefreshServiceTests.addAlice(runtime, client: client)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect]), clientKey: client.clientKey)
            var authenticator = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            let registration = try await runtime.passkeys.registrationOptions(
                client: client, userId: "usr_alice_\(client.id)", userName: "alice@example.org", displayName: "Alice", binding: "setup")
            _ = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: registration.challengeId, binding: "setup", response: authenticator.create(registration.options), name: nil)

            let query = [
                "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid email", "state": "st-9",
                "nonce": "n-9", "code_challenge": OIDCService.challenge(of: Self.verifier), "code_challenge_method": "S256",
            ]
            guard case .page(let pending, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
            let device = authenticator
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                var authenticator = device
                let base = "/oauth2/authorize/\(pending.id)/passkey"
                // A wrong form token: 404 (8101), as the page's other calls.
                try await http.execute(uri: base + "/options", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": "wrong"])) { response in
                    #expect(response.status == .notFound)
                }
                struct Options: Decodable { var challengeId: String; var publicKey: PasskeyJSON.RequestOptions }
                let options = try await http.execute(uri: base + "/options", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf])) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl] == "no-store")
                    return try JSONDecoder().decode(Options.self, from: Data(buffer: response.body))
                }
                #expect(options.publicKey.allowCredentials.isEmpty && options.publicKey.userVerification == "required")
                // Garbage for the credential: 400 naming it.
                try await http.execute(uri: base, method: .post, headers: Self.formHeaders,
                                       body: Self.form(["csrf": csrf, "challengeId": options.challengeId, "credential": "{\u{0}"])) { response in
                    #expect(response.status == .badRequest)
                    #expect(String(buffer: response.body).contains("credential"))
                }
                let assertion = String(decoding: try JSONEncoder().encode(try authenticator.get(options.publicKey)), as: UTF8.self)
                let location = try await http.execute(uri: base, method: .post, headers: Self.formHeaders,
                                                      body: Self.form(["csrf": csrf, "challengeId": options.challengeId, "credential": assertion])) { response in
                    #expect(response.status == .ok, "\(String(buffer: response.body))")
                    #expect(response.headers[.setCookie]?.contains("HttpOnly") == true)
                    return (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: String])?["location"] ?? ""
                }
                let callback = try #require(URLComponents(string: location))
                #expect(location.hasPrefix(Self.redirect + "?"))
                #expect(callback.queryItems?.first { $0.name == "state" }?.value == "st-9")
                let code = try #require(callback.queryItems?.first { $0.name == "code" }?.value)
                let tokens = try await runtime.oidc.exchange(client: client, form: [
                    "grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirect, "code_verifier": Self.verifier,
                ])
                let claims = try Self.payload(tokens.idToken)
                #expect(claims["sub"] as? String == "alice")
                #expect(claims["amr"] as? [String] == ["hwk", "user"])
                #expect(claims["nonce"] as? String == "n-9")
                // The authorization is finished: its passkey calls are refused.
                try await http.execute(uri: base + "/options", method: .post, headers: Self.formHeaders, body: Self.form(["csrf": csrf])) { response in
                    #expect(response.status == .notFound)
                }
            }
        }
    }
}

