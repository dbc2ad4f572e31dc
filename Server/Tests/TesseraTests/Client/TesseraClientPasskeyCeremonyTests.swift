import Foundation
import Testing
import Tessera
import TesseraCore
import TesseraTestSupport
import TesseraWebAuthn
@testable import TesseraServer
import TesseraServerTestSupport

/// Passkeys made and used in an app through the SDK's `PasskeyProvider` seam, against a live server (W3C
/// WebAuthn Level 3 §7.1 and §7.2 on the server; the platform's sheet is a software authenticator, a named
/// test double): registered for the device's user with a signed call, its passkeys excluded; a usernameless
/// sign-in without a device answered with a result token that introspects as the passkey's and goes inactive
/// with it; the sign-in's challenge bound to the app's bundle ID.
@Suite("SDK: passkeys made and used in the app")
struct TesseraClientPasskeyCeremonyTests {
    static let bundle = "com.example.sdk-passkey-app"
    static let other = "com.example.sdk-passkey-other"
    static let origin = "https://login.example.com"

    @Test("registerPasskey: options for the device's user (rp ID, the e-mail as name, UV required), stored; again with the same authenticator: it is excluded and the sheet's 7304 comes back; audited passkey.registered")
    func register() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = Self.origin }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "ines", bundleId: Self.bundle)
            let provider = SoftwarePasskeyProvider(SoftwareAuthenticator(origin: Self.origin))
            let created = try await tessera.registerPasskey(name: "iPhone", using: provider)
            #expect(created.name == "iPhone" && created.clientKey == client.clientKey && created.credentialId == Base64URL.encode(provider.authenticator.credentialId))
            let asked = try #require(provider.creations.first)
            #expect(asked.relyingPartyId == "login.example.com" && asked.userName == "ines@example.com" && asked.requiresUserVerification)
            #expect(asked.excludedCredentialIds.isEmpty && asked.challenge.count == 32 && asked.userId.count == 32)
            #expect(try await tessera.listPasskeys().map(\.id) == [created.id])

            await #expect { _ = try await tessera.registerPasskey(using: provider) } throws: { ($0 as? TesseraError)?.code == .passkeyExists }
            #expect(provider.creations.last?.excludedCredentialIds == [Data(provider.authenticator.credentialId)])
            #expect(provider.creations.last?.userId == asked.userId, "the same opaque user handle")
            struct Row: Decodable { var type: String }
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let rows = try await runtime.database.read { sql in
                try await sql.raw("SELECT type FROM audit_log WHERE type = 'passkey.registered'").all(decoding: Row.self)
            }
            #expect(rows.count == 1)
        }
    }

    @Test("signInWithPasskey: usernameless, on a fresh app install without a device; the result token introspects active with device_id the passkey and amr hwk,user; after the passkey is revoked the token is inactive and a sign-in is 7303")
    func signIn() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = Self.origin }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "jon", bundleId: Self.bundle)
            let provider = SoftwarePasskeyProvider(SoftwareAuthenticator(origin: Self.origin))
            let created = try await tessera.registerPasskey(using: provider)

            let fresh = TesseraClient(configuration: .init(serverURL: url, clientKey: client.clientKey, bundleIdentifier: Self.bundle, timeout: .sdkTestDeadline))
            let result = try await fresh.signInWithPasskey(using: provider)
            #expect(result.userKey == "jon" && result.passkeyId == created.id && result.amr == ["hwk", "user"] && result.nodes.isEmpty)
            let asked = try #require(provider.assertions.first)
            #expect(asked.relyingPartyId == "login.example.com" && asked.allowedCredentialIds.isEmpty && asked.requiresUserVerification)
            #expect(asked.challenge.count == 32)

            let active = try await runtime.introspection.introspect(token: result.resultToken, client: client)
            #expect(active.active && active.sub == "jon" && active.deviceId == created.id && active.amr == ["hwk", "user"])

            try await tessera.deletePasskey(id: created.id)
            #expect(try await runtime.introspection.introspect(token: result.resultToken, client: client).active == false)
            await #expect { _ = try await fresh.signInWithPasskey(using: provider) } throws: { ($0 as? TesseraError)?.code == .passkeyUnknown }
        }
    }

    @Test("a passkey registered without a name is named after its provider by AAGUID (the bundled list), and listed with authenticatorName; an unknown AAGUID gives \"Passkey\" and no authenticatorName")
    func providerNames() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = Self.origin }) { runtime, client, url in
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "lea", bundleId: Self.bundle)
            var apple = SoftwareAuthenticator(origin: Self.origin)
            apple.aaguid = [0xfb, 0xfc, 0x30, 0x07, 0x15, 0x4e, 0x4e, 0xcc, 0x8c, 0x0b, 0x6e, 0x02, 0x05, 0x57, 0xd7, 0xbd]
            let named = try await tessera.registerPasskey(using: SoftwarePasskeyProvider(apple))
            #expect(named.name == "Apple Passwords" && named.authenticatorName == "Apple Passwords" && named.aaguid == "fbfc3007154e4ecc8c0b6e020557d7bd")
            var unknown = SoftwareAuthenticator(origin: Self.origin)
            unknown.aaguid = Array(repeating: 0x42, count: 16)
            let plain = try await tessera.registerPasskey(using: SoftwarePasskeyProvider(unknown))
            #expect(plain.name == "Passkey" && plain.authenticatorName == nil)
            #expect(try await tessera.listPasskeys().map(\.authenticatorName) == ["Apple Passwords", nil])
            #expect(AuthenticatorNames.name(aaguid: "FBFC3007-154E-4ECC-8C0B-6E020557D7BD") == "Apple Passwords" && AuthenticatorNames.count >= 50)
        }
    }

    @Test("the sign-in's challenge is bound to the app's bundle ID: finished from the client's other app it is 7301 (and not used up for its own app, where it then signs in once)")
    func bindingToTheApp() async throws {
        try await LiveServer.run(bundleId: Self.bundle, configure: { $0.issuer = Self.origin }) { runtime, _, url in
            let client = try await runtime.clients.create(name: "Two apps", bundleIds: [Self.bundle, Self.other]).client
            let tessera = try await LiveServer.enrol(runtime, client, url, userKey: "kai", bundleId: Self.bundle)
            let provider = SoftwarePasskeyProvider(SoftwareAuthenticator(origin: Self.origin))
            _ = try await tessera.registerPasskey(using: provider)
            var authenticator = provider.authenticator
            let apps = runtime.signIn.passkeyApps
            let options = try await apps.authenticationOptions(client: client, bundleId: Self.bundle)
            #expect(options.publicKey.allowCredentials.isEmpty && options.publicKey.rpId == "login.example.com")
            let body = PasskeyAuthenticationBody(challengeId: options.challengeId, credential: try authenticator.get(options.publicKey))
            await #expect { _ = try await apps.signIn(client: client, bundleId: Self.other, body: body) } throws: { ($0 as? AppError)?.code == .passkeyChallengeInvalid }
            let result = try await apps.signIn(client: client, bundleId: Self.bundle, body: body)
            #expect(result.userKey == "kai", "another app's attempt does not use the challenge up for the app it is bound to")
            await #expect { _ = try await apps.signIn(client: client, bundleId: Self.bundle, body: body) } throws: { ($0 as? AppError)?.code == .passkeyChallengeInvalid }
        }
    }

}
