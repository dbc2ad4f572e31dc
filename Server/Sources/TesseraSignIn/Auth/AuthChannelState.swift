import TesseraCore

/// Where a channel stands in the device's steps, as stored in `auth_channels.step`. The allowed
/// moves are listed here and nowhere else; the store's conditional updates are built from them.
///
/// `created` → `selected` (nodes chosen) → `verifying` (the requests went out to the nodes) →
/// `attested` (a quorum answered) → `completed` (user verified, token issued). How a channel ended
/// (cancelled, declined, failed, expired) is its ``AuthOutcome``; the step stays where it stopped.
package enum AuthChannelState: String, Sendable, CaseIterable {
    case created
    case selected
    case verifying
    case attested
    case completed

    /// The steps each state may move to.
    package static let transitions: [AuthChannelState: AuthChannelState] = [
        .created: .selected,
        .selected: .verifying,
        .verifying: .attested,
        .attested: .completed,
    ]

    /// The state this one may move to, if any.
    package var next: AuthChannelState? { Self.transitions[self] }

    /// The state a move to `target` comes from, if `target` can be reached at all.
    package var previous: AuthChannelState? { Self.transitions.first { $0.value == self }?.key }

    /// Checks that the channel may move from this state to `target`.
    package func transition(to target: AuthChannelState) throws -> AuthChannelState {
        guard next == target else {
            throw AppError.authChannelState("\(rawValue) cannot move to \(target.rawValue)")
        }
        return target
    }

    /// Whether the channel has reached `state` (or gone past it).
    package func hasReached(_ state: AuthChannelState) -> Bool {
        guard let mine = Self.allCases.firstIndex(of: self), let theirs = Self.allCases.firstIndex(of: state) else { return false }
        return mine >= theirs
    }

    /// A stored step; an unknown value reads as `completed`, from which nothing moves.
    package init(stored: String) { self = AuthChannelState(rawValue: stored) ?? .completed }
}
