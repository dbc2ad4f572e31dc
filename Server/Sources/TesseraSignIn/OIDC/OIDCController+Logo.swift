import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// The clients' logos: set by the admin (`PUT/DELETE /v1/admin/clients/{clientKey}/oidc/logo`), served to
/// the hosted page (`GET /oauth2/logo/{clientKey}`).
extension OIDCController {
    func addLogoRoutes(to router: Router<Context>) {
        router.get("oauth2/logo/{clientKey}", use: logo)
    }

    func addLogoAdminRoutes(to admin: RouterGroup<Context>) {
        admin.get("clients/{clientKey}/oidc/logo", use: logo)
        admin.put("clients/{clientKey}/oidc/logo") { request, context in
            var request = request
            let type = request.headers[.contentType] ?? ""
            // One byte over the limit is enough to know the logo is too large.
            let body = try await request.collectBody(upTo: ClientLogo.maximumBytes + 1)
            let logo = try ClientLogo(Data(buffer: body), contentType: type)
            try await service.setLogo(logo, clientKey: try context.parameters.require("clientKey"))
            return Response(status: .noContent)
        }
        admin.delete("clients/{clientKey}/oidc/logo") { _, context in
            try await service.setLogo(nil, clientKey: try context.parameters.require("clientKey"))
            return Response(status: .noContent)
        }
    }

    /// The logo's bytes with its type; not sniffed, not framed, no script (CSP), cached briefly (its URL on
    /// the page carries the digest, so a new logo is a new URL).
    @Sendable func logo(_ request: Request, context: Context) async throws -> Response {
        guard let logo = try await service.logo(clientKey: try context.parameters.require("clientKey")) else {
            throw AppError.notFound("This client has no logo")
        }
        var headers = HTTPFields()
        headers[.contentType] = logo.contentType
        headers[.cacheControl] = "public, max-age=300"
        headers[.eTag] = "\"\(logo.digest)\""
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        if let field = HTTPField.Name("X-Content-Type-Options") { headers[field] = "nosniff" }
        if request.headers[.ifNoneMatch] == "\"\(logo.digest)\"" { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: logo.data)))
    }
}
