import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// The apps a client associates with the server's passkeys (`PUT/GET /v1/admin/clients/{clientKey}/passkeys/app-links`),
/// checked strictly and served as Apple's `webcredentials` association and Android's Digital Asset Links
/// (`delegate_permission/common.get_login_creds`); an Android app's origin (`android:apk-key-hash:`) signs in for
/// the client that lists it and for no other. On SQLite and PostgreSQL.
@Suite("Passkeys: app links and the association files")
struct PasskeyAppLinksTests {
    static let adminToken = "test-admin-token"
    static let admin: HTTPFields = [.authorization: "Bearer \(adminToken)", .contentType: "application/json"]
    static let fingerprint = (0..<32).map { String(format: "%02x", $0 * 7 % 256) }.joined(separator: ":")
    static let androidOrigin = "android:apk-key-hash:" + Base64URL.encode((0..<32).map { UInt8($0 * 7 % 256) })

    static func problem(_ response: TestResponse) throws -> (status: Int, code: Int, detail: String) {
        struct Body: Decodable { var code: Int; var detail: String? }
        let body = try JSONDecoder().decode(Body.self, from: Data(buffer: response.body))
        return (Int(response.status.code), body.code, body.detail ?? "")
    }

    @Test("PUT normalises (fingerprints upper case, duplicates dropped) and GET gives it back; each wrong member is 1005 naming it; the files list the enabled clients' apps and nothing once the client is disabled; the change is audited", arguments: TestDatabase.kinds)
    func adminAndFiles(_ kind: TestDatabase) async throws {
        try await withTestRuntime(kind, configure: { $0.adminToken = Self.adminToken; $0.embeddedNodes = 0 }) { runtime in
            let client = try await runtime.makeTestClient()
            let path = "/v1/admin/clients/\(client.clientKey)/passkeys/app-links"
            let router = runtime.makeRouter()
            let app = Application(router: router, server: try TesseraRuntime.httpServer(for: router), logger: TestDatabase.logger)
            try await app.test(.router) { http in
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    #expect(response.status == .ok)
                    let links = try JSONDecoder().decode(PasskeyAppLinks.self, from: Data(buffer: response.body))
                    #expect(links == PasskeyAppLinks())
                }
                let body = #"{"appleAppIds":["ABCDE12345.com.example.app","ABCDE12345.com.example.app"],"androidApps":[{"packageName":"com.example.app","sha256CertFingerprints":["\#(Self.fingerprint)"]}]}"#
                let stored = PasskeyAppLinks(
                    appleAppIds: ["ABCDE12345.com.example.app"],
                    androidApps: [.init(packageName: "com.example.app", sha256CertFingerprints: [Self.fingerprint.uppercased()])]
                )
                try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .ok)
                    let links = try JSONDecoder().decode(PasskeyAppLinks.self, from: Data(buffer: response.body))
                    #expect(links == stored)
                }
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    let links = try JSONDecoder().decode(PasskeyAppLinks.self, from: Data(buffer: response.body))
                    #expect(links == stored)
                }
                let wrong: [(String, String)] = [
                    (#"{"appleAppIds":["abcde12345.com.example.app"],"androidApps":[]}"#, "appleAppIds[0]"),
                    (#"{"appleAppIds":["ABCDE12345."],"androidApps":[]}"#, "appleAppIds[0]"),
                    (#"{"appleAppIds":[],"androidApps":[{"packageName":"example","sha256CertFingerprints":["\#(Self.fingerprint)"]}]}"#, "androidApps[0].packageName"),
                    (#"{"appleAppIds":[],"androidApps":[{"packageName":"com.example.app","sha256CertFingerprints":["AB:CD"]}]}"#, "androidApps[0].sha256CertFingerprints[0]"),
                    (#"{"appleAppIds":[],"androidApps":[{"packageName":"com.example.app","sha256CertFingerprints":[]}]}"#, "androidApps[0].sha256CertFingerprints"),
                ]
                for (body, member) in wrong {
                    try await http.run(uri: path, method: .put, headers: Self.admin, body: ByteBuffer(string: body)) { response in
                        let problem = try Self.problem(response)
                        #expect(problem.status == 400 && problem.code == 1005 && problem.detail.hasPrefix(member), "\(body): \(problem)")
                    }
                }
                try await http.run(uri: path, method: .get, headers: Self.admin) { response in
                    let links = try JSONDecoder().decode(PasskeyAppLinks.self, from: Data(buffer: response.body))
                    #expect(links == stored, "a refused PUT changes nothing")
                }
                try await http.run(uri: "/.well-known/apple-app-site-association", method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                    #expect(String(buffer: response.body) == #"{"webcredentials":{"apps":["ABCDE12345.com.example.app"]}}"#)
                }
                try await http.run(uri: "/.well-known/assetlinks.json", method: .get) { response in
                    #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                    let statements = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]]
                    let target = statements?.first?["target"] as? [String: Any]
                    #expect(statements?.count == 1 && (statements?.first?["relation"] as? [String]) == ["delegate_permission/common.get_login_creds"])
                    #expect(target?["namespace"] as? String == "android_app" && target?["package_name"] as? String == "com.example.app")
                    #expect(target?["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint.uppercased()])
                }
                try await runtime.clients.setEnabled(clientKey: client.clientKey, false)
                try await http.run(uri: "/.well-known/apple-app-site-association", method: .get) { response in
                    #expect(String(buffer: response.body) == #"{"webcredentials":{"apps":[]}}"#)
                }
                try await http.run(uri: "/.well-known/assetlinks.json", method: .get) { response in
                    #expect(String(buffer: response.body) == "[]")
                }
            }
            struct Row: Decodable { var type: String }
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let rows = try await runtime.database.read { sql in
                try await sql.raw("SELECT type FROM audit_log WHERE type = 'admin.client.passkey_app_links_set'").all(decoding: Row.self)
            }
            #expect(rows.count == 1, "one row for the one PUT that changed something")
        }
    }

    @Test("a passkey made in an Android app (origin android:apk-key-hash of its certificate) registers and signs in at the client listing that certificate; at a client that does not, wrong_origin (7302)", arguments: TestDatabase.kinds)
    func androidOrigin(_ kind: TestDatabase) async throws {
        try await PasskeyServiceTests.run(kind) { runtime, client, _ in
            let alice = "usr_alice_\(client.id)"
            _ = try await runtime.signIn.passkeyAppLinks.set(
                PasskeyAppLinks(androidApps: [.init(packageName: "com.example.app", sha256CertFingerprints: [Self.fingerprint])]), client: client
            )
            var authenticator = SoftwareAuthenticator(origin: Self.androidOrigin)
            let options = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "alice", displayName: "Alice", binding: "a")
            let created = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: options.challengeId, binding: "a", response: authenticator.create(options.options), name: nil
            )
            let request = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "a")
            let signIn = try await runtime.passkeys.finishAuthentication(
                client: client, challengeId: request.challengeId, binding: "a", response: try authenticator.get(request.options)
            )
            #expect(signIn.credential.id == created.id)

            let other = try await runtime.clients.create(name: "Other", bundleIds: ["com.example.other"]).client
            try await OIDCRefreshServiceTests.addAlice(runtime, client: other)
            let otherAlice = "usr_alice_\(other.id)"
            var stranger = SoftwareAuthenticator(origin: Self.androidOrigin)
            let refused = try await runtime.passkeys.registrationOptions(client: other, userId: otherAlice, userName: "alice", displayName: "Alice", binding: "b")
            await PasskeyServiceTests.expectProblem(.passkeyInvalid) {
                _ = try await runtime.passkeys.finishRegistration(
                    client: other, challengeId: refused.challengeId, binding: "b", response: stranger.create(refused.options), name: nil
                )
            }
        }
    }
}
