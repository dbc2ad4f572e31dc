import Crypto
import Foundation
import Synchronization
import TesseraCore

extension P256.Signing.PublicKey {
    /// A P-256 public key from its X9.63 representation in base64, as devices, nodes and the node
    /// server key carry it; nil for anything else.
    public init?(x963Base64 text: String) {
        guard let raw = Data(base64Encoded: text), let key = try? P256.Signing.PublicKey(x963Representation: raw) else { return nil }
        self = key
    }

    /// Parses the request member `field`, or answers 1005 naming it.
    public init(x963Base64 text: String, field: String) throws {
        guard let key = Self(x963Base64: text) else {
            throw AppError.invalidField(field, "\(field) must be a P-256 public key (X9.63, base64)")
        }
        self = key
    }
}

/// A device's signing key as the verifier needs it, with what else its lookup read (`Details`): the
/// server's lookup reads the device's user and client with the key, a node's knows nothing more (`Void`).
public struct DeviceSigningKey<Details: Sendable>: Sendable {
    /// The device (or key) ID the signature names.
    public var deviceId: String
    public var publicKey: P256.Signing.PublicKey
    public var revoked: Bool
    /// What else the lookup read with the key, for the handler of the signed request (the server
    /// puts the device's user and client here, so that a handler does not read the device again).
    public var details: Details

    /// A key with what its lookup read beside it.
    public init(deviceId: String, publicKey: P256.Signing.PublicKey, revoked: Bool, details: Details) {
        self.deviceId = deviceId
        self.publicKey = publicKey
        self.revoked = revoked
        self.details = details
    }
}

extension DeviceSigningKey where Details == Void {
    /// A key whose lookup reads nothing else.
    public init(deviceId: String, publicKey: P256.Signing.PublicKey, revoked: Bool) {
        self.init(deviceId: deviceId, publicKey: publicKey, revoked: revoked, details: ())
    }
}

extension DeviceSigningKey where Details: ExpressibleByNilLiteral {
    /// A key whose lookup may read more but did not here.
    public init(deviceId: String, publicKey: P256.Signing.PublicKey, revoked: Bool) {
        self.init(deviceId: deviceId, publicKey: publicKey, revoked: revoked, details: nil)
    }
}

/// Finds a device's public key by the signature's key id, with the `Details` its request context
/// carries (``ProblemContext/SignerDetails``). The devices domain implements it over its tables;
/// ``MemoryDeviceKeyLookup`` serves tests and tools.
public protocol DeviceKeyLookup<Details>: Sendable {
    associatedtype Details: Sendable
    func signingKey(for keyId: String) async throws -> DeviceSigningKey<Details>?
}

/// An in-memory ``DeviceKeyLookup``.
public final class MemoryDeviceKeyLookup<Details: Sendable>: DeviceKeyLookup, Sendable {
    private let keys = Mutex<[String: DeviceSigningKey<Details>]>([:])

    public init() {}

    public func add(_ key: DeviceSigningKey<Details>) { keys.withLock { $0[key.deviceId] = key } }

    public func revoke(_ deviceId: String) { keys.withLock { $0[deviceId]?.revoked = true } }

    public func signingKey(for keyId: String) async throws -> DeviceSigningKey<Details>? { keys.withLock { $0[keyId] } }
}


/// A lookup that knows one key, under its thumbprint: a sign-up's key in the request body, or the
/// server's node-control key on a node.
public struct SingleKeyLookup: DeviceKeyLookup {
    let publicKey: P256.Signing.PublicKey

    /// Knows `publicKey` only.
    public init(publicKey: P256.Signing.PublicKey) { self.publicKey = publicKey }

    public func signingKey(for keyId: String) async throws -> DeviceSigningKey<Void>? {
        guard keyId == MessageSignature.thumbprint(ofX963: publicKey.x963Representation) else { return nil }
        return DeviceSigningKey(deviceId: keyId, publicKey: publicKey, revoked: false)
    }
}
