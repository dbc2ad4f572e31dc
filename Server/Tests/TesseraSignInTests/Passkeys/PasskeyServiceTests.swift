import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraWebAuthn

/// The passkey ceremonies (W3C WebAuthn Level 3 §7.1 and §7.2) through ``PasskeyService`` on
/// SQLite and PostgreSQL, with a software authenticator: registration options exclude the user's
/// passkeys; challenges are single use, bound and expire on the injected clock; usernameless and
/// named sign-ins; counter regressions flag; every outcome is in the audit log.
@Suite("Passkeys: ceremonies and storage")
struct PasskeyServiceTests {
    static let origin = "https://login.example.com"

    static func run(_ kind: TestDatabase, _ body: @escaping (TesseraRuntime, Client, ManualClock) async throws -> Void) async throws {
        let manual = ManualClock()
        try await withTestRuntime(kind, clock: manual.clock, configure: { $0.embeddedNodes = 0; $0.issuer = origin }) { runtime in
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            try await OIDCRefreshServiceTests.addAlice(runtime, client: client)
            try await body(runtime, client, manual)
        }
    }

    static func expectProblem(_ code: ErrorCode, _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("expected \(code)", sourceLocation: sourceLocation)
        } catch let error as AppError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("register, then sign in usernameless and by name; the options are WebAuthn's; the audit log has each step", arguments: TestDatabase.kinds)
    func registerAndSignIn(_ kind: TestDatabase) async throws {
        try await Self.run(kind) { runtime, client, _ in
            let alice = "usr_alice_\(client.id)"
            let (id, options) = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "alice@example.org", displayName: "Alice", binding: "b1")
            #expect(options.rp.id == "login.example.com")
            #expect(Base64URL.decode(options.challenge)?.count == 32)
            #expect(Base64URL.decode(options.user.id)?.count == 32)
            #expect(!options.user.id.contains("alice"))
            #expect(options.pubKeyCredParams.map(\.alg) == [-7, -8, -257])
            #expect(options.authenticatorSelection.userVerification == "required" && options.authenticatorSelection.residentKey == "required")
            #expect(options.excludeCredentials.isEmpty)
            var authenticator = SoftwareAuthenticator(origin: Self.origin)
            let created = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: id, binding: "b1", response: authenticator.create(options), name: "  My phone "
            )
            #expect(created.name == "My phone")
            #expect(created.userHandle == options.user.id)
            #expect(created.backupEligible == false && created.algorithm == -7)
            #expect(created.transports == ["internal"])

