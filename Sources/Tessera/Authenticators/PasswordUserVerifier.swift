import TesseraCore

/// What a ``PasswordUserVerifier`` is asked for (the seed family's `NMAPasswordUserVerificationContext`).
public struct PasswordUserVerificationContext: Sendable, Equatable {
    /// The user who authenticates.
    public var username: String
    /// Why the previous password was refused (wrong password), nil on the first ask.
    public var lastRecoverableError: RecoverableEnrollmentError?

    /// Creates a context.
    public init(username: String, lastRecoverableError: RecoverableEnrollmentError? = nil) {
        self.username = username
        self.lastRecoverableError = lastRecoverableError
    }
}

/// Asks the user for the password of a registered password authenticator when it authenticates (the
/// seed family's `NMAPasswordUserVerifier`). A wrong password is asked again, up to
/// ``Authentication/maxVerificationAttempts`` answers in all.
public protocol PasswordUserVerifier: Sendable {
    /// The password the user entered; throwing (for instance `CancellationError`) cancels the authentication.
    func verifyPassword(context: PasswordUserVerificationContext) async throws -> String
}
