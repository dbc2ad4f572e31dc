import Crypto
import Foundation
import SQLKit
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraTestSupport
import TesseraServerTestSupport

/// The Nevis seed's username and authentication operation on the server, on both databases: a
/// registration or challenge for another user is refused (7208) and stores nothing; an authenticator
/// log-in is a single-use, expiring challenge signed by the authenticator's registered key, and gives a
/// result token whose `amr` names the authenticator.
@Suite("Authenticator username and log-in")
struct AuthenticatorLoginTests {
    /// A registration body for `type` with a fresh key and a valid proof of possession; the key is returned too.
    static func registration(_ type: AuthenticatorType, deviceId: String, username: String?, pin: String? = nil)
        throws -> (AuthenticatorRegistrationRequest, P256.Signing.PrivateKey)
    {
        let key = P256.Signing.PrivateKey()
        let publicKey = key.publicKey.x963Representation.base64EncodedString()
        let proof = try key.signature(for: AuthenticatorRegistrationRequest.proofBytes(deviceId: deviceId, aaid: type.aaid, publicKey: publicKey))
        let request = AuthenticatorRegistrationRequest(
            username: username, aaid: type.aaid, publicKey: publicKey, keySignature: proof.derRepresentation.base64EncodedString(), pin: pin
        )
        return (request, key)
    }

    static func authenticatorRows(_ runtime: TesseraRuntime) async throws -> Int {
        try await runtime.database.withSQL { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM authenticators").first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }

    @Test("a registration naming another user, or no user, is refused with 7208 / 1004 and stores nothing", arguments: TestDatabase.kinds)
    func usernameChecked(kind: TestDatabase) async throws {
        try await withTestRuntime(kind) { runtime in
            let client = try await runtime.makeTestClient()
            let alice = try await SignUpFixtures.signUp(runtime, client, "alice")
            _ = try await SignUpFixtures.signUp(runtime, client, "bob")
            await expectCode(.authenticatorUsernameMismatch) {
                _ = try await runtime.authenticators.register(
                    try Self.registration(.pin, deviceId: alice, username: "bob", pin: "482913").0, deviceId: alice, client: client
                )
            }
            await expectCode(.authenticatorUsernameMismatch) {
                _ = try await runtime.authenticators.register(
                    try Self.registration(.fingerprint, deviceId: alice, username: "nobody").0, deviceId: alice, client: client
                )
            }
            await expectCode(.fieldMissing) {
                _ = try await runtime.authenticators.register(
                    try Self.registration(.pin, deviceId: alice, username: nil, pin: "482913").0, deviceId: alice, client: client
                )
            }
            #expect(try await Self.authenticatorRows(runtime) == 0)
            let info = try await runtime.authenticators.register(
                try Self.registration(.pin, deviceId: alice, username: "alice", pin: "482913").0, deviceId: alice, client: client
            )
            #expect(try await runtime.authenticators.list(deviceId: alice).authenticators.map(\.id) == [info.id])
            #expect(try await Self.authenticatorRows(runtime) == 1)
        }
    }

    @Test("log-in: the registered key's signature gives a token with amr [pin, swk]; the challenge works once, expires, and binds the key",
          arguments: TestDatabase.kinds)
    func login(kind: TestDatabase) async throws {
        let manual = ManualClock(start: WallClock.system.now())
        try await withTestRuntime(kind, clock: manual.clock) { runtime in
            let client = try await runtime.makeTestClient()
            let alice = try await SignUpFixtures.signUp(runtime, client, "alice")
            let bob = try await SignUpFixtures.signUp(runtime, client, "bob")
            let (request, key) = try Self.registration(.pin, deviceId: alice, username: "alice", pin: "482913")
            let pin = try await runtime.authenticators.register(request, deviceId: alice, client: client)
            let login = runtime.authenticatorLogin

            func sign(_ challenge: AuthenticatorChallengeResponse, with key: P256.Signing.PrivateKey, deviceId: String = alice) throws
                -> AuthenticatorAuthenticationRequest
            {
                let statement = AuthenticatorAuthenticationRequest.statementBytes(
                    challengeId: challenge.challengeId, deviceId: deviceId, authenticatorId: challenge.authenticatorId, challenge: challenge.challenge
                )
                return AuthenticatorAuthenticationRequest(
                    challengeId: challenge.challengeId, signature: try key.signature(for: statement).derRepresentation.base64EncodedString()
                )
            }

            // Another user's name, an authenticator the device does not have, another device's authenticator.
            await expectCode(.authenticatorUsernameMismatch) {
                _ = try await login.challenge(.init(username: "bob", aaid: AuthenticatorType.pin.aaid), deviceId: alice, client: client)
            }
            await expectCode(.authenticatorUnknown) {
                _ = try await login.challenge(.init(username: "alice", aaid: AuthenticatorType.fingerprint.aaid), deviceId: alice, client: client)
            }
            await expectCode(.authenticatorUnknown) {
                _ = try await login.challenge(.init(username: "bob", aaid: AuthenticatorType.pin.aaid), deviceId: bob, client: client)
            }

            // The registered key signs: a token naming alice, her device and the PIN.
            let challenge = try await login.challenge(.init(username: "alice", aaid: AuthenticatorType.pin.aaid), deviceId: alice, client: client)
            #expect(challenge.authenticatorId == pin.id)
            let signed = try sign(challenge, with: key)
            // Bob's device cannot use alice's challenge.
            await expectCode(.authenticatorChallengeInvalid) { _ = try await login.authenticate(signed, deviceId: bob, client: client) }
            let answer = try await login.authenticate(signed, deviceId: alice, client: client)
            let claims = try await runtime.tokens.verify(answer.data)
            #expect(claims.amr == ["pin", "swk"])
            #expect(claims.sub.value == "alice" && claims.deviceId == alice && claims.jti.value == challenge.challengeId)
            // Used once.
            await expectCode(.authenticatorChallengeInvalid) { _ = try await login.authenticate(signed, deviceId: alice, client: client) }

            // Another key (not the registered one) is refused, and that challenge is used up.
            let second = try await login.challenge(.init(username: "alice", aaid: AuthenticatorType.pin.aaid), deviceId: alice, client: client)
            await expectCode(.authenticatorSignatureInvalid) {
                _ = try await login.authenticate(try sign(second, with: P256.Signing.PrivateKey()), deviceId: alice, client: client)
            }
            await expectCode(.authenticatorChallengeInvalid) { _ = try await login.authenticate(try sign(second, with: key), deviceId: alice, client: client) }

            // Expired on the injected clock.
            let late = try await login.challenge(.init(username: "alice", aaid: AuthenticatorType.pin.aaid), deviceId: alice, client: client)
            manual.advance(by: .seconds(Int64(late.expiresIn) + 1))
            await expectCode(.authenticatorChallengeInvalid) { _ = try await login.authenticate(try sign(late, with: key), deviceId: alice, client: client) }

            // A deleted authenticator cannot sign a challenge given before it was deleted.
            let beforeDelete = try await login.challenge(.init(username: "alice", aaid: AuthenticatorType.pin.aaid), deviceId: alice, client: client)
            try await runtime.authenticators.delete(id: pin.id, deviceId: alice)
            await expectCode(.authenticatorChallengeInvalid) {
                _ = try await login.authenticate(try sign(beforeDelete, with: key), deviceId: alice, client: client)
            }
        }
    }
}
