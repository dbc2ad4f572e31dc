import Foundation

/// Customises the HTTP of one authenticator operation: the role of the seed's `NMAHttpOperation`,
/// which ``Registration`` and ``Authentication`` play through ``HTTPOperation``.
///
/// Each request of the operation goes through ``send(_:next:)``: adjust it and call `next` (the SDK's
/// own transport: URLSession on Apple platforms, AsyncHTTPClient on Linux), or perform it yourself
/// (a pinned session, a proxy, a recorded answer in a test) and return the answer. Errors thrown here
/// reach the operation's `onError` as ``OperationError/server(_:)`` with ``ErrorCode/networkError``.
public protocol OperationHTTPHandler: Sendable {
    /// Sends `request`, with `next` as the default transport.
    func send(
        _ request: OperationHTTPRequest, next: @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse
    ) async throws -> OperationHTTPResponse
}

/// An ``OperationHTTPHandler`` backed by a closure.
public struct ClosureOperationHTTPHandler: OperationHTTPHandler {
    /// The closure.
    public let handle: @Sendable (OperationHTTPRequest, @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse) async throws
        -> OperationHTTPResponse

    /// Creates a handler that calls `handle`.
    public init(
        _ handle: @escaping @Sendable (OperationHTTPRequest, @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse) async throws
            -> OperationHTTPResponse
    ) {
        self.handle = handle
    }

    /// Calls the closure.
    public func send(
        _ request: OperationHTTPRequest, next: @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse
    ) async throws -> OperationHTTPResponse {
        try await handle(request, next)
    }
}

/// The transport of an operation's client: adds the operation's request headers (never over the SDK's
/// own) and passes each request through its handler, with the client's transport as `next`.
struct OperationTransport: HTTPTransport {
    let base: any HTTPTransport
    let headers: [String: String]
    let handler: (any OperationHTTPHandler)?

    func send(method: String, url: URL, headers own: [String: String], body: Data?) async throws -> HTTPAnswer {
        var merged = headers.filter { extra in !own.keys.contains { $0.lowercased() == extra.key.lowercased() } }
        merged.merge(own) { $1 }
        let request = OperationHTTPRequest(method: method, url: url, headers: merged, body: body)
        let base = self.base
        let next: @Sendable (OperationHTTPRequest) async throws -> OperationHTTPResponse = { request in
            let answer = try await base.send(method: request.method, url: request.url, headers: request.headers, body: request.body)
            return OperationHTTPResponse(status: answer.status, body: answer.body)
        }
        let answer: OperationHTTPResponse
        if let handler { answer = try await handler.send(request, next: next) } else { answer = try await next(request) }
        return HTTPAnswer(status: answer.status, body: answer.body)
    }

    func lines(url: URL, headers: [String: String]) async throws -> (status: Int, lines: AsyncThrowingStream<String, any Error>) {
        try await base.lines(url: url, headers: headers)
    }
}
