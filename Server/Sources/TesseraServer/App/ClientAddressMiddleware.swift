import Hummingbird

/// Replaces the context's socket address with the client address that ``ClientAddressResolver``
/// finds behind trusted proxies, before any handler or per-IP limit reads it.
struct ClientAddressMiddleware<Context: TesseraContext>: RouterMiddleware {
    let resolver: ClientAddressResolver

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.remoteAddress = resolver.resolve(peer: context.remoteAddress, headers: request.headers)
        return try await next(request, context)
    }
}
