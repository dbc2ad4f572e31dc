import TesseraCore

/// Passkey sign-in on the hosted page: the pending authorization, still on its identifier form, is
/// completed for the user a verified passkey assertion names (W3C WebAuthn Level 3 §7.2), with
/// RFC 8176 `amr` (`hwk` or `swk`, and `user`).
extension OIDCService {
    /// The pending authorization and its client, when a passkey may still finish it: not yet sent to a phone.
    /// Not rate limited, as the authorization endpoint that made the request is not: an options call only
    /// stores a challenge (purged once expired), and an assertion cannot be guessed.
    package func pendingForPasskey(_ id: String, csrf: String) async throws -> (OIDCPendingRequest, Client) {
        let request = try await pending(id, csrf: csrf)
        guard request.channelId == nil else {
            throw AppError.oidcAuthorizationUnknown(detail: "This sign-in is waiting for the phone; use Not you? to start again")
        }
        return (request, try await clients.client(clientKey: request.clientKey))
    }

    /// Completes `request` for `signIn`'s user: the code to the client's redirect URI and a session at Tessera.
    package func completeWithPasskey(_ request: OIDCPendingRequest, signIn: PasskeyService.SignIn, browser: String?) async throws -> Completion {
        let users = self.users
        guard let userKey = try await database.read({ sql in try await users.userKeys(ids: [signIn.userId], in: sql) })[signIn.userId] else {
            throw AppError.passkeyUnknown()
        }
        return try await issueCode(for: request, userKey: userKey, authTime: clock.now() / 1000, amr: signIn.amr, browser: browser)
    }
}
