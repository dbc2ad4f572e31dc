/// Where device changes go once their transaction committed: the verifier nodes' sync implements it
/// (``NodeSyncService``) without the accounts layer knowing the nodes. Sign-up, registration,
/// session devices and the admin's revocations tell it which devices changed.
package protocol DeviceChangeFeed: Sendable {
    /// Delivers the queued changes of these devices now; failures are the feed's to log and retry.
    func flush(deviceIds: [String]) async
}
