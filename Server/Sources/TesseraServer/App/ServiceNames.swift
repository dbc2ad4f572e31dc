import ServiceLifecycle

// ServiceLifecycle names each service of a group by interpolating it (`"\(service)"`) once at
// start-up. For a struct without a description, that is a reflection walk through every stored
// property it reaches (the repositories, the database, the configuration): it was half the CPU of
// `tessera serve` before it was ready. A short, fixed name per service is what the log needs.

extension AuthEventRelay: CustomStringConvertible { package var description: String { "AuthEventRelay" } }
extension ChannelExpiryService: CustomStringConvertible { package var description: String { "ChannelExpiryService" } }
extension OutboxWorker: CustomStringConvertible { package var description: String { "OutboxWorker(\(queue.name))" } }
extension JanitorService: CustomStringConvertible { package var description: String { "JanitorService" } }
extension AuditCheckpointService: CustomStringConvertible { package var description: String { "AuditCheckpointService" } }
extension NodeSyncService: CustomStringConvertible { package var description: String { "NodeSyncService" } }

/// A service under a fixed name, for one whose own description would be a reflection walk (an
/// `Application`, which ServiceLifecycle would otherwise describe field by field).
struct NamedService: Service, CustomStringConvertible {
    let description: String
    let service: any Service

    func run() async throws { try await service.run() }
}
