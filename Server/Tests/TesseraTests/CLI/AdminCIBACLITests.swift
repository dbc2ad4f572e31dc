import Crypto
import TesseraWebAuthn
import Foundation
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport

/// `tessera admin client ciba` against a running server: poll at first; ping with an endpoint stored and audited;
/// ping without an endpoint stops before any call; a plain-http endpoint off loopback is 1005 naming the member.
@Suite("CLI: tessera admin client ciba")
struct AdminCIBACLITests {
    @Test("show poll; set ping (JSON back, audited admin.client.ciba_set); --mode ping alone stops; http://example.com is 1005 notificationEndpoint; back to poll")
    func settings() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "client", "ciba", client.clientKey]
            let shown = try await DeviceCLITests.run(tessera, base + admin)
            #expect(shown.status == 0 && shown.output.contains("delivery:      poll"), "\(shown.output)")
            let set = try await DeviceCLITests.run(tessera, base + ["--mode", "ping", "--notification-endpoint", "https://bank.example.com/ciba", "--json"] + admin)
            #expect(set.status == 0, "\(set.output)")
            let settings = try JSONDecoder().decode(CIBAClientSettings.self, from: Data(set.output.utf8))
            #expect(settings == CIBAClientSettings(deliveryMode: "ping", notificationEndpoint: "https://bank.example.com/ciba"))
            let alone = try await DeviceCLITests.run(tessera, base + ["--mode", "ping"] + admin)
            #expect(alone.status != 0 && alone.output.contains("--mode ping needs --notification-endpoint"), "\(alone.output)")
            let plain = try await DeviceCLITests.run(tessera, base + ["--mode", "ping", "--notification-endpoint", "http://bank.example.com/ciba"] + admin)
            #expect(plain.status != 0 && plain.output.contains("1005") && plain.output.contains("notificationEndpoint"), "\(plain.output)")
            let poll = try await DeviceCLITests.run(tessera, base + ["--mode", "poll"] + admin)
            #expect(poll.status == 0 && poll.output.contains("delivery:      poll"), "\(poll.output)")
            let rows = try await runtime.database.read { sql in try await runtime.repositories.audit.entries(.init(type: "admin.client.ciba_set"), in: sql) }
            #expect(rows.count == 2)
        }
    }

    @Test("ciba-channel: none at first (404); set with the realm's JWKS file (Keycloak's callback URL by default, audited); --issuer alone stops; a JWKS without a signing key is 1005 jwks; --remove, then 404 again")
    func channel() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "client", "ciba-channel", client.clientKey]
            let none = try await DeviceCLITests.run(tessera, base + admin)
            #expect(none.status != 0 && none.output.contains("1007"), "\(none.output)")
            let point = P256.Signing.PrivateKey().publicKey.x963Representation
            let jwk = ["kty": "EC", "crv": "P-256", "kid": "realm-es256", "alg": "ES256", "use": "sig",
                       "x": Base64URL.encode(point[1..<33]), "y": Base64URL.encode(point[33...])]
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json").path
            try JSONSerialization.data(withJSONObject: ["keys": [jwk]]).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let set = try await DeviceCLITests.run(
                tessera, base + ["--issuer", "https://kc.example.com/realms/bank", "--jwks-file", file, "--json"] + admin
            )
            #expect(set.status == 0, "\(set.output)")
            let settings = try JSONDecoder().decode(CIBAChannelSettings.self, from: Data(set.output.utf8))
            #expect(settings.callbackUrl == "https://kc.example.com/realms/bank/protocol/openid-connect/ext/ciba/auth/callback")
            let shown = try await DeviceCLITests.run(tessera, base + admin)
            #expect(shown.status == 0 && shown.output.contains("issuer:    https://kc.example.com/realms/bank"), "\(shown.output)")
            let alone = try await DeviceCLITests.run(tessera, base + ["--issuer", "https://kc.example.com/realms/bank"] + admin)
            #expect(alone.status != 0 && alone.output.contains("--issuer and --jwks-file go together"), "\(alone.output)")
            try Data(#"{"keys":[{"kty":"RSA","kid":"enc","use":"enc","alg":"RSA-OAEP","n":"AQAB","e":"AQAB"}]}"#.utf8).write(to: URL(fileURLWithPath: file))
            let noKey = try await DeviceCLITests.run(tessera, base + ["--issuer", "https://kc.example.com/realms/bank", "--jwks-file", file] + admin)
            #expect(noKey.status != 0 && noKey.output.contains("1005") && noKey.output.contains("jwks"), "\(noKey.output)")
            let removed = try await DeviceCLITests.run(tessera, base + ["--remove"] + admin)
            #expect(removed.status == 0, "\(removed.output)")
            let gone = try await DeviceCLITests.run(tessera, base + admin)
            #expect(gone.status != 0 && gone.output.contains("1007"), "\(gone.output)")
            let rows = try await runtime.database.read { sql in
                try await runtime.repositories.audit.entries(.init(type: "admin.client.ciba_channel_set"), in: sql).count
                    + runtime.repositories.audit.entries(.init(type: "admin.client.ciba_channel_removed"), in: sql).count
            }
            #expect(rows == 2)
        }
    }

    @Test("keys: none at first (404); set from a JWK Set file (audited admin.client.keys_set; the kid shown); a file with a private key member is 1005 jwks; --remove (audited), then 404")
    func clientKeys() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "client", "keys", client.clientKey]
            let none = try await DeviceCLITests.run(tessera, base + admin)
            #expect(none.status != 0 && none.output.contains("1007"), "\(none.output)")
            let key = P256.Signing.PrivateKey(), point = key.publicKey.x963Representation
            var jwk = ["kty": "EC", "crv": "P-256", "kid": "bank-2026", "alg": "ES256", "x": Base64URL.encode(point[1..<33]), "y": Base64URL.encode(point[33...])]
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString).json").path
            try JSONSerialization.data(withJSONObject: ["keys": [jwk]]).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let set = try await DeviceCLITests.run(tessera, base + ["--jwks-file", file] + admin)
            #expect(set.status == 0 && set.output.contains("kid: bank-2026"), "\(set.output)")
            jwk["d"] = Base64URL.encode(key.rawRepresentation)
            try JSONSerialization.data(withJSONObject: ["keys": [jwk]]).write(to: URL(fileURLWithPath: file))
            let secret = try await DeviceCLITests.run(tessera, base + ["--jwks-file", file] + admin)
            #expect(secret.status != 0 && secret.output.contains("1005") && secret.output.contains("jwks"), "\(secret.output)")
            let removed = try await DeviceCLITests.run(tessera, base + ["--remove"] + admin)
            #expect(removed.status == 0, "\(removed.output)")
            let gone = try await DeviceCLITests.run(tessera, base + admin)
            #expect(gone.status != 0 && gone.output.contains("1007"), "\(gone.output)")
            let rows = try await runtime.database.read { sql in
                try await runtime.repositories.audit.entries(.init(type: "admin.client.keys_set"), in: sql).count
                    + runtime.repositories.audit.entries(.init(type: "admin.client.keys_removed"), in: sql).count
            }
            #expect(rows == 2)
        }
    }
}
