import TesseraCore

/// An error from a Tessera call: the server's stable numeric code (the seeds' `rtCode`) and its message.
///
/// Compare ``code`` with the constants of ``ErrorCode`` (`error.code == .otpExpired`).
public struct TesseraError: Error, Sendable, CustomStringConvertible {
    /// The stable numeric code.
    public let code: ErrorCode
    /// A human-readable message.
    public let message: String
    /// The full problem document when the server sent one.
    public let problem: Problem?

    /// Creates an error.
    public init(code: ErrorCode, message: String, problem: Problem? = nil) {
        self.code = code
        self.message = message
        self.problem = problem
    }

    /// `"<code>: <message>"`.
    public var description: String { "\(code.rawValue): \(message)" }
}
