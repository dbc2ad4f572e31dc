import Hummingbird
import TesseraCore

/// Requires a live session (`Authorization: Bearer tss_…`) of the calling client and puts it in the
/// context. With `requiresDevice`, a session not yet bound to a device key is refused (7104): the
/// user counts as logged in only once the device key is registered. A 401 carries
/// `WWW-Authenticate: Bearer` (RFC 6750), with `error="invalid_token"` when a token was sent.
package struct SessionMiddleware<Context: TesseraContext>: RouterMiddleware {
    package let sessions: SessionService
    package var requiresDevice = true

    package init(sessions: SessionService, requiresDevice: Bool = true) {
        self.sessions = sessions
        self.requiresDevice = requiresDevice
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers.value(.authorization), header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            var response = AppError.sessionInvalid(detail: "Send Authorization: Bearer <session token>")
                .response(requestId: context.requestId)
            response.headers[.wwwAuthenticate] = "Bearer realm=\"tessera\""
            return response
        }
        let session: SessionService.Authenticated
        do {
            session = try await sessions.authenticate(token: String(header.dropFirst(7)), client: try context.requireClient())
        } catch let error as AppError where error.status == .unauthorized {
            var response = error.response(requestId: context.requestId)
            response.headers[.wwwAuthenticate] = "Bearer realm=\"tessera\", error=\"invalid_token\""
            return response
        }
        if requiresDevice, session.deviceId == nil {
            throw AppError.sessionDeviceRequired(detail: "PUT /v1/session/device")
        }
        var context = context
        context.session = session
        return try await next(request, context)
    }
}

extension TesseraContext {
    /// The session; the session middleware guarantees it on session routes.
    package func requireSession() throws -> SessionService.Authenticated {
        guard let session else { throw AppError.sessionInvalid() }
        return session
    }
}
