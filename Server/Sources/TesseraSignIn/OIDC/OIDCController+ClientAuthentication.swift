import Foundation
import Hummingbird
import TesseraCore

/// How a client's backend authenticates at the token, backchannel authentication, revocation and introspection
/// endpoints (RFC 6749 §2.3, OIDC Core §9).
extension OIDCController {
    /// A form POST of a client's backend (token, revocation, introspection): the form and the client,
    /// authenticated by `client_secret_basic`, `client_secret_post` or `private_key_jwt`; or the OAuth error to answer.
    func authenticatedForm(_ request: Request) async throws -> Result<(Client, [String: String]), OIDCService.OAuthError> {
        var request = request
        guard Self.isForm(request) else {
            return .failure(.init(error: "invalid_request", description: "send application/x-www-form-urlencoded"))
        }
        let form = RelyingPartyController<Context>.form(buffer: try await request.collectBody(limit: bodyLimit))
        // RFC 6749 §5.2: 401 with the challenge of a scheme this server supports, whichever way the client sent its secret.
        let failed = OIDCService.OAuthError(error: "invalid_client", description: "client authentication failed", status: 401)
        let basic = Self.basicCredentials(request.headers[.authorization])
        // private_key_jwt (OIDC Core §9, RFC 7523 §2.2): one method only (RFC 6749 §2.3).
        if let type = form["client_assertion_type"] {
            guard type == OIDCClientKeys.assertionType, let assertion = form["client_assertion"], basic == nil, form["client_secret"] == nil,
                  let client = await service.clientKeys.authenticate(assertion: assertion, clientId: form["client_id"])
            else { return .failure(failed) }
            return .success((client, form))
        }
        guard let (clientKey, secret) = basic ?? form["client_id"].flatMap({ id in form["client_secret"].map { (id, $0) } }),
              clientKey.count <= 100, secret.count <= 200, !clientKey.utf8.contains(0), !secret.utf8.contains(0)
        else { return .failure(failed) }
        do {
            return .success((try await service.clients.authenticateBackend(clientKey: clientKey, secret: secret), form))
        } catch is AppError {
            return .failure(failed)
        }
    }

    /// RFC 6749 §2.3.1: the client ID and secret, each form-urlencoded, in HTTP Basic.
    package static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.hasPrefix(ignoringASCIICase: "basic "),
              let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
        else { return nil }
        func unescape(_ text: Substring) -> String { String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
        return (unescape(pair[..<colon]), unescape(pair[pair.index(after: colon)...]))
    }
}
