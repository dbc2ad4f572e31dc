import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// Relying-party calls: HTTP Basic with the client key and client secret (RFC 7617; the
/// `client_secret_basic` of RFC 6749 §2.3.1, which RFC 7662 introspection expects).
package struct BackendAuthMiddleware<Context: TesseraContext>: RouterMiddleware {
    package let clients: ClientService

    package init(clients: ClientService) {
        self.clients = clients
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers.value(.authorization), let pair = Self.basicCredentials(header),
              let colon = pair.utf8.firstIndex(of: UInt8(ascii: ":"))
        else {
            var response = AppError.clientSecretInvalid(detail: "Send Authorization: Basic base64(clientKey:clientSecret)")
                .response(requestId: context.requestId)
            response.headers[.wwwAuthenticate] = "Basic realm=\"tessera\""
            return response
        }
        let clientKey = String(pair[..<colon]), secret = String(pair[pair.utf8.index(after: colon)...])
        // A NUL cannot be in a key or secret, and PostgreSQL refuses it in a lookup: same answer as a wrong key.
        // Split and measured in bytes (keys and secrets are ASCII): walking Characters breaks grapheme clusters.
        guard clientKey.utf8.count <= 100, secret.utf8.count <= 200, (try? TextCheck.check(pair, field: "")) != nil else {
            throw AppError.clientSecretInvalid(detail: "Client credentials invalid")
        }
        var context = context
        context.client = try await clients.authenticateBackend(clientKey: clientKey, secret: secret)
        return try await next(request, context)
    }

    /// The decoded `user:password` of a `Basic` header (scheme case-insensitive, blanks around the
    /// credentials ignored), or nil. Plain byte work: Foundation's `trimmingCharacters` and
    /// `lowercased()` were 3 % of a TOTP verification's CPU.
    package static func basicCredentials(_ header: String) -> String? {
        let scheme: StaticString = "basic "
        guard header.utf8.count > scheme.utf8CodeUnitCount, header.hasPrefix(ignoringASCIICase: scheme) else { return nil }
        let credentials = Substring(header).utf8.dropFirst(scheme.utf8CodeUnitCount).trimmingOptionalWhitespace()
        guard let decoded = Data(base64Encoded: Data(credentials)) else { return nil }
        return String(data: decoded, encoding: .utf8)
    }
}
