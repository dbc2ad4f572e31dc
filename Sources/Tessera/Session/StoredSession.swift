import Foundation

/// The session the SDK holds, as a key store keeps it. Its members are private to the SDK: a key store
/// persists it (it is `Codable`) but neither it nor the app can read the token.
public struct StoredSession: Codable, Sendable, Equatable {
    let token: String
    /// Whether the session is bound to this device's key (only then is the user logged in).
    let deviceBound: Bool
    /// The identity the session belongs to.
    public let identityId: String

    init(token: String, deviceBound: Bool, identityId: String) {
        self.token = token
        self.deviceBound = deviceBound
        self.identityId = identityId
    }
}
