import Hummingbird
import NIOCore
import TesseraHTTPKit

/// What Tessera's handlers need from a request context: the caller's address, a request id, and
/// the authenticated app client when there is one.
public protocol TesseraContext: ProblemContext where SignerDetails == DeviceAuthTarget? {
    /// The client's IP address: the socket peer, or the forwarded client behind a trusted proxy
    /// (set by ``ClientAddressMiddleware``).
    var remoteAddress: String? { get set }
    var client: Client? { get set }
    /// The session a bearer-authenticated call carries.
    var session: SessionService.Authenticated? { get set }
}

extension TesseraContext {
    /// The signing device as the signature check read it (with its user and client), so that a
    /// handler need not read it again; nil on unsigned routes.
    package var signedDevice: DeviceAuthTarget? { signer?.details ?? nil }
}

/// The request context of the Tessera server.
public struct TesseraRequestContext: TesseraContext {
    public var coreContext: CoreRequestContextStorage
    public var remoteAddress: String?
    public var client: Client?
    public var signer: DeviceSigningKey<DeviceAuthTarget?>?
    public var session: SessionService.Authenticated?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress
        self.client = nil
        self.signer = nil
        self.session = nil
    }
}
