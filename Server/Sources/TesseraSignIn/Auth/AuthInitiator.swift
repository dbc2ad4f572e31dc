import TesseraCore

/// Who opened an authentication channel, as stored in `auth_channels.initiator`.
package enum AuthInitiator: String, Sendable {
    /// The signing device itself (`POST /v1/auth/channels`).
    case device
    /// A relying party's backend (`POST /v1/rp/auth-requests`), for the user's device to pick up.
    case relyingParty = "rp"

    /// The outcome a new channel starts with: a relying party's request waits for the device.
    package var initialOutcome: AuthOutcome { self == .relyingParty ? .pending : .inProgress }
}
