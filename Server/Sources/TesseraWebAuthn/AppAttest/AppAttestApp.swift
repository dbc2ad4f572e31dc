import Crypto

/// The app a client attests, from the client's settings: Apple team ID, bundle ID and environment.
public struct AppAttestApp: Sendable, Hashable {
    /// The ten-character Apple Developer team ID.
    public var teamID: String
    /// The app's bundle identifier.
    public var bundleID: String
    /// Which AAGUID its attestations must carry.
    public var environment: AppAttestEnvironment

    /// An app.
    public init(teamID: String, bundleID: String, environment: AppAttestEnvironment) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The App ID, `<teamID>.<bundleID>`.
    public var appID: String { "\(teamID).\(bundleID)" }

    /// SHA-256 of the App ID: the `rpIdHash` of the app's attestations and assertions.
    public var rpIdHash: [UInt8] { Self.rpIdHash(appID: appID) }

    /// SHA-256 of the App ID `appID` (`<teamID>.<bundleID>`).
    public static func rpIdHash(appID: String) -> [UInt8] { Array(SHA256.hash(data: Array(appID.utf8))) }
}
