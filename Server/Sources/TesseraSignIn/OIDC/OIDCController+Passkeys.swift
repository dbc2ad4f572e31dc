import Foundation
import Hummingbird
import TesseraCore

/// Passkey sign-in on the hosted page, for its script: options for `navigator.credentials.get`,
/// then the assertion (`PublicKeyCredential.toJSON()`), answered with where the browser goes next.
/// Both take the page's form (`csrf`) and answer JSON; a refusal is an RFC 9457 problem.
extension OIDCController {
    /// The answer to the options call.
    struct PasskeyOptionsAnswer: Encodable {
        var challengeId: String
        var publicKey: PasskeyJSON.RequestOptions
    }

    /// `POST …/passkey/options` (form `csrf`): a usernameless challenge bound to this sign-in.
    @Sendable package func passkeyOptions(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let (pending, client) = try await service.pendingForPasskey(id, csrf: form["csrf"] ?? "")
        let (challengeId, options) = try await passkeys.authenticationOptions(client: client, userId: nil, binding: pending.id)
        var response = try Response.json(PasskeyOptionsAnswer(challengeId: challengeId, publicKey: options))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `POST …/passkey` (form `csrf`, `challengeId`, `credential`: the assertion's JSON): the code to the
    /// client's redirect URI, as `{"location": …}`, and the session cookie.
    @Sendable package func passkeySignIn(_ request: Request, context: Context) async throws -> Response {
        let id = try context.parameters.require("requestId")
        let form = try await pageForm(request)
        let (pending, client) = try await service.pendingForPasskey(id, csrf: form["csrf"] ?? "")
        guard let challengeId = form["challengeId"], !challengeId.isEmpty, challengeId.count <= 100 else {
            throw AppError.fieldMissing("challengeId", "challengeId is required: the one the options call gave")
        }
        guard let text = form["credential"], !text.isEmpty else { throw AppError.fieldMissing("credential", "credential is required: the assertion's JSON") }
        guard text.utf8.count <= 16_384, let credential = try? JSONDecoder().decode(PasskeyJSON.AuthenticationResponse.self, from: Data(text.utf8)) else {
            throw AppError.invalidField("credential", "credential must be the JSON of a PublicKeyCredential (AuthenticationResponseJSON)")
        }
        let signIn = try await passkeys.finishAuthentication(client: client, challengeId: challengeId, binding: pending.id, response: credential)
        let completion = try await service.completeWithPasskey(pending, signIn: signIn, browser: Self.browser(request))
        var response = try Response.json(["location": completion.location])
        response.headers[.cacheControl] = "no-store"
        if let browser = completion.browser { response.setCookie(browserCookie(browser)) }
        return response
    }
}
