import Hummingbird
import NIOCore
import TesseraHTTPKit

/// What Tessera's handlers need from a request context: the caller's address, a request id, and
/// the authenticated app client when there is one.
public protocol TesseraContext: ProblemContext {
    /// The client's IP address: the socket peer, or the forwarded client behind a trusted proxy
    /// (set by ``ClientAddressMiddleware``).
    var remoteAddress: String? { get set }
    var requestId: String { get }
    var client: Client? { get set }
    /// The device whose signature a device endpoint verified.
    var deviceId: String? { get set }
    /// The session a bearer-authenticated call carries.
    var session: SessionService.Authenticated? { get set }
}

/// The request context of the Tessera server.
public struct TesseraRequestContext: TesseraContext {
    public var coreContext: CoreRequestContextStorage
    public var remoteAddress: String?
    public let requestId: String
    public var client: Client?
    public var deviceId: String?
    public var session: SessionService.Authenticated?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
        self.requestId = RequestIdentifier.next()
        self.client = nil
        self.deviceId = nil
        self.session = nil
    }
}
