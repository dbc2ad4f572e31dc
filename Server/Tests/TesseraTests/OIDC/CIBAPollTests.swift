import Crypto
import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// OpenID CIBA Core 1.0 in poll mode, driven by an independent client (Server/Tests/Fixtures/ciba/ciba_client.py:
/// `requests` and PyJWT, written against the specification) against a live server whose user's phone is the SDK:
/// approved (§10.1; the ID token verified through the JWKS, userinfo answers), declined (§11 `access_denied`),
/// expired (`expired_token`), polled too fast (`slow_down`), the `auth_req_id` used twice (`invalid_grant`), a
/// `login_hint` for no one (the same answer), and the refused requests of §13 (`invalid_binding_message`,
/// `invalid_request`, `invalid_scope`, `invalid_client`).
@Suite("CIBA: poll mode with an independent client")
struct CIBAPollTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fixtures/ciba/ciba_client.py").standardized.path
    static let bundle = "com.example.ciba"

    /// Runs the client with `scenario` for `hint` while `phone` answers on the user's device; the client's last JSON line.
    static func run(
        _ scenario: String, hint: String = "nora", extra: [String] = [], ping: Bool = false, push: Bool = false, clientKey: Bool = false,
        userCode: String? = nil,
        phone: @escaping @Sendable (TesseraClient, AuthChannelResponse) async throws -> Void = { _, _ in },
        after: @escaping @Sendable (TesseraRuntime) async throws -> Void = { _ in }
    ) async throws -> [String: Any] {
        let python = try TestRequirements.python(importing: ["requests", "jwt"], for: "the CIBA client")
        let port = try NodeQuorumEndToEndTests.freePort()
        let result = OIDCBrowserTests.Shared<String>("")
        try await LiveServer.run(bundleId: Self.bundle, port: port, configure: {
            $0.issuer = "http://127.0.0.1:\(port)"
            // The client waits the interval before each poll: 1 s keeps the runs short. Two polls at once must fall
            // within the interval however slow the machine: 60 s for them.
            $0.cibaInterval = .seconds(scenario == "fast" ? 60 : 1)
        }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "nora", bundleId: Self.bundle)
            let secret = try await runtime.clients.rotateSecret(clientKey: client.clientKey).clientSecret
            let issuer = "http://127.0.0.1:\(port)"
            var extra = extra
            if let userCode {
                // nora's Tessera password, which the client requires as her user_code.
                let hash = try await runtime.accounts.passwordLogin.passwords.hash(userCode)
                try await runtime.database.withSQL { sql in
                    try await sql.raw("UPDATE users SET password_hash = \(bind: hash) WHERE user_key = 'nora'").run()
                }
                _ = try await runtime.signIn.ciba.setSettings(CIBAClientSettings(userCodeRequired: true), client: client)
                extra.append("code=" + userCode)
            }
            if clientKey {
                // The client's own P-256 key: its public half registered (a JWK Set), the PEM for the Python client.
                let key = P256.Signing.PrivateKey(), point = key.publicKey.x963Representation
                let jwk = ["kty": "EC", "crv": "P-256", "kid": "client-es256", "alg": "ES256", "use": "sig",
                           "x": Base64URL.encode(point[1..<33]), "y": Base64URL.encode(point[33...])]
                let jwks = String(decoding: try JSONSerialization.data(withJSONObject: ["keys": [jwk]]), as: UTF8.self)
                _ = try await runtime.signIn.oidc.clientKeys.setSettings(ClientKeySettings(jwks: jwks), client: client)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("ciba-client-\(UUID().uuidString).pem").path
                try key.pemRepresentation.write(toFile: file, atomically: true, encoding: .utf8)
                extra.append("key=" + file)
            }
            if ping || push {
                let receiver = try NodeQuorumEndToEndTests.freePort()
                _ = try await runtime.signIn.ciba.setSettings(
                    CIBAClientSettings(deliveryMode: push ? "push" : "ping", notificationEndpoint: "http://127.0.0.1:\(receiver)/ciba"), client: client
                )
                extra = ["\(receiver)"] + extra
            }
            let arguments = [Self.script, issuer, client.clientKey, secret, scenario, hint] + extra
            let child = Task { try await ChildProcess.run(python, arguments) }
            if ["poll", "reuse", "ping", "push", "pkjwt", "lht", "usercode"].contains(scenario), hint == "nora" || scenario == "lht" {
                guard let pending = await eventually(timeout: .seconds(120), { try? await tessera.pendingAuthRequests().first }) else {
                    Issue.record("no request reached the phone: \((try? await child.value)?.output ?? "")")
                    return
                }
                #expect(pending.message == "Order 4711", "the binding message is what the phone shows")
                try await phone(tessera, pending)
            }
            let run = try await child.value
            try #require(run.status == 0, "\(run.output)")
            let line = try #require(run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }), "\(run.output)")
            result.value.withLock { $0 = String(line) }
            try await after(runtime)
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(result.current.utf8)) as? [String: Any])
    }

    static let approve: @Sendable (TesseraClient, AuthChannelResponse) async throws -> Void = { tessera, pending in
        _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
    }

    @Test("§10.1: approved on the phone: the ID token (verified through the JWKS) names the user with amr hwk,pin, the e-mail asked for and the 2 nodes of the quorum; userinfo answers the access token; polled again: invalid_grant")
    func approved() async throws {
        let result = try await Self.run("reuse", phone: Self.approve)
        #expect(result["stage"] as? String == "tokens", "\(result)")
        #expect(result["sub"] as? String == "nora" && result["amr"] as? [String] == ["hwk", "pin"] && result["email"] as? String == "nora@example.com", "\(result)")
        #expect((result["nodes"] as? [String])?.count == 2, "the ID token names the nodes whose attestations made the quorum: \(result)")
        #expect(result["userinfo_sub"] as? String == "nora" && result["token_type"] as? String == "Bearer" && result["scope"] as? String == "openid email")
        #expect(result["again"] as? String == "invalid_grant" && result["again_status"] as? Int == 400, "\(result)")
    }

    @Test("§11: declined on the phone: access_denied")
    func declined() async throws {
        let result = try await Self.run("poll") { tessera, pending in try await tessera.declineAuthRequest(pending) }
        #expect(result["stage"] as? String == "token" && result["error"] as? String == "access_denied" && result["status"] as? Int == 400, "\(result)")
    }

    @Test("§7.1 requested_expiry 1 s, nobody answers: expired_token")
    func expired() async throws {
        let result = try await Self.run("expire")
        #expect(result["error"] as? String == "expired_token" && result["expires_in"] as? Int == 1, "\(result)")
    }

    @Test("§11: two polls at once: authorization_pending, then slow_down")
    func slowDown() async throws {
        let result = try await Self.run("fast")
        #expect(result["first"] as? String == "authorization_pending" && result["second"] as? String == "slow_down" && result["status"] as? Int == 400, "\(result)")
    }

    @Test("a login_hint for no one gets an auth_req_id and authorization_pending, as a real user who has not answered (no enumeration)")
    func unknownUser() async throws {
        let result = try await Self.run("fast", hint: "nobody@example.com")
        #expect(result["first"] as? String == "authorization_pending", "\(result)")
    }

    @Test("§13: a binding_message of 65 characters or with a control character is invalid_binding_message; two hints or none invalid_request; no openid invalid_scope; all with no-store", arguments: [
        (["binding_message=" + String(repeating: "x", count: 65)], "invalid_binding_message"),
        (["binding_message=Order\u{7}4711"], "invalid_binding_message"),
        (["id_token_hint=eyJ.x.y"], "invalid_request"),
        (["login_hint="], "invalid_request"),
        (["scope=email"], "invalid_scope"),
        (["login_hint_token=eyJ.x.y", "login_hint="], "invalid_request"),
    ])
    func refused(_ extra: [String], _ error: String) async throws {
        let result = try await Self.run("refused", extra: extra)
        #expect(result["stage"] as? String == "bc-authorize" && result["status"] as? Int == 400 && result["error"] as? String == error, "\(result)")
        #expect(result["cache"] as? String == "no-store")
    }

    @Test("§10.2 ping mode: approved; the notification reaches the client's endpoint with its client_notification_token as a bearer token and the auth_req_id, after one refusal (503, retried), and is sent once; then the tokens")
    func pingApproved() async throws {
        let result = try await Self.run("ping", extra: ["flaky"], ping: true, phone: Self.approve) { runtime in
            // The worker records the delivery once it read the receiver's answer: awaited, not assumed.
            let repository = runtime.signIn.cibaPings.queue.repository
            let sent = await eventually { (try? await repository.counts()) == ["sent": 1] }
            let counts = (try? await repository.counts()) ?? [:]
            #expect(sent, "\(counts)")
        }
        #expect(result["stage"] as? String == "tokens" && result["sub"] as? String == "nora", "\(result)")
        #expect(result["pings"] as? Int == 2 && result["bearer_ok"] as? Bool == true && result["body_ok"] as? Bool == true, "\(result)")
        #expect(result["content_type"] as? String == "application/json")
    }

    @Test("§10.2 ping mode: declined on the phone: the ping, then access_denied; expired: the ping, then expired_token; a ping-mode request without client_notification_token, or with one that is no bearer token or too long, is invalid_request")
    func pingDeclined() async throws {
        let result = try await Self.run("ping", ping: true) { tessera, pending in try await tessera.declineAuthRequest(pending) }
        #expect(result["stage"] as? String == "token" && result["error"] as? String == "access_denied" && result["pings"] as? Int == 1, "\(result)")
        #expect(result["bearer_ok"] as? Bool == true && result["body_ok"] as? Bool == true)
        let expired = try await Self.run("ping", hint: "nobody@example.com", extra: ["steady", "requested_expiry=2"], ping: true)
        #expect(expired["stage"] as? String == "token" && expired["error"] as? String == "expired_token" && expired["pings"] as? Int == 1, "\(expired)")
        // An empty token, one with a space (not a bearer token, RFC 6750 §2.1) and one of 1,025 characters.
        for token in ["", "has space", String(repeating: "t", count: 1025)] {
            let refused = try await Self.run("refused", extra: ["client_notification_token=" + token], ping: true)
            #expect(refused["error"] as? String == "invalid_request" && refused["status"] as? Int == 400, "\(token.prefix(12)): \(refused)")
        }
    }

    @Test("§10.3 push mode: approved; the tokens reach the client's endpoint after one refusal (503, retried; the same tokens), once, with its client_notification_token; the ID token carries the auth_req_id claim, at_hash and rt_hash (§10.3.1); userinfo answers the pushed access token; the token endpoint refuses a push client (unauthorized_client)")
    func pushApproved() async throws {
        let result = try await Self.run("push", extra: ["flaky"], push: true, phone: Self.approve) { runtime in
            // The worker records the delivery once it read the receiver's answer: awaited, not assumed.
            let repository = runtime.signIn.cibaPings.queue.repository
            let sent = await eventually { (try? await repository.counts()) == ["sent": 1] }
            let counts = (try? await repository.counts()) ?? [:]
            #expect(sent, "\(counts)")
        }
        #expect(result["stage"] as? String == "push" && result["sub"] as? String == "nora" && result["pushes"] as? Int == 2, "\(result)")
        #expect(result["bearer_ok"] as? Bool == true && result["auth_req_id_ok"] as? Bool == true && result["content_type"] as? String == "application/json")
        #expect(result["claim_ok"] as? Bool == true && result["at_hash_ok"] as? Bool == true && result["rt_hash_ok"] as? Bool == true, "\(result)")
        #expect(result["userinfo_sub"] as? String == "nora" && result["token_type"] as? String == "Bearer", "\(result)")
        #expect(result["token_endpoint"] as? String == "unauthorized_client", "\(result)")
    }

    @Test("§10.3 and §12 push mode: declined on the phone: access_denied pushed with the auth_req_id; expired: expired_token pushed")
    func pushDeclinedAndExpired() async throws {
        let declined = try await Self.run("push", push: true) { tessera, pending in try await tessera.declineAuthRequest(pending) }
        #expect(declined["stage"] as? String == "push" && declined["error"] as? String == "access_denied" && declined["auth_req_id_ok"] as? Bool == true, "\(declined)")
        #expect(declined["pushes"] as? Int == 1 && declined["bearer_ok"] as? Bool == true)
        let expired = try await Self.run("push", hint: "nobody@example.com", extra: ["steady", "requested_expiry=2"], push: true)
        #expect(expired["stage"] as? String == "push" && expired["error"] as? String == "expired_token", "\(expired)")
    }

    @Test("private_key_jwt (OIDC Core §9, RFC 7523): the client authenticates at both endpoints with assertions signed by its registered key; the tokens come; a replayed assertion and one for another audience are invalid_client (401)")
    func privateKeyJWT() async throws {
        let result = try await Self.run("pkjwt", clientKey: true, phone: Self.approve)
        #expect(result["stage"] as? String == "tokens" && result["sub"] as? String == "nora" && result["userinfo_sub"] as? String == "nora", "\(result)")
        #expect(result["first"] as? String == "invalid_grant", "an authenticated client polling a used auth_req_id: \(result)")
        #expect(result["replay"] as? String == "invalid_client" && result["replay_status"] as? Int == 401 && result["foreign"] as? String == "invalid_client", "\(result)")
    }

    @Test("§7.1 login_hint_token: a JWT the client signed naming the user by sub_id (email) reaches the user's phone; approved: the tokens; an expired one is expired_login_hint_token, one signed by another key invalid_request")
    func loginHintToken() async throws {
        let result = try await Self.run("lht", hint: "nora@example.com", clientKey: true, phone: Self.approve)
        #expect(result["stage"] as? String == "tokens" && result["sub"] as? String == "nora", "\(result)")
        #expect(result["stale"] as? String == "expired_login_hint_token" && result["unsigned"] as? String == "invalid_request", "\(result)")
    }

    @Test("§7.1 user_code, for a client that requires it (the user's Tessera password): none is missing_user_code, a wrong one invalid_user_code, an unknown user's invalid_user_code too; the right one reaches the phone and the tokens come")
    func userCode() async throws {
        let result = try await Self.run("usercode", userCode: "correct horse 4711", phone: Self.approve)
        #expect(result["missing"] as? String == "missing_user_code" && result["wrong"] as? String == "invalid_user_code", "\(result)")
        #expect(result["nobody"] as? String == "invalid_user_code", "\(result)")
        #expect(result["stage"] as? String == "tokens" && result["sub"] as? String == "nora", "\(result)")
    }
}
