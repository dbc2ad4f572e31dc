import HTTPTypes
import Hummingbird
import TesseraCore

/// Authenticates app calls: the client key and bundle identifier headers must name a known,
/// enabled client whose allow-list has the bundle.
package struct ClientMiddleware<Context: TesseraContext>: RouterMiddleware {
    package let clients: ClientService

    package init(clients: ClientService) {
        self.clients = clients
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.client = try await clients.authenticateApp(
            clientKey: AppHeaderNames.clientKey.flatMap { request.headers.value($0) },
            bundleId: AppHeaderNames.bundleId.flatMap { request.headers.value($0) }
        )
        return try await next(request, context)
    }
}

/// The app headers' names, made once (a name checks its characters when it is made; a generic
/// middleware cannot keep them in a static stored property).
private enum AppHeaderNames {
    static let clientKey = HTTPField.Name(TesseraHeader.clientKey)
    static let bundleId = HTTPField.Name(TesseraHeader.bundleId)
}
