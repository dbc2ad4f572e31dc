import TesseraStorage

/// A whole OTP send as one statement (PostgreSQL, issue 40): the cooldown gate, the target's hourly count, the
/// supersession and insertion of the challenge, and the writes of the other owners (the message in the outbox, the
/// audit event), which take place only when the gate and the count let the send through. What a send's transaction
/// of six statements did, in one round trip.
package struct OTPComposedSend: Sendable {
    package var gateKey: String
    package var cooldown: Duration
    package var challengeId: String
    package var binding: OTPBinding
    package var codeHash: String
    package var now: Int64
    package var expiresAt: Int64
    /// The target's hourly count (``RateCounters/limitedIncrement(_:limit:now:window:)``).
    package var targetCount: LimitedIncrement
    /// The other owners' writes, each run when the send went through.
    package var writes: [ComposedWrite]

    package init(
        gateKey: String, cooldown: Duration, challengeId: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64,
        targetCount: LimitedIncrement,
        writes: [ComposedWrite]
    ) {
        self.gateKey = gateKey
        self.cooldown = cooldown
        self.challengeId = challengeId
        self.binding = binding
        self.codeHash = codeHash
        self.now = now
        self.expiresAt = expiresAt
        self.targetCount = targetCount
        self.writes = writes
    }

    /// What the statement decided.
    package enum Outcome: Sendable, Equatable {
        /// Everything written.
        case opened
        /// Nothing written (the gate refused): the next send is allowed at this time.
        case cooldown(nextAllowedAt: Int64)
        /// The target's hourly limit is reached: nothing written, except the gate's new cooldown when a concurrent
        /// send of the same target took the last count between the statement's read and its count.
        case targetLimited
    }
}
