import TesseraCore

/// What a ``PinUserVerifier`` is asked for (the seed family's `NMAPinUserVerificationContext`).
public struct PinUserVerificationContext: Sendable, Equatable {
    /// The user who authenticates.
    public var username: String
    /// Why the previous PIN was refused (wrong PIN), nil on the first ask.
    public var lastRecoverableError: RecoverableEnrollmentError?

    /// Creates a context.
    public init(username: String, lastRecoverableError: RecoverableEnrollmentError? = nil) {
        self.username = username
        self.lastRecoverableError = lastRecoverableError
    }
}

/// Asks the user for the PIN of a registered PIN authenticator when it authenticates (the seed family's
/// `NMAPinUserVerifier`). A wrong PIN is asked again with ``PinUserVerificationContext/lastRecoverableError``,
/// up to ``Authentication/maxVerificationAttempts`` answers in all.
public protocol PinUserVerifier: Sendable {
    /// The PIN the user entered; throwing (for instance `CancellationError`) cancels the authentication.
    func verifyPin(context: PinUserVerificationContext) async throws -> String
}
