import Foundation
import TesseraCore

/// Passkeys made and used in a client's app (the SDK's `registerPasskey` and `signInWithPasskey`, through
/// `ASAuthorizationController` on Apple platforms): the same ceremonies as the hosted page's, bound to the
/// signing device (registration) or to the app's bundle ID (sign-in), a sign-in answered with a result
/// token for the app's backend whose `device_id` is the passkey's ID (live while the passkey is).
package struct PasskeyAppCeremonies: Sendable {
    package let passkeys: PasskeyService
    package let users: any UserRepository
    package let tokens: ResultTokens

    package init(passkeys: PasskeyService, users: any UserRepository, tokens: ResultTokens) {
        self.passkeys = passkeys
        self.users = users
        self.tokens = tokens
    }

    /// Registration options for the device's user, their passkeys at this client excluded.
    package func registrationOptions(device: DeviceAuthTarget, client: Client) async throws -> PasskeyCreationChallenge {
        let users = self.users
        let user = try await passkeys.database.read { sql in try await users.find(clientId: client.id, userKey: device.userKey, in: sql) }
        let name = user.map { $0.email.isEmpty ? $0.userKey : $0.email } ?? device.userKey
        let displayName = user.map { $0.name.isEmpty ? name : $0.name } ?? name
        let (challengeId, options) = try await passkeys.registrationOptions(
            client: client, userId: device.userId, userName: name, displayName: displayName, binding: Self.binding(device: device)
        )
        return PasskeyCreationChallenge(challengeId: challengeId, publicKey: options)
    }

    /// Stores the passkey the device's platform made.
    package func finishRegistration(device: DeviceAuthTarget, client: Client, body: PasskeyRegistrationBody) async throws -> PasskeyInfo {
        try await passkeys.finishRegistration(
            client: client, challengeId: body.challengeId, binding: Self.binding(device: device), response: body.credential, name: body.name
        ).info(clientKey: client.clientKey)
    }

    /// Usernameless options: any discoverable passkey of the client may answer.
    package func authenticationOptions(client: Client, bundleId: String) async throws -> PasskeyRequestChallenge {
        let (challengeId, options) = try await passkeys.authenticationOptions(client: client, userId: nil, binding: Self.binding(bundleId: bundleId))
        return PasskeyRequestChallenge(challengeId: challengeId, publicKey: options)
    }

    /// Verifies the assertion (and, where the client requires it, has the nodes verify it) and signs a result token.
    package func signIn(client: Client, bundleId: String, body: PasskeyAuthenticationBody) async throws -> PasskeySignInResult {
        let signIn = try await passkeys.finishAuthentication(
            client: client, challengeId: body.challengeId, binding: Self.binding(bundleId: bundleId), response: body.credential
        )
        let users = self.users
        guard let userKey = try await passkeys.database.read({ sql in try await users.userKeys(ids: [signIn.userId], in: sql) })[signIn.userId] else {
            throw AppError.passkeyUnknown()
        }
        let token = try await tokens.issue(
            userKey: userKey, clientKey: client.clientKey, clientId: client.clientKey, deviceId: signIn.credential.id,
            channelId: passkeys.random.identifier(prefix: "pks_"), amr: signIn.amr, nodes: signIn.nodes
        )
        return PasskeySignInResult(resultToken: token, userKey: userKey, passkeyId: signIn.credential.id, amr: signIn.amr, nodes: signIn.nodes)
    }

    static func binding(device: DeviceAuthTarget) -> String { "device:\(device.deviceId)" }
    static func binding(bundleId: String) -> String { "app:\(bundleId)" }
}
