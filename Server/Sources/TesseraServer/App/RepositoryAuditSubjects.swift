import SQLKit

/// ``AuditSubjectKeys`` through the owners of the names: the clients' repository for client keys, the users'
/// for user keys.
struct RepositoryAuditSubjects: AuditSubjectKeys {
    let clients: any ClientRepository
    let users: any UserRepository

    /// Tessera's own ID prefixes: a subject with one of them is an ID, never a key.
    static let idPrefixes = ["cl_", "usr_", "dev_", "ses_", "ch_", "otp_"]

    func clientKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String] {
        try await clients.clientKeys(ids: ids, in: sql)
    }

    func userKeys(ids: [String], in sql: any SQLDatabase) async throws -> [String: String] {
        try await users.userKeys(ids: ids, in: sql)
    }

    func ids(named subject: String, in sql: any SQLDatabase) async throws -> [String] {
        if Self.idPrefixes.contains(where: subject.hasPrefix) { return [] }
        var ids: [String] = []
        if subject.hasPrefix("tck_"), let clientId = try await clients.clientId(clientKey: subject, in: sql) { ids.append(clientId) }
        ids += try await users.userIds(userKey: subject, in: sql)
        return ids
    }
}
