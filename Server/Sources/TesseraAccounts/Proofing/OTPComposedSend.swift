/// One OTP send of a batch that runs as one statement (PostgreSQL, issue 40): the cooldown gate, the target's hourly
/// count, the supersession and insertion of the challenge, and the other owners' writes (the message in the outbox,
/// the audit event), which take place only for the sends that the gate and the count let through. What a send's
/// transaction of six statements did, for many sends in one round trip.
package struct OTPComposedSend: Sendable {
    package var gateKey: String
    package var challengeId: String
    package var binding: OTPBinding
    package var codeHash: String
    package var now: Int64
    package var expiresAt: Int64

    package init(gateKey: String, challengeId: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64) {
        self.gateKey = gateKey
        self.challengeId = challengeId
        self.binding = binding
        self.codeHash = codeHash
        self.now = now
        self.expiresAt = expiresAt
    }

    /// What the statement decided for a send.
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
