import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TesseraCore
import TesseraWebAuthn
@testable import TesseraServer
import TesseraServerTestSupport

/// `tessera admin passkey …` against a running server: a passkey registered by a software
/// authenticator is listed, revoked (audited under `admin.passkey.revoked` and `passkey.revoked`),
/// then signs in no more; revoking it again is refused with 7303.
@Suite("CLI: tessera admin passkey")
struct AdminPasskeyCLITests {
    @Test("list shows the passkey (JSON and text), revoke ends it, a second revoke is 7303, the revoked passkey cannot sign in")
    func listAndRevoke() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Passkeys", bundleIds: ["com.example.passkeys"]).client
            let users = runtime.repositories.users, now = runtime.clock.now()
            try await runtime.database.transaction { sql in
                try await users.insert(
                    UserRecord(id: "usr_pk_cli", clientId: client.id, userKey: "carol", name: "Carol", email: "carol@example.org",
                               phone: "+41795550177", localAuthType: "none", createdAt: now),
                    in: sql
                )
            }
            var authenticator = SoftwareAuthenticator(origin: try #require(runtime.passkeys.settings.origins.first))
            let options = try await runtime.passkeys.registrationOptions(client: client, userId: "usr_pk_cli", userName: "carol", displayName: "Carol", binding: "cli")
            let created = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: options.challengeId, binding: "cli", response: authenticator.create(options.options), name: "Laptop"
            )

            let listed = try await DeviceCLITests.run(tessera, ["admin", "passkey", "list", "--client-key", client.clientKey, "--user-key", "carol", "--json"] + admin)
            #expect(listed.status == 0, "\(listed.output)")
            // --json prints times in ISO 8601.
            let list = try #require((try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any])?["passkeys"] as? [[String: Any]])
            #expect(list.map { $0["id"] as? String } == [created.id])
            #expect(list.first?["name"] as? String == "Laptop" && list.first?["algorithm"] as? String == "ES256")
            #expect(list.first?["clientKey"] as? String == client.clientKey)
            #expect((list.first?["createdAt"] as? String)?.hasSuffix("Z") == true)
            let text = try await DeviceCLITests.run(tessera, ["admin", "passkey", "list", "--client-key", client.clientKey, "--user-key", "carol"] + admin)
            #expect(text.output.contains(created.id) && text.output.contains("device-bound"), "\(text.output)")

            let revoked = try await DeviceCLITests.run(tessera, ["admin", "passkey", "revoke", created.id] + admin)
            #expect(revoked.status == 0, "\(revoked.output)")
            let again = try await DeviceCLITests.run(tessera, ["admin", "passkey", "revoke", created.id] + admin)
            #expect(again.status != 0)
            #expect(again.output.contains("7303"), "\(again.output)")
            let empty = try await DeviceCLITests.run(tessera, ["admin", "passkey", "list", "--client-key", client.clientKey, "--user-key", "carol", "--json"] + admin)
            #expect((try JSONSerialization.jsonObject(with: Data(empty.output.utf8)) as? [String: Any])?["passkeys"] as? [Any] != nil)
            #expect(((try JSONSerialization.jsonObject(with: Data(empty.output.utf8)) as? [String: Any])?["passkeys"] as? [Any])?.isEmpty == true)

