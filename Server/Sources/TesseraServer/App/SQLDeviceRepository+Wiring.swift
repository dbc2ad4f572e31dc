/// The composition root's wiring of the devices' repository: sessions revoked through their own
/// repository, changes queued for the verifier nodes through theirs.
extension SQLDeviceRepository {
    init(database: any Database) {
        self.init(database: database, sessions: SQLSessionRepository(), syncQueue: NodeSyncQueue())
    }
}
