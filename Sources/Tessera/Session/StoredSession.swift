import Foundation

/// The session the SDK holds. Internal to the SDK, as the seeds promise ("the SDK will not expose the
/// session token"): no public symbol returns it, and the SDK's stores keep it sealed at rest.
struct StoredSession: Codable, Sendable, Equatable {
    let token: String
    /// Whether the session is bound to this device's key (only then is the user logged in).
    let deviceBound: Bool
    /// The identity the session belongs to.
    let identityId: String
}

/// Where the SDK keeps its session: only the SDK's own key stores are vaults (``MemoryKeyStore``,
/// ``FileKeyStore``). With an app's own ``DeviceKeyStore`` the session lives in memory for the life of
/// the ``TesseraClient``, so no app code ever handles the token.
protocol SessionVault: Sendable {
    /// Saves the session (nil removes it).
    func saveSession(_ session: StoredSession?) throws
    /// The saved session, if any.
    func loadSession() throws -> StoredSession?
}
