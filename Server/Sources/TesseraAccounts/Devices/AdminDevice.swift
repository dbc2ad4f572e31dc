// The devices domain owns this view: its repository lists a user's devices in it.

/// A device as the admin sees it (no keys or secrets).
public struct AdminDevice: Codable, Sendable, Equatable {
    public var deviceId: String
    /// The name given with the first authenticator registration (`deviceInformation`), if any.
    public var name: String?
    public var status: String
    public var os: String
    public var appVersion: String
    public var createdAt: Int64
    public var revokedAt: Int64?
}
