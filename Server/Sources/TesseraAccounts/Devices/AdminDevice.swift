// The devices domain owns this view: its repository lists a user's devices in it.

import TesseraCore

/// A device as the admin sees it (no keys or secrets).
public struct AdminDevice: Codable, Sendable, Equatable {
    public var deviceId: String
    /// The name given with the first authenticator registration (`deviceInformation`), if any.
    public var name: String?
    public var status: String
    public var os: String
    public var appVersion: String
    public var createdAt: Int64
    public var revokedAt: Int64?
    /// The device's push state: `registered` (it has a push token), `cleared` (the provider refused the token;
    /// the device polls until its app gives a new one) or `none`.
    public var push: String
    /// The push provider its app named (`apns`, `fcm`, `unifiedpush`); nil when it named none.
    public var pushProvider: String?
    /// When its push token was last set or cleared (ms since 1970); nil when not since the device was enrolled.
    public var pushChangedAt: Int64?
    /// Its App Attest state (issue 41): whether it has an attested key, in which environment, since when, and the counter
    /// of its last accepted assertion. The sign-in layer's App Attest service fills it in for the admin's listing.
    public var appAttest: AppAttestDeviceState = .notAttested
}
