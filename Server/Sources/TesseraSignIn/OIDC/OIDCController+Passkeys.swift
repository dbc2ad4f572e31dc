import Foundation
import Hummingbird
import TesseraCore

/// Passkey sign-in on the hosted page, for its script: options for `navigator.credentials.get`,
/// then the assertion (`PublicKeyCredential.toJSON()`), answered with where the browser goes next.
/// Both take the page's form (`csrf`) and answer JSON; a refusal is an RFC 9457 problem.
extension OIDCController {
    /// `POST …/passkey/options` (form `csrf`): a usernameless challenge bound to this sign-in.
    @Sendable package func passkeyOptions(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let (pending, client) = try await service.pendingForPasskey(id, csrf: form["csrf"] ?? "")
        let (challengeId, options) = try await passkeys.authenticationOptions(client: client, userId: nil, binding: pending.id)
        var response = try Response.json(PasskeyRequestChallenge(challengeId: challengeId, publicKey: options))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `POST …/passkey` (form `csrf`, `challengeId`, `credential`: the assertion's JSON): the code to the
    /// client's redirect URI, as `{"location": …}`, and the session cookie.
    @Sendable package func passkeySignIn(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let (pending, client) = try await service.pendingForPasskey(id, csrf: form["csrf"] ?? "")
        let challengeId = try Self.challengeId(form)
        let credential = try Self.credential(PasskeyJSON.AuthenticationResponse.self, form, limit: 16_384)
        let signIn = try await passkeys.finishAuthentication(client: client, challengeId: challengeId, binding: pending.id, response: credential)
        let completion = try await service.completeWithPasskey(pending, signIn: signIn, browser: Self.browser(request))
        var response = try Response.json(["location": completion.location])
        response.headers[.cacheControl] = "no-store"
        if let browser = completion.browser { response.setCookie(browserCookie(browser)) }
        return response
    }

    /// `POST …/passkey/registration/options` (form `csrf`), once the phone approved: options for
    /// `navigator.credentials.create` for the approved user, their passkeys at this client excluded.
    @Sendable package func passkeyRegistrationOptions(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let approved = try await service.approvedSignIn(id, csrf: form["csrf"] ?? "")
        let user = approved.user
        let (challengeId, options) = try await passkeys.registrationOptions(
            client: approved.client, userId: user.id, userName: user.email.isEmpty ? user.userKey : user.email,
            displayName: user.name.isEmpty ? user.userKey : user.name, binding: approved.request.id
        )
        var response = try Response.json(PasskeyCreationChallenge(challengeId: challengeId, publicKey: options))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `POST …/passkey/registration` (form `csrf`, `challengeId`, `credential`: the JSON of the created
    /// credential, `name` optional): the passkey is stored for the approved user; `{"passkey": …}`.
    @Sendable package func passkeyRegistration(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let approved = try await service.approvedSignIn(id, csrf: form["csrf"] ?? "")
        let challengeId = try Self.challengeId(form)
        let credential = try Self.credential(PasskeyJSON.RegistrationResponse.self, form, limit: 65_536)
        let created = try await passkeys.finishRegistration(
            client: approved.client, challengeId: challengeId, binding: approved.request.id, response: credential, name: form["name"]
        )
        var response = try Response.json(["passkey": created.info(clientKey: approved.client.clientKey)], status: .created)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The form's `credential`: the JSON of a `PublicKeyCredential` (`RegistrationResponseJSON` or
    /// `AuthenticationResponseJSON`), at most `limit` bytes.
    static func credential<T: Decodable>(_ type: T.Type, _ form: [String: String], limit: Int) throws -> T {
        let shape = T.self == PasskeyJSON.RegistrationResponse.self ? "RegistrationResponseJSON" : "AuthenticationResponseJSON"
        guard let text = form["credential"], !text.isEmpty else { throw AppError.fieldMissing("credential", "credential is required: the \(shape)") }
        guard text.utf8.count <= limit, let credential = try? JSONDecoder().decode(T.self, from: Data(text.utf8)) else {
            throw AppError.invalidField("credential", "credential must be the JSON of a PublicKeyCredential (\(shape))")
        }
        return credential
    }

    /// The form's `challengeId`: the one the options call gave.
    static func challengeId(_ form: [String: String]) throws -> String {
        guard let challengeId = form["challengeId"], !challengeId.isEmpty, challengeId.count <= 100 else {
            throw AppError.fieldMissing("challengeId", "challengeId is required: the one the options call gave")
        }
        return challengeId
    }
}
