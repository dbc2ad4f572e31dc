/// A client's App Attest settings (issue 41): `GET`/`PUT /v1/admin/clients/{clientKey}/app-attest`. The policy says
/// what the server does with its devices' attestations; the team ID, bundle ID and environment name the app whose
/// attestations it accepts (the App ID `<teamId>.<bundleId>` is the `rpIdHash` Apple signs, the environment the
/// AAGUID).
public struct AppAttestSettings: Codable, Sendable, Equatable {
    /// `off` (the default: the App Attest routes answer 403, code 7406), `reported` (devices attest and their state is
    /// stored and shown; an enrolment may carry one) or `required` (the same, and an enrolment or re-registration
    /// without a valid attestation is refused, 7407; the verifier nodes attest the device's logins only with an
    /// attestation they verified themselves, 7408).
    public var policy: String
    /// The ten-character Apple Developer team ID (`A–Z`, `0–9`); empty: none set. Required unless `policy` is `off`.
    public var teamId: String
    /// The app's bundle identifier (`A–Z a–z 0–9 - .`, at most 155 characters); empty: none set. Required unless
    /// `policy` is `off`.
    public var bundleId: String
    /// `development` or `production` (the default): the App Attest environment of the app's entitlement.
    public var environment: String
    /// Whether each sign-in approval of a device (`POST /v1/auth/channels/{channelId}/start`) must carry an assertion
    /// of its attested App Attest key over the channel's challenge (default false: one sent is verified all the same).
    /// Only with `policy` `reported` or `required`.
    public var assertSignIn: Bool

    /// Creates the settings.
    public init(
        policy: String = "off", teamId: String = "", bundleId: String = "", environment: String = "production", assertSignIn: Bool = false
    ) {
        self.policy = policy
        self.teamId = teamId
        self.bundleId = bundleId
        self.environment = environment
        self.assertSignIn = assertSignIn
    }

    /// The policies, in the order of their strength.
    public static let policies = ["off", "reported", "required"]
    /// The environments.
    public static let environments = ["development", "production"]

    /// The members, as the JSON names them.
    enum CodingKeys: String, CodingKey {
        case policy, teamId, bundleId, environment, assertSignIn
    }

    /// Members left out take their defaults; an explicit `null` is refused (as the OpenAPI schema says).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        policy = try c.member(.policy, default: "off")
        teamId = try c.member(.teamId, default: "")
        bundleId = try c.member(.bundleId, default: "")
        environment = try c.member(.environment, default: "production")
        assertSignIn = try c.member(.assertSignIn, default: false)
    }
}
