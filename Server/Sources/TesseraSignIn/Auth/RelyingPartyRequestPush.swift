import SQLKit

/// What wakes a user's devices when a relying party asks for an authentication (the push domain).
/// The pushes are written in the request's own transaction, so they exist exactly when it does.
package protocol RelyingPartyRequestPush: Sendable {
    /// Queues a push to each of the user's devices that has a push token, inside `sql`.
    func schedule(_ channel: AuthChannelRecord, in sql: any SQLDatabase) async throws
    /// Called after the request was committed: the sender may look at its queue now.
    func scheduled()
}
