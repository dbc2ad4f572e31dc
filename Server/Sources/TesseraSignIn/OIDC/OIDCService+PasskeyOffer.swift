import TesseraCore

/// The offer on the hosted page to add a passkey once the phone approved a sign-in (issue 38): shown
/// between the approval and the code when the client asks for it (``OIDCClientSettings/offerPasskeys``),
/// and the ceremony's user taken from the approval's result token, never from the browser.
extension OIDCService {
    /// A sign-in the phone approved that has no code yet, and the user it approved.
    package struct ApprovedSignIn: Sendable {
        package var request: OIDCPendingRequest
        package var client: Client
        package var user: UserRecord
    }

    /// The approved sign-in `id` (form token `csrf`); 409 (the "not approved" problem) while it is under way or after
    /// another ending, 404 (8101) once it has its code.
    package func approvedSignIn(_ id: String, csrf: String) async throws -> ApprovedSignIn {
        try await approvedSignIn(try await pending(id, csrf: csrf))
    }

    /// The approved sign-in of a pending `request`, or the "not approved" problem.
    func approvedSignIn(_ request: OIDCPendingRequest) async throws -> ApprovedSignIn {
        guard let (client, token) = try await approval(of: request) else { throw Self.notApproved }
        let userKey = try await tokens.verify(token).sub.value, users = self.users
        guard let user = try await database.read({ sql in try await users.find(clientId: client.id, userKey: userKey, in: sql) }) else {
            throw Self.notApproved
        }
        return ApprovedSignIn(request: request, client: client, user: user)
    }

    /// The branding and language of the page that offers a passkey, when the sign-in `id` is approved and its
    /// client offers passkeys; nil when the page goes straight on to the app.
    package func passkeyOffer(_ id: String, csrf: String) async throws -> (branding: ClientBranding, locale: String?)? {
        let request = try await pending(id, csrf: csrf)
        guard request.channelId != nil, let settings = try await repository.settings(clientId: request.clientId), settings.offerPasskeys,
              let approved = try? await approvedSignIn(request)
        else { return nil }
        return (ClientBranding(clientName: approved.client.name, clientKey: approved.client.clientKey, settings: settings), request.locale)
    }
}