            // A second registration excludes the first passkey; the same handle comes back.
            let again = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "alice@example.org", displayName: "Alice", binding: "b1")
            let excluded = again.options.excludeCredentials
            #expect(excluded.map(\.id) == [created.credentialId])
            #expect(excluded.first?.transports == ["internal"])
            #expect(again.options.user.id == options.user.id)
            // The same authenticator again: it is registered already.
            await Self.expectProblem(.passkeyExists) {
                _ = try await runtime.passkeys.finishRegistration(client: client, challengeId: again.challengeId, binding: "b1", response: authenticator.create(again.options), name: nil)
            }

            // Usernameless: no allowCredentials; the user handle names Alice.
            let usernameless = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "b2")
            #expect(usernameless.options.allowCredentials.isEmpty && usernameless.options.rpId == "login.example.com")
            let signIn = try await runtime.passkeys.finishAuthentication(
                client: client, challengeId: usernameless.challengeId, binding: "b2", response: try authenticator.get(usernameless.options)
            )
            #expect(signIn.userId == alice)
            #expect(signIn.amr == ["hwk", "user"])
            #expect(signIn.credential.signCount == 1)
            // Named: allowCredentials lists Alice's passkeys.
            let named = try await runtime.passkeys.authenticationOptions(client: client, userId: alice, binding: "b3")
            #expect(named.options.allowCredentials.map(\.id) == [created.credentialId])
            _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: named.challengeId, binding: "b3", response: try authenticator.get(named.options))

            let types = try await runtime.database.read { sql in try await runtime.repositories.audit.entries(.init(subject: client.id), in: sql) }.map(\.type)
            #expect(types.filter { $0.hasPrefix("passkey.") } == ["passkey.registered", "passkey.failed", "passkey.signed_in", "passkey.signed_in"])
        }
    }

    @Test("challenges: single use (also after a failure), bound to what started them, of their ceremony, and expired after 5 minutes", arguments: TestDatabase.kinds)
    func challenges(_ kind: TestDatabase) async throws {
        try await Self.run(kind) { runtime, client, manual in
            let alice = "usr_alice_\(client.id)"
            var authenticator = SoftwareAuthenticator(origin: Self.origin)
            let (id, options) = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "a", displayName: "A", binding: "b1")
            let response = authenticator.create(options)
            await Self.expectProblem(.passkeyChallengeInvalid) {
                _ = try await runtime.passkeys.finishRegistration(client: client, challengeId: id, binding: "other", response: response, name: nil)
            }
            await Self.expectProblem(.passkeyChallengeInvalid) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: id, binding: "b1", response: try authenticator.get(.init(
                    challenge: options.challenge, timeout: 1, rpId: options.rp.id, allowCredentials: [], userVerification: "required")))
            }
            // A wrong origin fails and uses the challenge up: the right answer after it is refused too.
            await Self.expectProblem(.passkeyInvalid) {
                _ = try await runtime.passkeys.finishRegistration(
                    client: client, challengeId: id, binding: "b1", response: authenticator.create(options, origin: "https://evil.example"), name: nil)
            }
            await Self.expectProblem(.passkeyChallengeInvalid) {
                _ = try await runtime.passkeys.finishRegistration(client: client, challengeId: id, binding: "b1", response: response, name: nil)
            }
            // Expiry on the injected clock.
            let late = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "a", displayName: "A", binding: "b1")
            manual.advance(by: .seconds(301))
            await Self.expectProblem(.passkeyChallengeInvalid) {
                _ = try await runtime.passkeys.finishRegistration(client: client, challengeId: late.challengeId, binding: "b1", response: authenticator.create(late.options), name: nil)
            }
            // The janitor deletes expired challenges (every one here is).
            struct Count: Decodable { var n: Int }
            let count = { try await runtime.database.read { sql in try await sql.raw("SELECT COUNT(*) AS n FROM passkey_challenges").first(decoding: Count.self)?.n ?? -1 } }
            #expect(try await count() == 2)
            await runtime.janitor.sweep()
            #expect(try await count() == 0)
        }
    }

    @Test("refused: UV off when required, an unknown credential, another user's passkey for a named sign-in, a counter that went back (flagged)", arguments: TestDatabase.kinds)
    func refusals(_ kind: TestDatabase) async throws {
        try await Self.run(kind) { runtime, client, _ in
            let alice = "usr_alice_\(client.id)"
            var authenticator = SoftwareAuthenticator(origin: Self.origin)
            let registration = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "a", displayName: "A", binding: "b")
            let created = try await runtime.passkeys.finishRegistration(
                client: client, challengeId: registration.challengeId, binding: "b", response: authenticator.create(registration.options), name: nil)
            #expect(created.name == "Passkey")

            var noUV = authenticator
            noUV.userVerified = false
            let first = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "b")
            await Self.expectProblem(.passkeyInvalid) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: first.challengeId, binding: "b", response: try noUV.get(first.options))
            }
            var stranger = SoftwareAuthenticator(origin: Self.origin)
            let second = try await runtime.passkeys.authenticationOptions(client: client, userId: nil, binding: "b")
            await Self.expectProblem(.passkeyUnknown) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: second.challengeId, binding: "b", response: try stranger.get(second.options))
            }
            // A sign-in started for Bob, answered with Alice's passkey.
            let users = runtime.repositories.users, now = runtime.clock.now()
            try await runtime.database.transaction { sql in
                try await users.insert(
                    UserRecord(id: "usr_bob", clientId: client.id, userKey: "bob", name: "Bob", email: "bob@example.org", phone: "+41795550100",
                               localAuthType: "none", createdAt: now),
                    in: sql
                )
            }
            let forBob = try await runtime.passkeys.authenticationOptions(client: client, userId: "usr_bob", binding: "b")
            #expect(forBob.options.allowCredentials.isEmpty)
            await Self.expectProblem(.passkeyUnknown) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: forBob.challengeId, binding: "b", response: try authenticator.get(forBob.options))
            }
            // A good sign-in takes the counter to 5; then a clone at 3 is refused and the passkey flagged.
            authenticator.counter = 4  // get() counts up to 5
            let third = try await runtime.passkeys.authenticationOptions(client: client, userId: alice, binding: "b")
            _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: third.challengeId, binding: "b", response: try authenticator.get(third.options))
            var clone = authenticator
            clone.counter = 2
            let fourth = try await runtime.passkeys.authenticationOptions(client: client, userId: alice, binding: "b")
            await Self.expectProblem(.passkeyCounterRegression) {
                _ = try await runtime.passkeys.finishAuthentication(client: client, challengeId: fourth.challengeId, binding: "b", response: try clone.get(fourth.options))
            }
            let stored = try await runtime.database.read { sql in try await runtime.repositories.passkeys.list(userId: alice, clientId: client.id, in: sql) }
            #expect(stored.count == 1)
            #expect(stored.first?.flaggedAt != nil)
            #expect(stored.first?.signCount == 5)
        }
    }
}
