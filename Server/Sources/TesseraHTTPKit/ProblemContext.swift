import Hummingbird

/// What the shared middlewares (``ProblemMiddleware``, ``SignedRequestMiddleware``) need from a
/// request context: a request id for problem answers and logs, and where to put a verified signer.
public protocol ProblemContext: RequestContext {
    /// The id that appears in problem answers and in the logs.
    var requestId: String { get }
    /// The device (or key) whose signature ``SignedRequestMiddleware`` verified, as the key lookup
    /// found it (with what else it read, see ``DeviceSigningKey/details``).
    var signer: DeviceSigningKey? { get set }
}

extension ProblemContext {
    /// The ID of the device (or key) whose signature ``SignedRequestMiddleware`` verified.
    public var deviceId: String? { signer?.deviceId }
}
