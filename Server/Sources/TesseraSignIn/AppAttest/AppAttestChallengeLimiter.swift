import Synchronization

/// The limit on App Attest enrolment challenges per address and hour (issue 41): the route needs no device, so it is
/// limited where it is asked from. Counted in memory per instance, by the hour of the injected clock: the limit keeps
/// one address from filling `app_attest_enrolment_challenges`, and a database write per challenge would cost more than
/// the challenge itself. With several instances an address gets the limit at each; at most ``maxAddresses`` are counted
/// an hour (beyond them an address is not counted, as a flood from that many addresses is not one this limit stops).
package final class AppAttestChallengeLimiter: Sendable {
    /// The most addresses counted in one hour.
    package static let maxAddresses = 100_000
    /// Challenges per address and hour.
    package let perHour: Int
    private let state = Mutex<(hour: Int64, counts: [String: Int])>((0, [:]))

    /// A limiter of `perHour` challenges per address and hour.
    package init(perHour: Int) { self.perHour = perHour }

    /// Counts a challenge for `address` at `now` (milliseconds since 1970): nil when it is within the limit, else the
    /// seconds until the hour ends (the challenge is not counted).
    package func admit(_ address: String, now: Int64) -> Int? {
        let hour = now / 3_600_000, limit = perHour
        return state.withLock { state -> Int? in
            if state.hour != hour { state = (hour, [:]) }
            let count = state.counts[address] ?? 0
            guard count < limit else { return Int(3600 - (now / 1000) % 3600) }
            if state.counts[address] != nil || state.counts.count < Self.maxAddresses { state.counts[address] = count + 1 }
            return nil
        }
    }
}
