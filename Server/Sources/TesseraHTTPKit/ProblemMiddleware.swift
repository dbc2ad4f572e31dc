import Foundation
import Hummingbird
import Logging
import TesseraCore
import Synchronization

/// Turns every error into an RFC 9457 problem answer with a stable code that carries the request's
/// id (the one in its log lines). Unknown errors become 500 with code 9001 and are logged; they are
/// always bugs. An answer to HEAD has no content (RFC 9110 §9.3.2).
public struct ProblemMiddleware<Context: ProblemContext>: RouterMiddleware {
    let bodyLimit: Int
    let routes: RouteTable

    /// Refuses bodies announced larger than `bodyLimit`; `routes` answers 405 for known paths.
    public init(bodyLimit: Int, routes: RouteTable) {
        self.bodyLimit = bodyLimit
        self.routes = routes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await answer(request, context: context, next: next)
        // The routers answer HEAD with their GET routes (`.autoGenerateHeadEndpoints`); a problem answer
        // to a HEAD (no route, say) loses its content here too.
        return request.method == .head ? response.createHeadResponse() : response
    }

    private func answer(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            if let length = request.headers.value(.contentLength).flatMap(Int.init), length > bodyLimit {
                throw AppError.bodyTooLarge(limit: bodyLimit)
            }
            try TextCheck.checkQuery(request.uri)
            return try await next(request, context)
        } catch let error as AppError {
            context.logger.info("request refused", metadata: ["code": .stringConvertible(error.code.rawValue)])
            return error.response(requestId: context.requestId)
        } catch let error as HTTPError where error.status == .notFound && !routes.methods(for: request.uri.path).isEmpty {
            // The path exists, the method does not: 405 with the methods that do.
            var response = AppError.methodNotAllowed().response(requestId: context.requestId)
            response.headers[.allow] = routes.methods(for: request.uri.path).joined(separator: ", ")
            return response
        } catch let error as HTTPError {
            let mapped = AppError(httpError: error)
            context.logger.info("request refused", metadata: ["code": .stringConvertible(mapped.code.rawValue)])
            return mapped.response(requestId: context.requestId)
        } catch {
            if let mapped = AppError(transport: error, bodyLimit: bodyLimit) {
                context.logger.info("request refused", metadata: ["code": .stringConvertible(mapped.code.rawValue)])
                return mapped.response(requestId: context.requestId)
            }
            context.logger.error("unexpected error", metadata: ["error": .string(String(reflecting: error))])
            return AppError.internalError.response(requestId: context.requestId)
        }
    }
}

/// The router's paths and their methods, filled once the routes are added, to answer 405 with `Allow`.
public final class RouteTable: Sendable {
    private struct Entry {
        var segments: [Substring]
        var method: String
    }

    private let table = Mutex<[Entry]>([])

    /// An empty table; ``fill(from:)`` it once the routes are added.
    public init() {}

    /// Records the router's routes.
    public func fill<Context>(from routes: [Router<Context>.RouteDescription]) {
        let entries = routes.map { route in
            Entry(segments: route.path.description.split(separator: "/"), method: route.method.rawValue)
        }
        table.withLock { $0 = entries }
    }

    /// The methods routed for `path` (captures match any segment), sorted; HEAD wherever GET is
    /// (the routers answer it with their GET routes).
    public func methods(for path: String) -> [String] {
        let segments = path.split(separator: "/")
        let entries = table.withLock { $0 }
        let matching = entries.filter { entry in
            entry.segments.count == segments.count
                && zip(entry.segments, segments).allSatisfy { pattern, segment in
                    pattern == segment || pattern.hasPrefix(":") || pattern.hasPrefix("{")
                }
        }
        var methods = Set(matching.map(\.method))
        if methods.contains("GET") { methods.insert("HEAD") }
        return methods.sorted()
    }
}
