import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// The hosted page's offer to add a passkey after a phone-approved sign-in, over HTTP against a live
/// server whose device (the SDK) approves: the offer comes only once the phone approved, the ceremony is
/// for the user the approval names with their passkeys excluded, and the page goes on to the app with the
/// code. Where the issuer cannot be a WebAuthn RP ID (an IP address), the page offers no passkeys at all.
@Suite("OIDC: adding a passkey on the hosted page after an approved sign-in")
struct OIDCPasskeyOfferTests {
    static let bundle = "com.example.offer"
    static let redirect = "https://app.example.com/callback"

    static func problemCode(_ answer: OIDCFlowTests.Answer) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["code"] as? Int
    }

    /// A pending authorization sent to the phone (the identifier entered); its ID and form token.
    static func identified(_ runtime: TesseraRuntime, _ client: Client, _ identifier: String) async throws -> (id: String, csrf: String) {
        let query = [
            "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid email", "state": "st-offer",
            "nonce": "n-offer", "code_challenge": OIDCService.challenge(of: String(repeating: "o", count: 43)), "code_challenge_method": "S256",
        ]
        guard case .page(let pending, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
        _ = try await runtime.oidc.identify(pending.id, csrf: csrf, identifier: identifier, ip: "127.0.0.1")
        return (pending.id, csrf)
    }

    @Test("offered once approved: 409 (5003) before; the page with the offer after; options for the approved user with their passkey excluded; the created passkey stored once (a replay 7301); passkey=offered goes on with the code; after it, 8101")
    func offer() async throws {
        let port = try NodeQuorumEndToEndTests.freePort()
        let origin = "http://localhost:\(port)"
        try await LiveServer.run(bundleId: Self.bundle, port: port, configure: { $0.issuer = origin }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "noor", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect], offerPasskeys: true), clientKey: client.clientKey)
            let user = try #require(try await runtime.database.read { sql in
                try await runtime.repositories.users.find(clientId: client.id, userKey: "noor", in: sql)
            })
            // A passkey the user has already (another device): excluded from the new ceremony.
            var laptop = SoftwareAuthenticator(origin: origin)
            let setup = try await runtime.passkeys.registrationOptions(client: client, userId: user.id, userName: user.email, displayName: user.name, binding: "setup")
            let existing = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: setup.challengeId, binding: "setup", response: laptop.create(setup.options), name: "Laptop")

            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            let signIn = try await Self.identified(runtime, client, user.email)
            let base = "\(url.absoluteString)/oauth2/authorize/\(signIn.id)"
            let csrf = signIn.csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? signIn.csrf

            // Before the phone approves: no ceremony, and complete says it is not approved yet.
            let early = try await OIDCFlowTests.send(http, base + "/passkey/registration/options", form: ["csrf": signIn.csrf])
            #expect(early.status == 409 && Self.problemCode(early) == 5003, "\(early.body)")
            #expect(try await OIDCFlowTests.send(http, base + "/complete?csrf=" + csrf).status == 409)

            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")

            // Approved: complete shows the offer instead of going to the app.
            let page = try await OIDCFlowTests.send(http, base + "/complete?csrf=" + csrf)
            #expect(page.status == 200, "\(page.body)")
            #expect(page.body.contains(#"id="add-passkey""#) && page.body.contains(#"data-status="passkey-offer""#), "\(page.body)")
            #expect(page.body.contains(#"href="/oauth2/authorize/\#(signIn.id)/complete?passkey=offered&amp;csrf="#), "\(page.body)")

            // A wrong form token: 404 (8101).
            let wrong = try await OIDCFlowTests.send(http, base + "/passkey/registration/options", form: ["csrf": "wrong"])
            #expect(wrong.status == 404 && Self.problemCode(wrong) == 8101)
            struct Options: Decodable { var challengeId: String; var publicKey: PasskeyJSON.CreationOptions }
            let answer = try await OIDCFlowTests.send(http, base + "/passkey/registration/options", form: ["csrf": signIn.csrf])
            #expect(answer.status == 200 && answer.headers.first(name: "Cache-Control") == "no-store", "\(answer.body)")
            let options = try JSONDecoder().decode(Options.self, from: Data(answer.body.utf8))
            #expect(options.publicKey.user.name == user.email && options.publicKey.user.id == existing.userHandle)
            #expect(options.publicKey.excludeCredentials.map(\.id) == [existing.credentialId], "the user's passkey is excluded")
            #expect(options.publicKey.rp.id == "localhost" && options.publicKey.authenticatorSelection.userVerification == "required")

            // Garbage for the credential: 400 naming it; then the authenticator's response is stored.
            let garbage = try await OIDCFlowTests.send(
                http, base + "/passkey/registration", form: ["csrf": signIn.csrf, "challengeId": options.challengeId, "credential": "{\u{0}"])
            #expect(garbage.status == 400 && garbage.body.contains("credential"), "\(garbage.body)")
            var phone = SoftwareAuthenticator(origin: origin)
            let created = String(decoding: try JSONEncoder().encode(phone.create(options.publicKey)), as: UTF8.self)
            let form = ["csrf": signIn.csrf, "challengeId": options.challengeId, "credential": created, "name": "Phone browser"]
            let stored = try await OIDCFlowTests.send(http, base + "/passkey/registration", form: form)
            #expect(stored.status == 201, "\(stored.body)")
            let info = try #require(try JSONSerialization.jsonObject(with: Data(stored.body.utf8)) as? [String: [String: Any]])["passkey"]
            #expect(info?["name"] as? String == "Phone browser" && info?["credentialId"] as? String == Base64URL.encode(phone.credentialId))
            let replay = try await OIDCFlowTests.send(http, base + "/passkey/registration", form: form)
            #expect(replay.status == 401 && Self.problemCode(replay) == 7301, "a used challenge: \(replay.body)")
            let passkeys = try await runtime.passkeys.list(userId: user.id, client: client).passkeys
            #expect(passkeys.map(\.name) == ["Laptop", "Phone browser"])

            // On to the app with the code; the sign-in is then over for the page's calls.
            let done = try await OIDCFlowTests.send(http, base + "/complete?passkey=offered&csrf=" + csrf)
            #expect(done.status == 302, "\(done.body)")
            let location = try #require(URLComponents(string: done.headers.first(name: "Location") ?? ""))
            #expect(location.queryItems?.contains { $0.name == "code" } == true && location.queryItems?.first { $0.name == "state" }?.value == "st-offer")
            let after = try await OIDCFlowTests.send(http, base + "/passkey/registration/options", form: ["csrf": signIn.csrf])
            #expect(after.status == 404 && Self.problemCode(after) == 8101, "\(after.body)")
        }
    }

    @Test("an IP-address issuer (the zero-configuration 127.0.0.1): no passkey button or autofill on the page, the passkey calls answer 409 (7306), an approved sign-in goes straight to the app")
    func unavailable() async throws {
        try await LiveServer.run(bundleId: Self.bundle) { runtime, client, url in
            #expect(runtime.passkeys.settings.isAvailable == false)
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "omar", bundleId: Self.bundle)
            _ = try await runtime.oidc.setSettings(.init(redirectUris: [Self.redirect], offerPasskeys: true), clientKey: client.clientKey)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            defer { _ = http.shutdown() }
            let identify = try await OIDCFlowTests.send(http, OIDCFlowTests.authorizeURL(url, clientKey: client.clientKey, redirect: Self.redirect))
            #expect(identify.status == 200)
            #expect(!identify.body.contains(#"id="passkey""#) && !identify.body.contains("webauthn"), "\(identify.body)")

            let signIn = try await Self.identified(runtime, client, "omar@example.com")
            let base = "\(url.absoluteString)/oauth2/authorize/\(signIn.id)"
            let options = try await OIDCFlowTests.send(http, base + "/passkey/options", form: ["csrf": signIn.csrf])
            #expect(options.status == 404, "already sent to the phone: \(options.body)")
            let pending = try #require(await eventually { try? await tessera.pendingAuthRequests().first })
            _ = try await tessera.authenticate(channel: pending, localAuthenticator: LiveServer.pin, reason: "Approve")
            let registration = try await OIDCFlowTests.send(http, base + "/passkey/registration/options", form: ["csrf": signIn.csrf])
            #expect(registration.status == 409 && Self.problemCode(registration) == 7306, "\(registration.body)")
            let csrf = signIn.csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? signIn.csrf
            let done = try await OIDCFlowTests.send(http, base + "/complete?csrf=" + csrf)
            #expect(done.status == 302 && done.headers.first(name: "Location")?.hasPrefix(Self.redirect + "?code=") == true, "no offer: \(done.body)")

            // A new sign-in still on its form: the usernameless options are refused the same way.
            let fresh = try await Self.identifiedNot(runtime, client)
            let refused = try await OIDCFlowTests.send(http, "\(url.absoluteString)/oauth2/authorize/\(fresh.id)/passkey/options", form: ["csrf": fresh.csrf])
            #expect(refused.status == 409 && Self.problemCode(refused) == 7306, "\(refused.body)")
        }
    }

    /// A pending authorization still on its identifier form.
    static func identifiedNot(_ runtime: TesseraRuntime, _ client: Client) async throws -> (id: String, csrf: String) {
        let query = [
            "client_id": client.clientKey, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid",
            "code_challenge": OIDCService.challenge(of: String(repeating: "o", count: 43)), "code_challenge_method": "S256",
        ]
        guard case .page(let pending, let csrf, _, _) = try await runtime.oidc.authorize(query) else { throw ConfigurationError("no page") }
        return (pending.id, csrf)
    }
}
