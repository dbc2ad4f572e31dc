import SQLKit

/// The names an operator sees for a row's subjects: the client key (`tck_…`, as the CLI and the
/// console list clients) for a `cl_…` client ID, and the user key (as the users list shows it) for a
/// `usr_…` user ID. Rows store the IDs, which the hash covers; the keys are looked up when rows are
/// read (the listing, the export, the console) and when a webhook is queued, through the owning
/// domains' repositories (the audit log names no table of theirs).
package protocol AuditSubjectKeys: Sendable {
    /// The client key of each of these client IDs that exists.
    func clientKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String]
    /// The user key of each of these user IDs that exists.
    func userKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String]
    /// The IDs a subject filter given as a key stands for: the client of a client key, the users of a user key
    /// (one per client that has it). Empty when `subject` is neither.
    func ids(named subject: String, in sql: any SQLDatabase) async throws -> [String]
}

extension AuditSubjectKeys {
    /// `entries` with ``AuditEntry/clientKey`` and ``AuditEntry/userKey`` filled in (two reads at most, one
    /// per kind of ID named); the hashed fields are untouched.
    package func named(_ entries: [AuditEntry], in sql: any SQLDatabase) async throws -> [AuditEntry] {
        let clientIds = Self.distinct(entries.compactMap(\.clientId))
        let userIds = Self.distinct(entries.compactMap(\.userId))
        let clients = clientIds.isEmpty ? [:] : try await clientKeys(ids: clientIds, in: sql)
        let users = userIds.isEmpty ? [:] : try await userKeys(ids: userIds, in: sql)
        return entries.map { entry in
            var entry = entry
            entry.clientKey = entry.clientId.flatMap { clients[$0] }
            entry.userKey = entry.userId.flatMap { users[$0] }
            return entry
        }
    }

    package static func distinct(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }
}
