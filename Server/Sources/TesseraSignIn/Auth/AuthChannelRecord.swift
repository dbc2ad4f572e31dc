import Foundation
import TesseraCore

/// An authentication channel as stored.
package struct AuthChannelRecord: Sendable {
    package var id: String
    package var clientId: String
    package var userId: String
    package var deviceId: String?
    package var initiator: AuthInitiator
    package var challenge: String
    package var connectIp: String
    package var message: String
    package var outcome: AuthOutcome
    /// How far the device's steps went (where it stopped, once the channel ended).
    package var state: AuthChannelState
    package var code: Int?
    package var nodes: [String]
    /// How many of ``nodes`` vouched that they verified the device's App Attest attestation themselves.
    package var appAttestNodes: Int = 0
    package var tokenSealed: String?
    package var createdAt: Int64
    /// When the nodes were selected (also the time replayed for the requests going out).
    package var verifyStartedAt: Int64?
    package var attestedAt: Int64?
    package var endedAt: Int64?
    package var expiresAt: Int64
    /// Number matching, when the relying party asked for it.
    package var numberMatch: NumberMatch? = nil

    /// The events so far, rebuilt from the row (for late listeners and other instances).
    package var events: [AuthEvent] {
        var list = [AuthEvent(status: .createChannel, at: createdAt)]
        if let verifyStartedAt {
            if state.hasReached(.selected) { list.append(AuthEvent(status: .selectNodes, at: verifyStartedAt)) }
            if state.hasReached(.verifying) { list.append(AuthEvent(status: .startVerificationOfNodes, at: verifyStartedAt)) }
        }
        if let attestedAt { list.append(AuthEvent(status: .completeVerificationOfNodes, at: attestedAt)) }
        if outcome.isFinal { list.append(AuthEvent(outcome: outcome, code: code, at: endedAt ?? expiresAt)) }
        return list
    }

    /// The channel as it stands at `now`: one still open past its lifetime is expired, whether or not
    /// the expiry service has written that yet.
    package func settled(now: Int64) -> AuthChannelRecord {
        guard !outcome.isFinal, now >= expiresAt else { return self }
        var lapsed = self
        lapsed.outcome = .expired
        lapsed.code = ErrorCode.authChannelExpired.rawValue
        lapsed.endedAt = expiresAt
        return lapsed
    }

    /// The error that describes why this channel cannot take the next step, if any.
    package func refusal(now: Int64) -> AppError? {
        switch settled(now: now).outcome {
        case .cancelled: return AppError.authChannelCancelled()
        case .declined: return AppError.authDeclined()
        case .expired: return AppError.authChannelExpired()
        case .completed, .failed: return AppError.authChannelState("The authentication has already ended (\(outcome.rawValue))")
        case .pending, .inProgress: return nil
        }
    }
}
