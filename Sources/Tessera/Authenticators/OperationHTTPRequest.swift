import Foundation

/// One HTTP request an authenticator operation is about to send, as an ``OperationHTTPHandler`` sees it.
///
/// Device-signed requests are signed already: the handler may add headers, but changing the method,
/// the path or the body breaks the signature and the server refuses the request (3005, 3006).
public struct OperationHTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, `DELETE`.
    public var method: String
    /// The full URL.
    public var url: URL
    /// The headers, the SDK's own included (client key, bundle id, signature).
    public var headers: [String: String]
    /// The JSON body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String], body: Data?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
