import Hummingbird

/// What the shared middlewares (``ProblemMiddleware``, ``SignedRequestMiddleware``) need from a
/// request context: a request id for problem answers and logs, and where to put a verified signer.
public protocol ProblemContext: RequestContext {
    /// The id that appears in problem answers and in the logs.
    var requestId: String { get }
    /// The device (or key) whose signature ``SignedRequestMiddleware`` verified.
    var deviceId: String? { get set }
}
