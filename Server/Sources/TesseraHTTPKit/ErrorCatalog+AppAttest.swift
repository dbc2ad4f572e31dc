import TesseraCore

extension AppError {
    // MARK: App Attest (7400–7499)

    /// 401, 7401.
    public static func appAttestChallengeUnknown() -> AppError {
        AppError(.appAttestChallengeUnknown, detail: "No App Attest challenge has this value for this device; ask for a new one")
    }
    /// 401, 7402.
    public static func appAttestChallengeUsed() -> AppError {
        AppError(.appAttestChallengeUsed, detail: "This App Attest challenge was used already; ask for a new one")
    }
    /// 401, 7403.
    public static func appAttestChallengeExpired() -> AppError {
        AppError(.appAttestChallengeExpired, detail: "This App Attest challenge expired; ask for a new one")
    }
    /// 404, 7404.
    public static func appAttestDeviceNotAttested() -> AppError {
        AppError(.appAttestDeviceNotAttested, detail: "This device has no attested App Attest key; attest one first")
    }
    /// 401, 7405.
    public static func appAttestClientDataMismatch() -> AppError {
        AppError(.appAttestClientDataMismatch, detail: "clientData must be a JSON object whose challenge is the challenge sent with it")
    }
    /// 403, 7406.
    public static func appAttestOff() -> AppError {
        AppError(.appAttestOff, detail: "App Attest is off for this client; its admin sets the policy to reported or required")
    }
    /// 429, 7423.
    public static func appAttestRateLimited(retryAfter: Int) -> AppError { AppError(.appAttestRateLimited, retryAfter: retryAfter) }
    /// 403, 7422.
    public static func appAttestAssertionRequired() -> AppError {
        AppError(.appAttestAssertionRequired, detail: "This client requires an App Attest assertion with each sign-in approval (appAttestAssertion)")
    }
    /// 403, 7407.
    public static func appAttestRequired() -> AppError {
        AppError(.appAttestRequired, detail: "This client requires an App Attest attestation of the app at enrolment (appAttest)")
    }
    /// 403, 7408.
    public static func nodeAppAttestMissing() -> AppError {
        AppError(.nodeAppAttestMissing, detail: "This node holds no App Attest attestation of the device that it verified itself")
    }
    /// 401, 7409.
    public static func appAttestChallengeNotBound() -> AppError {
        AppError(.appAttestChallengeNotBound, detail: "The App Attest challenge was not issued for this device key")
    }
    /// The problem for an App Attest verification failure: `code` is one of 7410–7421 (the verifier's
    /// refusal, mapped by the caller), `detail` the verifier's sentence.
    public static func appAttestRefused(_ code: ErrorCode, detail: String) -> AppError { AppError(code, detail: detail) }
}