            let signIn = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "cli")
            do {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: signIn.challengeId, binding: "cli", response: try authenticator.get(signIn.options))
                Issue.record("a revoked passkey signed in")
            } catch let error as AppError {
                #expect(error.code == .passkeyUnknown)
            }
            let types = try await runtime.database.read { sql in
                try await runtime.repositories.audit.entries(.init(subject: client.id, limit: 1000), in: sql)
            }.map(\.type)
            #expect(types.contains("passkey.revoked"))
            let adminTypes = try await runtime.database.read { sql in try await runtime.repositories.audit.entries(.init(type: "admin.passkey.revoked"), in: sql) }
            #expect(adminTypes.count == 1)
        }
    }

    @Test("app-links: empty at first; replaced by --apple-app-id and --android-app (fingerprints upper-cased), served in the association files; a malformed --android-app stops before any call, a wrong team ID is 1005 naming the member; --clear empties")
    func appLinks() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, url in
            let client = try await runtime.clients.create(name: "Apps", bundleIds: ["com.example.apps"]).client
            let base = ["admin", "passkey", "app-links", "--client-key", client.clientKey]
            let empty = try await DeviceCLITests.run(tessera, base + admin)
            #expect(empty.status == 0 && empty.output.contains("no app links"), "\(empty.output)")
            let fingerprint = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
            let set = try await DeviceCLITests.run(
                tessera, base + ["--apple-app-id", "ABCDE12345.com.example.apps", "--android-app", "com.example.apps=\(fingerprint)", "--json"] + admin
            )
            #expect(set.status == 0, "\(set.output)")
            let links = try JSONDecoder().decode(PasskeyAppLinks.self, from: Data(set.output.utf8))
            #expect(links.appleAppIds == ["ABCDE12345.com.example.apps"] && links.androidApps.first?.sha256CertFingerprints == [fingerprint.uppercased()])
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString + "/.well-known/apple-app-site-association"), timeout: .seconds(30))
            let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
            #expect(String(decoding: body, as: UTF8.self) == #"{"webcredentials":{"apps":["ABCDE12345.com.example.apps"]}}"#)

            let malformed = try await DeviceCLITests.run(tessera, base + ["--android-app", "com.example.apps"] + admin)
            #expect(malformed.status != 0 && malformed.output.contains("--android-app com.example.apps"), "\(malformed.output)")
            let wrong = try await DeviceCLITests.run(tessera, base + ["--apple-app-id", "team.com.example.apps"] + admin)
            #expect(wrong.status != 0 && wrong.output.contains("1005") && wrong.output.contains("appleAppIds[0]"), "\(wrong.output)")
            let cleared = try await DeviceCLITests.run(tessera, base + ["--clear"] + admin)
            #expect(cleared.status == 0 && cleared.output.contains("no app links"), "\(cleared.output)")
        }
    }

    @Test("attestation: defaults shown; --attestation required with a --trust-root file and --allow-aaguid stored (AAGUID normalised); a wrong --attestation stops before any call; an unreadable root file is named; --clear goes back to none")
    func attestation() async throws {
        let tessera = try AdminCLITests.binary()
        try await TestDeployment.serveRuntime(issuer: "https://login.example.com") { runtime, admin, _ in
            let client = try await runtime.clients.create(name: "Bank", bundleIds: ["com.example.bank"]).client
            let base = ["admin", "passkey", "attestation", "--client-key", client.clientKey]
            let shown = try await DeviceCLITests.run(tessera, base + admin)
            #expect(shown.status == 0 && shown.output.contains("attestation  none") && shown.output.contains("models       any"), "\(shown.output)")
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-root-\(UUID().uuidString).pem")
            try FIDOMetadataRoot.pem.write(to: root, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: root) }
            let set = try await DeviceCLITests.run(
                tessera, base + ["--attestation", "required", "--trust-root", root.path, "--allow-aaguid", "FBFC3007-154E-4ECC-8C0B-6E020557D7BD", "--json"] + admin
            )
            #expect(set.status == 0, "\(set.output)")
            let settings = try JSONDecoder().decode(PasskeyAttestationSettings.self, from: Data(set.output.utf8))
            #expect(settings.attestation == "required" && settings.trustRoots.count == 1 && settings.allowedAAGUIDs == ["fbfc3007154e4ecc8c0b6e020557d7bd"])
            let wrong = try await DeviceCLITests.run(tessera, base + ["--attestation", "maybe"] + admin)
            #expect(wrong.status != 0 && wrong.output.contains("--attestation must be none or required"), "\(wrong.output)")
            let missing = try await DeviceCLITests.run(tessera, base + ["--trust-root", "/nonexistent/root.pem"] + admin)
            #expect(missing.status != 0 && missing.output.contains("/nonexistent/root.pem"), "\(missing.output)")
            let cleared = try await DeviceCLITests.run(tessera, base + ["--clear"] + admin)
            #expect(cleared.status == 0 && cleared.output.contains("attestation  none"), "\(cleared.output)")
        }
    }
}
