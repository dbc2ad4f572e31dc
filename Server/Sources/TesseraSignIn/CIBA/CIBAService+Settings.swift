import Foundation
import TesseraCore

/// A client's CIBA delivery settings, as the admin sets them.
extension CIBAService {
    package func settings(client: Client) async throws -> CIBAClientSettings {
        let clients = self.clients
        return try await oidc.database.read { sql in try await clients.settings(clientId: client.id, in: sql) }
    }

    /// Replaces the client's settings: `poll`, or `ping` or `push` with a notification endpoint (https; plain http only to a
    /// loopback host; no user or password; at most 500 characters). 1005 naming the member otherwise.
    package func setSettings(_ settings: CIBAClientSettings, client: Client) async throws -> CIBAClientSettings {
        var checked = settings
        switch settings.deliveryMode {
        case "poll":
            checked.notificationEndpoint = try settings.notificationEndpoint.map { try Self.endpoint($0) }
        case "ping", "push":
            guard let endpoint = settings.notificationEndpoint else {
                throw AppError.invalidField("notificationEndpoint", "notificationEndpoint is required for \(settings.deliveryMode)")
            }
            checked.notificationEndpoint = try Self.endpoint(endpoint)
        default:
            throw AppError.invalidField("deliveryMode", "deliveryMode must be poll, ping or push")
        }
        let clients = self.clients, now = oidc.clock.now(), stored = checked
        try await oidc.database.transaction { sql in try await clients.save(stored, clientId: client.id, now: now, in: sql) }
        return stored
    }

    /// An address the server may call: https (plain http only to a loopback host), no user, password or fragment,
    /// at most 500 characters; 1005 naming `field` otherwise.
    static func endpoint(_ text: String, field: String = "notificationEndpoint") throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= 500, let url = URLComponents(string: trimmed), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil, url.fragment == nil,
              scheme == "https" || (scheme == "http" && LoopbackHost.contains(host))
        else {
            throw AppError.invalidField(
                field, "\(field) must be an https URL (plain http only to a loopback host), without a user, password or fragment"
            )
        }
        return trimmed
    }
}
