import Foundation

/// The answer to an ``OperationHTTPRequest``: what the default transport received, or what an
/// ``OperationHTTPHandler`` that performs the request itself got.
public struct OperationHTTPResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The body (JSON, or an RFC 9457 problem document).
    public var body: Data

    /// Creates an answer.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}
