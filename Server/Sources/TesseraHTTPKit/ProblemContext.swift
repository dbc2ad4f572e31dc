import Hummingbird

/// What the shared middlewares (``ProblemMiddleware``, ``SignedRequestMiddleware``) need from a
/// request context: a request id for problem answers and logs, and where to put a verified signer.
public protocol ProblemContext: RequestContext {
    /// What the key lookup of this context's signed routes reads beside the key (``DeviceSigningKey/details``).
    associatedtype SignerDetails: Sendable
    /// The device (or key) whose signature ``SignedRequestMiddleware`` verified, as the key lookup
    /// found it (with what else it read, see ``DeviceSigningKey/details``).
    var signer: DeviceSigningKey<SignerDetails>? { get set }
}

extension ProblemContext {
    /// The id that appears in problem answers and in the logs: Hummingbird's request id, which every
    /// log line of the request carries as `hb.request.id` (a random 64-bit prefix drawn once per process
    /// and a counter). Formatted only when asked for, which the success path never does.
    public var requestId: String {
        logger[metadataKey: "hb.request.id"]?.description ?? "-"
    }

    /// The ID of the device (or key) whose signature ``SignedRequestMiddleware`` verified.
    public var deviceId: String? { signer?.deviceId }
}
