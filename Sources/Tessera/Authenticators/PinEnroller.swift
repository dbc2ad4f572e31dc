import TesseraCore

/// What a ``PinEnroller`` is asked for (the seed's `NMAPinEnrollmentContext`).
public struct PinEnrollmentContext: Sendable, Equatable {
    /// The user being registered.
    public var username: String
    /// The client's PIN rules; the SDK checks the answer against them before sending it.
    public var policy: PINRules
    /// Why the previous answer was refused, nil on the first ask.
    public var lastRecoverableError: RecoverableEnrollmentError?

    /// Creates a context.
    public init(username: String, policy: PINRules, lastRecoverableError: RecoverableEnrollmentError? = nil) {
        self.username = username
        self.policy = policy
        self.lastRecoverableError = lastRecoverableError
    }
}

/// Asks the user for a new PIN (the seed's `NMAPinEnroller`). An answer breaking ``PinEnrollmentContext/policy``
/// is refused on the device and the enroller asked again with ``PinEnrollmentContext/lastRecoverableError``,
/// up to ``Registration/maxEnrollmentAttempts`` answers in all.
public protocol PinEnroller: Sendable {
    /// The PIN the user chose; throwing (for instance `CancellationError`) cancels the registration.
    func enrollPin(context: PinEnrollmentContext) async throws -> String
}
