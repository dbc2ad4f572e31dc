/// Limits of identity proofing by OTP. Every limit has a safe default; all are configurable
/// (`otp.*` keys, see the README's configuration reference).
public struct OTPSettings: Sendable {
    /// Digits in a code.
    public var codeLength = 6
    /// How long a code can be verified.
    public var codeLifetime: Duration = .seconds(300)
    /// Wrong tries before a code is locked.
    public var maxAttempts = 5
    /// Minimum time between two sends to the same target.
    public var resendCooldown: Duration = .seconds(30)
    /// Sends per target per hour.
    public var perTargetHourlyLimit = 10
    /// Sends per client IP address per hour.
    public var perIPHourlyLimit = 100
    /// Sends per client (app) per hour.
    public var perClientHourlyLimit = 10_000
    /// How long a dispose token can be used.
    public var disposeTokenLifetime: Duration = .seconds(600)

    public init() {}
}
