// MARK: App Attest (7400–7499): a device's App Attest key, its challenges and its assertions (issue 41)

extension ErrorCode {
    /// 7401: no App Attest challenge has this value for this device.
    public static let appAttestChallengeUnknown = ErrorCode(rawValue: 7401)
    /// 7402: the App Attest challenge was used already; each one is good for one attestation or assertion.
    public static let appAttestChallengeUsed = ErrorCode(rawValue: 7402)
    /// 7403: the App Attest challenge expired before it was used.
    public static let appAttestChallengeExpired = ErrorCode(rawValue: 7403)
    /// 7404: the device has no attested App Attest key: attest one before sending assertions.
    public static let appAttestDeviceNotAttested = ErrorCode(rawValue: 7404)
    /// 7405: the assertion's client data does not carry the challenge it is sent with.
    public static let appAttestClientDataMismatch = ErrorCode(rawValue: 7405)
    /// 7406: App Attest is off for this client (its admin sets `policy` to `reported` or `required` to use it).
    public static let appAttestOff = ErrorCode(rawValue: 7406)
    /// 7407: the client requires an App Attest attestation at enrolment and re-registration, and the request has
    /// none (`appAttest`: a challenge of `POST /v1/app-attest/challenge` for the device key, attested by the app).
    public static let appAttestRequired = ErrorCode(rawValue: 7407)
    /// 7408: a verifier node holds no App Attest attestation of the device that it verified itself, and the
    /// device's client requires one: the node does not attest the device's login.
    public static let nodeAppAttestMissing = ErrorCode(rawValue: 7408)
    /// 7409: the App Attest challenge is not bound to the device key it is used for (its last 16 bytes are not
    /// the first 16 of SHA-256 of the key).
    public static let appAttestChallengeNotBound = ErrorCode(rawValue: 7409)
    /// 7410: the attestation object or assertion is not what Apple defines (CBOR, `authData`, `x5c`, …).
    public static let appAttestMalformed = ErrorCode(rawValue: 7410)
    /// 7411: the attestation's `fmt` is not `apple-appattest`.
    public static let appAttestUnsupportedFormat = ErrorCode(rawValue: 7411)
    /// 7412: the attestation's certificate chain does not lead to a trusted App Attest root.
    public static let appAttestWrongChain = ErrorCode(rawValue: 7412)
    /// 7413: a certificate of the attestation is expired or not yet valid.
    public static let appAttestCertificateExpired = ErrorCode(rawValue: 7413)
    /// 7414: the credential certificate's nonce is not SHA-256(authData ‖ SHA-256(challenge)).
    public static let appAttestNonceMismatch = ErrorCode(rawValue: 7414)
    /// 7415: the key ID is not SHA-256 of the credential certificate's public key.
    public static let appAttestKeyIdMismatch = ErrorCode(rawValue: 7415)
    /// 7416: `rpIdHash` is not SHA-256 of the client's App ID (`<teamID>.<bundleID>`).
    public static let appAttestRpIdMismatch = ErrorCode(rawValue: 7416)
    /// 7417: the attestation's counter is not 0.
    public static let appAttestCounterNotZero = ErrorCode(rawValue: 7417)
    /// 7418: the attestation's AAGUID is not the one of the client's App Attest environment.
    public static let appAttestAaguidMismatch = ErrorCode(rawValue: 7418)
    /// 7419: the attestation's credential ID is not the key ID.
    public static let appAttestCredentialIdMismatch = ErrorCode(rawValue: 7419)
    /// 7420: the assertion's signature does not verify with the device's attested key.
    public static let appAttestBadSignature = ErrorCode(rawValue: 7420)
    /// 7421: the assertion's counter is not greater than the stored one: a replayed assertion (or a cloned key).
    public static let appAttestCounterNotGrown = ErrorCode(rawValue: 7421)
    /// 7422: the client requires an App Attest assertion with each sign-in approval, and the approval has none.
    public static let appAttestAssertionRequired = ErrorCode(rawValue: 7422)
    /// 7423: too many enrolment challenges were asked from this address this hour (`Retry-After` says when to retry).
    public static let appAttestRateLimited = ErrorCode(rawValue: 7423)
}
