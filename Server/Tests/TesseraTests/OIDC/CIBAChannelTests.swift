import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// Tessera as the authentication channel of Keycloak's CIBA, against a stub that plays Keycloak's side of the
/// "HTTP Authentication Channel" contract (Server/Tests/Fixtures/ciba/keycloak_channel_stub.py: its bearer JWT
/// signed with the realm's RS256 key, its request body, its callback endpoint checking the token as Keycloak does):
/// approve, decline and expiry give SUCCEED, UNAUTHORIZED and CANCELLED; a JWT signed by another key, an expired
/// one, a replayed `jti`, an unknown user and a bad binding message are refused.
@Suite("CIBA: Tessera as Keycloak's authentication channel")
struct CIBAChannelTests {
    static let bundle = "com.example.ciba-channel"

    /// A server whose client is the channel of the stub's realm, with nora's phone enrolled.
    static func run(
        lifetime: Duration = .seconds(120), _ body: @escaping @Sendable (_ start: @escaping @Sendable ([String: Any]) async throws -> [String: Any], TesseraClient, FixtureServer) async throws -> Void
    ) async throws {
        let stub = try await FixtureServer(
            script: "ciba/keycloak_channel_stub.py", imports: ["jwt", "requests", "cryptography"], purpose: "the Keycloak authentication-channel stub"
        )
        defer { stub.stop() }
        try await LiveServer.run(bundleId: Self.bundle, configure: {
            $0.channelLifetime = lifetime
            $0.webhooksPollInterval = .milliseconds(50)
        }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "nora", bundleId: Self.bundle)
            let jwks = try String(contentsOfFile: stub.directory + "/jwks.json", encoding: .utf8)
            let issuer = "http://127.0.0.1:\(stub.port)/realms/demo"
            let saved = try await runtime.signIn.cibaChannel.setSettings(CIBAChannelSettings(issuer: issuer, jwks: jwks), client: client)
            #expect(saved.callbackUrl == issuer + "/protocol/openid-connect/ext/ciba/auth/callback", "Keycloak's callback under the realm by default")
            let start: @Sendable ([String: Any]) async throws -> [String: Any] = { options in
                var options = options
                options["tessera"] = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
                options["client_key"] = client.clientKey
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(stub.port)/start")
                request.method = .POST
                request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: options)))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
                let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
                return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
            try await body(start, tessera, stub)
        }
    }

    /// The callback the stub received for `jti`, once it came.
    static func callback(_ stub: FixtureServer, jti: Any?) async throws -> [String: Any]? {
        let jti = jti as? String
        return try await eventually { try stub.records().first { $0["jti"] as? String == jti } }
    }

    @Test("approved on the phone (the binding message shown): 201 to Keycloak, then the callback SUCCEED with Keycloak's own bearer JWT, once")
    func approved() async throws {
        try await Self.run { start, tessera, stub in
            let started = try await start(["login_hint": "nora@example.com", "binding_message": "Transfer 4711"])
            #expect(started["status"] as? Int == 201, "\(started)")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            #expect(pending.message == "Transfer 4711")
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let record = try #require(try await Self.callback(stub, jti: started["jti"]), "no callback: \(stub.log)")
            #expect(record["status"] as? String == "SUCCEED" && record["token_ok"] as? Bool == true && record["type"] as? String == "application/json", "\(record)")
            #expect(try stub.records().count == 1, "the callback is sent once")
        }
    }

    @Test("declined on the phone: the callback UNAUTHORIZED")
    func declined() async throws {
        try await Self.run { start, tessera, stub in
            let started = try await start(["login_hint": "nora"])
            #expect(started["status"] as? Int == 201, "\(started)")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            #expect(pending.message.hasPrefix("Sign in to "), "without a binding message the phone names the client")
            try await tessera.declineAuthRequest(pending)
            let record = try #require(try await Self.callback(stub, jti: started["jti"]), "no callback: \(stub.log)")
            #expect(record["status"] as? String == "UNAUTHORIZED" && record["token_ok"] as? Bool == true, "\(record)")
        }
    }

    @Test("nobody answers until the request expires: the callback CANCELLED")
    func expired() async throws {
        try await Self.run(lifetime: .seconds(10)) { start, _, stub in
            let started = try await start(["login_hint": "nora@example.com"])
            #expect(started["status"] as? Int == 201, "\(started)")
            let record = try #require(try await Self.callback(stub, jti: started["jti"]), "no callback: \(stub.log)")
            #expect(record["status"] as? String == "CANCELLED" && record["token_ok"] as? Bool == true, "\(record)")
        }
    }

    @Test("refused: a JWT signed by a key not in the realm's JWKS (401, 1106), an expired JWT (401), a replayed jti (409, 1107), an unknown user (404), a binding message of 65 characters (400, 1005)")
    func refused() async throws {
        try await Self.run { start, _, stub in
            let foreign = try await start(["login_hint": "nora", "foreign_key": true])
            #expect(foreign["status"] as? Int == 401 && (foreign["body"] as? [String: Any])?["code"] as? Int == 1106, "\(foreign)")
            let stale = try await start(["login_hint": "nora", "exp_in": -30])
            #expect(stale["status"] as? Int == 401, "\(stale)")
            let first = try await start(["login_hint": "nora", "jti": "replayed-1"])
            #expect(first["status"] as? Int == 201, "\(first)")
            let again = try await start(["login_hint": "nora", "jti": "replayed-1"])
            #expect(again["status"] as? Int == 409 && (again["body"] as? [String: Any])?["code"] as? Int == 1107, "\(again)")
            let nobody = try await start(["login_hint": "nobody@example.com"])
            #expect(nobody["status"] as? Int == 404, "\(nobody)")
            let long = try await start(["login_hint": "nora", "binding_message": String(repeating: "x", count: 65)])
            #expect(long["status"] as? Int == 400 && (long["body"] as? [String: Any])?["code"] as? Int == 1005, "\(long)")
            #expect(try stub.records().isEmpty, "no callback for a refused request")
        }
    }
}
