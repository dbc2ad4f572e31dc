import HTTPTypes
import Hummingbird
import TesseraCore

/// Authenticates app calls: the client key and bundle identifier headers must name a known,
/// enabled client whose allow-list has the bundle.
struct ClientMiddleware<Context: TesseraContext>: RouterMiddleware {
    let clients: ClientService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.client = try await clients.authenticateApp(
            clientKey: HTTPField.Name(TesseraHeader.clientKey).flatMap { request.headers[$0] },
            bundleId: HTTPField.Name(TesseraHeader.bundleId).flatMap { request.headers[$0] }
        )
        return try await next(request, context)
    }
}
