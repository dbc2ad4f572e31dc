/// Why the previous answer of an enroller was refused, so that it can ask the user again (the seed's
/// `NMARecoverableError`).
public struct RecoverableEnrollmentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which rule was broken, in words.
    public var message: String
    /// How many more answers will be accepted before the operation fails.
    public var remainingAttempts: Int

    /// Creates an error.
    public init(message: String, remainingAttempts: Int) {
        self.message = message
        self.remainingAttempts = remainingAttempts
    }

    /// The message.
    public var description: String { message }
}
