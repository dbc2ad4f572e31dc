import Foundation

/// The push service a client's devices are woken through.
public enum PushProvider: String, Codable, Sendable, CaseIterable {
    /// Apple Push Notification service (token-based authentication with a .p8 key).
    case apns
    /// Firebase Cloud Messaging HTTP v1 (a service account).
    case fcm
    /// UnifiedPush: the device's token is its push endpoint URL, to which the server POSTs the
    /// message; only endpoints under the client's allowed prefixes are accepted.
    case unifiedpush
}

/// Which APNs host a client's pushes go to.
public enum APNsEnvironment: String, Codable, Sendable, CaseIterable {
    /// api.push.apple.com
    case production
    /// api.sandbox.push.apple.com
    case sandbox
}

/// The body of `PUT /v1/admin/clients/{clientKey}/push`: exactly one of `apns`, `fcm`,
/// `unifiedpush` or `off: true` (remove the settings: the client's devices poll).
public struct PushSettingsUpdate: Codable, Sendable {
    /// APNs settings.
    public var apns: APNsSettingsUpdate?
    /// FCM settings.
    public var fcm: FCMSettingsUpdate?
    /// UnifiedPush settings.
    public var unifiedpush: UnifiedPushSettingsUpdate?
    /// `true` removes the client's push settings and its stored key.
    public var off: Bool?

    /// Settings for one provider, or `off`.
    public init(apns: APNsSettingsUpdate? = nil, fcm: FCMSettingsUpdate? = nil, unifiedpush: UnifiedPushSettingsUpdate? = nil, off: Bool? = nil) {
        self.apns = apns
        self.fcm = fcm
        self.unifiedpush = unifiedpush
        self.off = off
    }

    /// The update that removes a client's push settings.
    public static let off = PushSettingsUpdate(off: true)
}

/// A client's APNs token-authentication settings.
public struct APNsSettingsUpdate: Codable, Sendable {
    /// The Apple developer team ID (the provider token's `iss`).
    public var teamId: String
    /// The ID of the .p8 key (the provider token's `kid`).
    public var keyId: String
    /// The .p8 private key (PEM). Sealed at rest; never shown again.
    public var privateKey: String
    /// The app's bundle ID (`apns-topic`).
    public var topic: String
    /// Production or sandbox host.
    public var environment: APNsEnvironment
    /// Another host than Apple's (`https://host:port`), for tests or a relay.
    public var baseURL: String?

    /// APNs settings.
    public init(teamId: String, keyId: String, privateKey: String, topic: String, environment: APNsEnvironment = .production, baseURL: String? = nil) {
        self.teamId = teamId
        self.keyId = keyId
        self.privateKey = privateKey
        self.topic = topic
        self.environment = environment
        self.baseURL = baseURL
    }
}

/// A client's FCM HTTP v1 settings.
public struct FCMSettingsUpdate: Codable, Sendable {
    /// The Firebase project ID.
    public var projectId: String
    /// The service-account JSON file's text (`client_email`, `private_key`, `token_uri`). Its key is sealed at rest.
    public var serviceAccount: String
    /// Another FCM host than `https://fcm.googleapis.com`, for tests.
    public var baseURL: String?
    /// Another OAuth 2.0 token URL than the service account's `token_uri`, for tests.
    public var tokenURL: String?

    /// FCM settings.
    public init(projectId: String, serviceAccount: String, baseURL: String? = nil, tokenURL: String? = nil) {
        self.projectId = projectId
        self.serviceAccount = serviceAccount
        self.baseURL = baseURL
        self.tokenURL = tokenURL
    }
}

/// A client's UnifiedPush settings: the push servers its devices' endpoints may be on. The server
/// only ever POSTs to an endpoint under one of these prefixes (same scheme, host and port, the
/// path starting with the prefix's path); a prefix ending in `:` (`http://127.0.0.1:`) allows any port.
public struct UnifiedPushSettingsUpdate: Codable, Sendable {
    /// The allowed endpoint URL prefixes, e.g. `https://ntfy.example.com/` (1 to 20).
    public var allowedEndpoints: [String]

    /// UnifiedPush settings.
    public init(allowedEndpoints: [String]) {
        self.allowedEndpoints = allowedEndpoints
    }
}

/// The body of the signed `PUT /v1/devices/push-token`: the device's current push token (empty: no pushes).
public struct PushTokenUpdate: Codable, Sendable, Equatable {
    /// The APNs device token (hex), the FCM registration token, or the UnifiedPush endpoint URL.
    public var token: String
    /// Which provider the token belongs to.
    public var platform: PushProvider

    /// A token for one provider.
    public init(token: String, platform: PushProvider) {
        self.token = token
        self.platform = platform
    }
}

/// A client's push settings as the admin API shows them: never a private key.
public struct PushSettingsView: Codable, Sendable, Equatable {
    /// APNs, FCM or UnifiedPush; absent when the client has no push settings (its devices poll).
    public var provider: PushProvider?
    /// APNs team ID.
    public var teamId: String?
    /// APNs key ID.
    public var keyId: String?
    /// APNs topic (bundle ID).
    public var topic: String?
    /// APNs environment.
    public var environment: APNsEnvironment?
    /// FCM project ID.
    public var projectId: String?
    /// The FCM service account's e-mail.
    public var clientEmail: String?
    /// The configured provider host, when not the default.
    public var baseURL: String?
    /// The configured OAuth 2.0 token URL (FCM).
    public var tokenURL: String?
    /// The allowed endpoint URL prefixes (UnifiedPush).
    public var allowedEndpoints: [String]?
    /// Whether a private key is stored (it is never shown).
    public var hasKey: Bool

    /// A view of stored settings.
    public init(
        provider: PushProvider?, teamId: String? = nil, keyId: String? = nil, topic: String? = nil, environment: APNsEnvironment? = nil,
        projectId: String? = nil, clientEmail: String? = nil, baseURL: String? = nil, tokenURL: String? = nil, allowedEndpoints: [String]? = nil,
        hasKey: Bool
    ) {
        self.provider = provider
        self.teamId = teamId
        self.keyId = keyId
        self.topic = topic
        self.environment = environment
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.baseURL = baseURL
        self.tokenURL = tokenURL
        self.allowedEndpoints = allowedEndpoints
        self.hasKey = hasKey
    }

    /// What the admin API shows for a client without push settings: no provider, no key.
    public static let empty = PushSettingsView(provider: nil, hasKey: false)
}
