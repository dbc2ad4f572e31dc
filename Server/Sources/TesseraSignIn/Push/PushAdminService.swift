import Crypto
import Foundation
import TesseraCore
import _CryptoExtras

/// The admin side of push: a client's APNs, FCM or UnifiedPush settings, checked before they are stored (the
/// key must parse) and shown without any private key.
public struct PushAdminService: Sendable {
    package let repository: any PushRepository
    package let clients: ClientService

    package init(repository: any PushRepository, clients: ClientService) {
        self.repository = repository
        self.clients = clients
    }

    /// Stores the client's settings (replacing any), or removes them for `off: true` (its devices
    /// are no longer woken; they poll), and returns what the admin API shows of them.
    public func set(_ update: PushSettingsUpdate, clientKey: String) async throws -> PushSettingsView {
        let client = try await clients.client(clientKey: clientKey)
        guard let settings = try Self.validate(update) else {
            _ = try await repository.delete(clientId: client.id)
            return .empty
        }
        try await repository.save(settings, clientId: client.id)
        return settings.view
    }

    /// The client's settings without secrets; ``PushSettingsView/empty`` when it has none (every
    /// known client has push settings, possibly empty, as it has OpenID Connect settings).
    public func view(clientKey: String) async throws -> PushSettingsView {
        let client = try await clients.client(clientKey: clientKey)
        return try await repository.settings(clientId: client.id)?.view ?? .empty
    }

    private static func invalid(_ detail: String) -> AppError { AppError.pushSettingsInvalid(detail) }

    private static func text(_ value: String, _ name: String, max: Int = 200) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= max, !trimmed.contains("\u{0}") else {
            throw invalid("\(name) must be 1 to \(max) characters")
        }
        return trimmed
    }

    private static func url(_ value: String?, _ name: String) throws -> String? {
        guard let value else { return nil }
        let trimmed = try text(value, name, max: 300)
        guard let url = URL(string: trimmed), ["https", "http"].contains(url.scheme ?? ""), url.host != nil else {
            throw invalid("\(name) must be an https URL")
        }
        return trimmed.hasSuffix("/") ? String(trimmed.dropLast()) : trimmed
    }

    private struct ServiceAccount: Decodable {
        var client_email: String
        var private_key: String
        var token_uri: String?
    }

    /// Checks the settings and parses the key; the messages never repeat a key. `nil` for `off`.
    package static func validate(_ update: PushSettingsUpdate) throws -> ClientPushSettings? {
        if let unifiedpush = update.unifiedpush {
            guard update.apns == nil, update.fcm == nil, update.off != true else { throw invalid("give exactly one of apns, fcm, unifiedpush and off: true") }
            return try validate(unifiedpush)
        }
        switch (update.apns, update.fcm, update.off ?? false) {
        case (nil, nil, true):
            return nil
        case (let apns?, nil, false):
            guard apns.privateKey.count <= 10_000, (try? P256.Signing.PrivateKey(pemRepresentation: apns.privateKey)) != nil else {
                throw invalid("apns.privateKey must be the .p8 key (PEM, P-256)")
            }
            let view = PushSettingsView(
                provider: .apns, teamId: try text(apns.teamId, "apns.teamId", max: 64), keyId: try text(apns.keyId, "apns.keyId", max: 64),
                topic: try text(apns.topic, "apns.topic"), environment: apns.environment, baseURL: try url(apns.baseURL, "apns.baseURL"),
                hasKey: true
            )
            return ClientPushSettings(provider: .apns, view: view, privateKey: apns.privateKey)
        case (nil, let fcm?, false):
            guard fcm.serviceAccount.count <= 20_000,
                  let account = try? JSONDecoder().decode(ServiceAccount.self, from: Data(fcm.serviceAccount.utf8))
            else { throw invalid("fcm.serviceAccount must be the service account JSON (client_email, private_key, token_uri)") }
            guard (try? _RSA.Signing.PrivateKey(pemRepresentation: account.private_key)) != nil else {
                throw invalid("fcm.serviceAccount's private_key must be an RSA key (PEM)")
            }
            let view = PushSettingsView(
                provider: .fcm, projectId: try text(fcm.projectId, "fcm.projectId", max: 100),
                clientEmail: try text(account.client_email, "fcm.serviceAccount client_email"), baseURL: try url(fcm.baseURL, "fcm.baseURL"),
                tokenURL: try url(fcm.tokenURL ?? account.token_uri ?? FCMClient.defaultTokenURL, "fcm.tokenURL"), hasKey: true
            )
            return ClientPushSettings(provider: .fcm, view: view, privateKey: account.private_key)
        default:
            throw invalid("give exactly one of apns, fcm, unifiedpush and off: true")
        }
    }

    /// UnifiedPush settings: 1 to 20 endpoint prefixes, each an http(s) URL with a host (no user
    /// info, query or fragment), or one ending in `:` for any port. No key.
    private static func validate(_ unifiedpush: UnifiedPushSettingsUpdate) throws -> ClientPushSettings {
        guard (1...20).contains(unifiedpush.allowedEndpoints.count) else { throw invalid("unifiedpush.allowedEndpoints must list 1 to 20 prefixes") }
        let prefixes = try unifiedpush.allowedEndpoints.map { value in
            let prefix = try text(value, "unifiedpush.allowedEndpoints", max: 300)
            guard UnifiedPushClient.Location(prefix: prefix) != nil else {
                throw invalid("unifiedpush.allowedEndpoints: \(prefix) is not an http(s) URL prefix (https://push.example.com/ or http://127.0.0.1:)")
            }
            return prefix
        }
        let view = PushSettingsView(provider: .unifiedpush, allowedEndpoints: prefixes, hasKey: false)
        return ClientPushSettings(provider: .unifiedpush, view: view, privateKey: "")
    }
}
