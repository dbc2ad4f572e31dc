/// A stable numeric result code, the `rtCode` of the seed SDKs.
///
/// Every error answer of the Tessera server carries one of these codes in its RFC 9457 problem
/// document (`code` member). Codes are never renumbered; new codes are only ever added.
/// The table with explanations lives in `docs/error-codes.md`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The numeric value sent on the wire.
    public let rawValue: Int

    /// Creates a code from its numeric value (unknown values are kept as they are).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `"<number> <name>"`, for logs.
    public var description: String { "\(rawValue) \(name)" }

    /// The short machine name of the code (the last part of the problem `type` URI).
    public var name: String { Self.names[rawValue] ?? "unknown" }

    /// The problem `type` URI for this code.
    public var typeURI: String { "https://tessera.dev/problems/\(name)" }

    // MARK: Success
    /// The call succeeded.
    public static let success = ErrorCode(rawValue: 0)

    // MARK: Request shape (1000–1099)
    /// The body is not valid JSON.
    public static let malformedJSON = ErrorCode(rawValue: 1001)
    /// The body is larger than the configured limit (default 64 KiB).
    public static let bodyTooLarge = ErrorCode(rawValue: 1002)
    /// A field has the wrong JSON type.
    public static let fieldWrongType = ErrorCode(rawValue: 1003)
    /// A required field is missing or null.
    public static let fieldMissing = ErrorCode(rawValue: 1004)
    /// A field has the right type but a value that is not allowed.
    public static let fieldInvalid = ErrorCode(rawValue: 1005)
    /// The media type of the body is not `application/json`.
    public static let unsupportedMediaType = ErrorCode(rawValue: 1006)
    /// No such route.
    public static let notFound = ErrorCode(rawValue: 1007)
    /// The route exists but not for this method.
    public static let methodNotAllowed = ErrorCode(rawValue: 1008)
    /// The request is malformed in another way (headers, query).
    public static let badRequest = ErrorCode(rawValue: 1009)

    // MARK: Callers (1100–1199)
    /// The `X-Tessera-Client-Key` header is missing.
    public static let clientKeyMissing = ErrorCode(rawValue: 1101)
    /// No client has this client key.
    public static let clientUnknown = ErrorCode(rawValue: 1102)
    /// The client exists but is disabled.
    public static let clientDisabled = ErrorCode(rawValue: 1103)
    /// The bundle identifier is missing or not on the client's allow-list.
    public static let bundleIdNotAllowed = ErrorCode(rawValue: 1104)
    /// The admin token is missing or wrong.
    public static let adminUnauthorized = ErrorCode(rawValue: 1105)
    /// The client secret is missing or wrong.
    public static let clientSecretInvalid = ErrorCode(rawValue: 1106)
    /// An object with this identity already exists.
    public static let conflict = ErrorCode(rawValue: 1107)
    /// The metrics token is missing or wrong (`/metrics` with `metrics.token` set).
    public static let metricsUnauthorized = ErrorCode(rawValue: 1108)
    /// A state change by the admin console without its session's CSRF token (`X-CSRF-Token`), or with another.
    public static let consoleCSRFInvalid = ErrorCode(rawValue: 1121)
    /// A console sign-in or state change the browser says comes from another site (`Origin`, `Sec-Fetch-Site`).
    public static let consoleCrossSite = ErrorCode(rawValue: 1122)

    // MARK: Identity proofing by OTP (2000–2099)
    /// The e-mail address is not valid.
    public static let invalidEmail = ErrorCode(rawValue: 2001)
    /// The phone number is not a valid E.164 number.
    public static let invalidPhoneNumber = ErrorCode(rawValue: 2002)
    /// The send type (channel) is not `email` or `sms`.
    public static let invalidSendType = ErrorCode(rawValue: 2003)
    /// The purpose is not `signup` or `recovery`.
    public static let invalidPurpose = ErrorCode(rawValue: 2004)
    /// A code was sent to this target less than the cooldown ago.
    public static let otpResendCooldown = ErrorCode(rawValue: 2010)
    /// Too many codes were sent to this target in the last hour.
    public static let otpTargetRateLimited = ErrorCode(rawValue: 2011)
    /// Too many codes were requested from this IP address in the last hour.
    public static let otpIPRateLimited = ErrorCode(rawValue: 2012)
    /// Too many codes were requested for this client in the last hour.
    public static let otpClientRateLimited = ErrorCode(rawValue: 2013)
    /// The channel has no delivery configured (for example SMS without a provider).
    public static let otpChannelUnavailable = ErrorCode(rawValue: 2014)
    /// The code does not match (the seed's `onInvalidOTPNumber`). More tries may remain.
    public static let otpInvalid = ErrorCode(rawValue: 2020)
    /// No live code for this target: never sent, expired, or already used.
    public static let otpExpired = ErrorCode(rawValue: 2021)
    /// The code was locked after too many wrong tries.
    public static let otpTooManyAttempts = ErrorCode(rawValue: 2022)

    // MARK: Dispose tokens (2100–2199)
    /// The dispose token is unknown, expired, already used, or bound to something else.
    public static let disposeTokenInvalid = ErrorCode(rawValue: 2101)

    // MARK: Signed device requests (3000–3099)
    /// The request carries no `Signature`, `Signature-Input` or `Content-Digest` header.
    public static let signatureMissing = ErrorCode(rawValue: 3001)
    /// The signature headers cannot be parsed, or do not cover `@method`, `@path` and `content-digest`
    /// with `ecdsa-p256-sha256`.
    public static let signatureMalformed = ErrorCode(rawValue: 3002)
    /// `created` is more than the allowed skew (5 minutes) from the server's clock.
    public static let signatureExpired = ErrorCode(rawValue: 3003)
    /// The nonce was used before by this key.
    public static let nonceReplayed = ErrorCode(rawValue: 3004)
    /// `Content-Digest` does not match the body received.
    public static let contentDigestMismatch = ErrorCode(rawValue: 3005)
    /// The signature does not verify with the device's key.
    public static let signatureInvalid = ErrorCode(rawValue: 3006)
    /// No device has this key id.
    public static let deviceUnknown = ErrorCode(rawValue: 3007)
    /// The device was revoked.
    public static let deviceRevoked = ErrorCode(rawValue: 3008)

    // MARK: Users and sign-up (4000–4099)
    /// Another account of this app has this e-mail address.
    public static let duplicateEmail = ErrorCode(rawValue: 4001)
    /// Another account of this app has this phone number.
    public static let duplicatePhoneNumber = ErrorCode(rawValue: 4002)
    /// The user key is taken.
    public static let userKeyTaken = ErrorCode(rawValue: 4003)
    /// The three agreements must all be accepted.
    public static let agreementsRequired = ErrorCode(rawValue: 4004)
    /// The dispose token was verified for another e-mail address or phone number than the sign-up's.
    public static let disposeTokenTargetMismatch = ErrorCode(rawValue: 4005)

    /// Re-registration: the user key, name and e-mail/phone do not match one account (which part is not said).
    public static let identityNotMatched = ErrorCode(rawValue: 4006)
    /// Too many re-registration identity checks from this address or for this user key in the last hour.
    public static let identityCheckRateLimited = ErrorCode(rawValue: 4007)
    /// Re-registration: the new device must use the account's local-auth type, the one the recovery send returned.
    public static let localAuthTypeMismatch = ErrorCode(rawValue: 4008)

    // MARK: Authentication channels (5000–5099)
    /// No such authentication channel for this device or client.
    public static let authChannelUnknown = ErrorCode(rawValue: 5001)
    /// The channel expired before it was completed (default lifetime 2 min).
    public static let authChannelExpired = ErrorCode(rawValue: 5002)
    /// The call does not fit the channel's state (for example, completing before the nodes attested).
    public static let authChannelState = ErrorCode(rawValue: 5003)
    /// Fewer nodes than the quorum attested in time; the authentication failed closed.
    public static let authQuorumNotReached = ErrorCode(rawValue: 5004)
    /// The device reported that the secondary (local) verification failed.
    public static let authSecondaryFailed = ErrorCode(rawValue: 5005)
    /// The user-verification signature over the challenge does not verify.
    public static let authUserVerificationInvalid = ErrorCode(rawValue: 5006)
    /// The channel was cancelled by the device or the relying party.
    public static let authChannelCancelled = ErrorCode(rawValue: 5007)
    /// The user declined the relying party's request on the device.
    public static let authDeclined = ErrorCode(rawValue: 5008)
    /// The device signature over the challenge does not verify.
    public static let authChallengeSignatureInvalid = ErrorCode(rawValue: 5009)
    /// Relying party: no such user, or the user has no active device.
    public static let authUserUnknown = ErrorCode(rawValue: 5010)
    /// Number matching: the device's approval carried no number or not the one the relying party shows;
    /// the request ended as failed (no second guess).
    public static let authNumberMismatch = ErrorCode(rawValue: 5011)

    // MARK: Verifier nodes (5100–5199)
    /// The node's registry has no such device; it refuses to attest.
    public static let nodeDeviceUnknown = ErrorCode(rawValue: 5101)
    /// The node's registry marks the device revoked; it refuses to attest.
    public static let nodeDeviceRevoked = ErrorCode(rawValue: 5102)
    /// The device signature the node was asked to check does not verify against its registry.
    public static let nodeSignatureInvalid = ErrorCode(rawValue: 5103)
    /// No such node (admin calls).
    public static let nodeUnknown = ErrorCode(rawValue: 5104)
    /// The device keys sent to the node differ from the ones it already holds for that device.
    public static let nodeKeyConflict = ErrorCode(rawValue: 5105)

    // MARK: TOTP verification and tokens (6000–6199)
    /// The TOTP code does not match (±1 step).
    public static let totpInvalid = ErrorCode(rawValue: 6001)
    /// The code's time step was already used for this user.
    public static let totpStepReused = ErrorCode(rawValue: 6002)
    /// Too many failed TOTP verifications; an admin must reset the user.
    public static let totpLocked = ErrorCode(rawValue: 6003)
    /// No such user, or the user has no active device with a TOTP secret.
    public static let totpUserUnknown = ErrorCode(rawValue: 6004)
    /// The bearer token is missing, malformed, expired or not issued by this server.
    public static let tokenInvalid = ErrorCode(rawValue: 6101)

    // MARK: Registration flows (7000–7099)
    /// No registration flow has this id for this client.
    public static let flowUnknown = ErrorCode(rawValue: 7001)
    /// The flow expired (default lifetime 15 minutes); start a new one.
    public static let flowExpired = ErrorCode(rawValue: 7002)
    /// The step does not follow the flow's state (for example finishing before the phone is verified).
    public static let flowStepOutOfOrder = ErrorCode(rawValue: 7003)
    /// The flow was finished already; a flow creates one identity only.
    public static let flowAlreadyUsed = ErrorCode(rawValue: 7004)
    /// The phone number differs from the one the flow verified.
    public static let flowPhoneMismatch = ErrorCode(rawValue: 7005)
    /// Too many registration flows were started from this address in the last hour.
    public static let flowRateLimited = ErrorCode(rawValue: 7006)

    // MARK: Sessions and password log-in (7100–7199)
    /// The session token is missing or unknown.
    public static let sessionInvalid = ErrorCode(rawValue: 7101)
    /// The session expired (absolute lifetime, idle timeout, or no device key within the pending lifetime).
    public static let sessionExpired = ErrorCode(rawValue: 7102)
    /// The session was revoked (log-out, admin, or its device was revoked).
    public static let sessionRevoked = ErrorCode(rawValue: 7103)
    /// The session has no registered device key yet; only the device-key registration and log-out are allowed.
    public static let sessionDeviceRequired = ErrorCode(rawValue: 7104)
    /// No such session for this user.
    public static let sessionUnknown = ErrorCode(rawValue: 7105)
    /// The identifier or the password is wrong (which one is not said).
    public static let passwordInvalid = ErrorCode(rawValue: 7110)
    /// Too many wrong passwords for this identity; locked for a while (`Retry-After`).
    public static let passwordLocked = ErrorCode(rawValue: 7111)
    /// Too many password log-ins from this address in the last hour.
    public static let passwordRateLimited = ErrorCode(rawValue: 7112)

    // MARK: Authenticators and client policy (7200–7299)
    /// The client's policy does not allow this authenticator type.
    public static let authenticatorNotAllowed = ErrorCode(rawValue: 7201)
    /// The PIN breaks the client's PIN rules.
    public static let pinPolicyViolation = ErrorCode(rawValue: 7202)
    /// The password breaks the client's password rules.
    public static let passwordPolicyViolation = ErrorCode(rawValue: 7203)
    /// No such authenticator on this device.
    public static let authenticatorUnknown = ErrorCode(rawValue: 7204)
    /// The authenticator's public key or its proof of possession is invalid.
    public static let authenticatorKeyInvalid = ErrorCode(rawValue: 7205)
    /// The client's policy does not allow the device passcode as fallback.
    public static let passcodeFallbackNotAllowed = ErrorCode(rawValue: 7206)
    /// This device already has an active authenticator of this type; delete it first.
    public static let authenticatorExists = ErrorCode(rawValue: 7207)
    /// The registration's `username` is not the user key of the device's user (the seed's
    /// `NMARegistration.username(_:)`): an authenticator is registered to the device's own user only.
    public static let authenticatorUsernameMismatch = ErrorCode(rawValue: 7208)
    /// The authenticator authentication's challenge is unknown, already used, expired, or another device's.
    public static let authenticatorChallengeInvalid = ErrorCode(rawValue: 7209)
    /// The authenticator's signature over the challenge does not verify with its registered public key.
    public static let authenticatorSignatureInvalid = ErrorCode(rawValue: 7210)
    /// A passkey ceremony's challenge is unknown, used, expired, or bound to another session.
    public static let passkeyChallengeInvalid = ErrorCode(rawValue: 7301)
    /// A passkey response failed a WebAuthn verification step; `detail` names the step.
    public static let passkeyInvalid = ErrorCode(rawValue: 7302)
    /// No active passkey with this credential ID.
    public static let passkeyUnknown = ErrorCode(rawValue: 7303)
    /// The authenticator already holds a passkey of this account (or of another one).
    public static let passkeyExists = ErrorCode(rawValue: 7304)
    /// The passkey's signature counter went back (a possible clone); the passkey is flagged.
    public static let passkeyCounterRegression = ErrorCode(rawValue: 7305)
    /// Passkeys cannot run at this server: WebAuthn needs its issuer on a domain name over https (or `localhost`).
    public static let passkeysUnavailable = ErrorCode(rawValue: 7306)
    /// 8101: the hosted sign-in page's pending authorization is unknown, ended, or its form token is wrong.
    public static let oidcAuthorizationUnknown = ErrorCode(rawValue: 8101)
    /// 8201: no webhook endpoint with this ID.
    public static let webhookEndpointUnknown = ErrorCode(rawValue: 8201)
    /// 8202: a webhook URL that is not allowed (not http(s), credentials in it, or plain http in production).
    public static let webhookURLInvalid = ErrorCode(rawValue: 8202)
    /// 8203: a webhook event type that does not exist.
    public static let webhookEventTypeUnknown = ErrorCode(rawValue: 8203)
    /// 8204: no webhook delivery with this ID (for this endpoint).
    public static let webhookDeliveryUnknown = ErrorCode(rawValue: 8204)
    /// 8102: too many sign-in attempts from this address or for this identifier.
    public static let oidcRateLimited = ErrorCode(rawValue: 8102)

    // MARK: Push (8000–8099)
    /// The push settings are not valid (a key that does not parse, a missing field, both or neither provider).
    public static let pushSettingsInvalid = ErrorCode(rawValue: 8001)
    /// Retired: a client without push settings now answers them as empty (no provider), and
    /// removing absent settings succeeds. Kept so that the number is never given another meaning.
    public static let pushSettingsUnknown = ErrorCode(rawValue: 8002)
    /// A UnifiedPush endpoint that is not an http(s) URL under one of the client's allowed prefixes
    /// (or the client has no UnifiedPush settings): the server never sends to it.
    public static let pushEndpointNotAllowed = ErrorCode(rawValue: 8003)

    // MARK: Server (9000–9099)
    /// An unexpected server error. Always a bug; reported with a request id.
    public static let internalError = ErrorCode(rawValue: 9001)
    /// The database is unavailable; try again.
    public static let storageUnavailable = ErrorCode(rawValue: 9002)

    // MARK: SDK-side (9100–9199), never sent by the server
    /// The server could not be reached or answered something that is not Tessera.
    public static let networkError = ErrorCode(rawValue: 9101)
    /// The server's answer could not be decoded.
    public static let invalidResponse = ErrorCode(rawValue: 9102)
    /// Sign-up or re-registration in the seed's order, without a successful `startSimpleAuth` of that type first.
    public static let localAuthRequired = ErrorCode(rawValue: 9103)
    /// A failure on the device that is neither the server's nor the network's, given to a seed-shaped
    /// `onFailed` that has no other failure callback (the GCCS-shaped `TesseraGuardian` calls): the key
    /// store could not sign (no keys, or the PIN or password did not unlock the user-verification key).
    public static let localFailure = ErrorCode(rawValue: 9104)
    /// The user closed the system's passkey sheet, or no passkey of this app's server was on the device
    /// (`ASAuthorizationError.canceled`, a browser's `NotAllowedError`).
    public static let passkeyCanceled = ErrorCode(rawValue: 9105)

    /// Every known code with its name; the source of the documented table.
    public static let names: [Int: String] = [
        0: "success",
        1001: "malformed-json", 1002: "body-too-large", 1003: "field-wrong-type", 1004: "field-missing",
        1005: "field-invalid", 1006: "unsupported-media-type", 1007: "not-found", 1008: "method-not-allowed",
        1009: "bad-request",
        1101: "client-key-missing", 1102: "client-unknown", 1103: "client-disabled", 1104: "bundle-id-not-allowed",
        1105: "admin-unauthorized", 1106: "client-secret-invalid", 1107: "conflict",
        1108: "metrics-unauthorized",
        1121: "console-csrf-invalid", 1122: "console-cross-site",
        2001: "invalid-email", 2002: "invalid-phone-number", 2003: "invalid-send-type", 2004: "invalid-purpose",
        2010: "otp-resend-cooldown", 2011: "otp-target-rate-limited", 2012: "otp-ip-rate-limited",
        2013: "otp-client-rate-limited", 2014: "otp-channel-unavailable",
        2020: "otp-invalid", 2021: "otp-expired", 2022: "otp-too-many-attempts",
        2101: "dispose-token-invalid",
        3001: "signature-missing", 3002: "signature-malformed", 3003: "signature-expired", 3004: "nonce-replayed",
        3005: "content-digest-mismatch", 3006: "signature-invalid", 3007: "device-unknown", 3008: "device-revoked",
        4001: "duplicate-email", 4002: "duplicate-phone-number", 4003: "user-key-taken", 4004: "agreements-required",
        4005: "dispose-token-target-mismatch", 4006: "identity-not-matched", 4007: "identity-check-rate-limited",
        4008: "local-auth-type-mismatch",
        5001: "auth-channel-unknown", 5002: "auth-channel-expired", 5003: "auth-channel-state",
        5004: "auth-quorum-not-reached", 5005: "auth-secondary-failed", 5006: "auth-user-verification-invalid",
        5007: "auth-channel-cancelled", 5008: "auth-declined", 5009: "auth-challenge-signature-invalid",
        5010: "auth-user-unknown", 5011: "auth-number-mismatch",
        5101: "node-device-unknown", 5102: "node-device-revoked", 5103: "node-signature-invalid", 5104: "node-unknown",
        5105: "node-key-conflict",
        6001: "totp-invalid", 6002: "totp-step-reused", 6003: "totp-locked", 6004: "totp-user-unknown",
        6101: "token-invalid",
        7001: "flow-unknown", 7002: "flow-expired", 7003: "flow-step-out-of-order", 7004: "flow-already-used",
        7005: "flow-phone-mismatch", 7006: "flow-rate-limited",
        7101: "session-invalid", 7102: "session-expired", 7103: "session-revoked", 7104: "session-device-required",
        7105: "session-unknown", 7110: "password-invalid", 7111: "password-locked", 7112: "password-rate-limited",
        7201: "authenticator-not-allowed", 7202: "pin-policy-violation", 7203: "password-policy-violation",
        7204: "authenticator-unknown", 7205: "authenticator-key-invalid", 7206: "passcode-fallback-not-allowed",
        7207: "authenticator-exists", 7208: "authenticator-username-mismatch", 7209: "authenticator-challenge-invalid",
        7210: "authenticator-signature-invalid",
        7301: "passkey-challenge-invalid", 7302: "passkey-invalid", 7303: "passkey-unknown", 7304: "passkey-exists",
        7305: "passkey-counter-regression",
        7306: "passkeys-unavailable",
        7401: "app-attest-challenge-unknown", 7402: "app-attest-challenge-used", 7403: "app-attest-challenge-expired",
        7404: "app-attest-device-not-attested", 7405: "app-attest-client-data-mismatch", 7406: "app-attest-off",
        7407: "app-attest-required", 7408: "node-app-attest-missing", 7409: "app-attest-challenge-not-bound", 7410: "app-attest-malformed",
        7411: "app-attest-unsupported-format", 7412: "app-attest-wrong-chain", 7413: "app-attest-certificate-expired",
        7414: "app-attest-nonce-mismatch", 7415: "app-attest-key-id-mismatch", 7416: "app-attest-rp-id-mismatch",
        7417: "app-attest-counter-not-zero", 7418: "app-attest-aaguid-mismatch", 7419: "app-attest-credential-id-mismatch",
        7420: "app-attest-bad-signature", 7421: "app-attest-counter-not-grown",
        7422: "app-attest-assertion-required", 7423: "app-attest-rate-limited",
        8001: "push-settings-invalid", 8002: "push-settings-unknown", 8003: "push-endpoint-not-allowed",
        8101: "oidc-authorization-unknown", 8102: "oidc-rate-limited",
        8201: "webhook-endpoint-unknown", 8202: "webhook-url-invalid", 8203: "webhook-event-type-unknown",
        8204: "webhook-delivery-unknown",
        9001: "internal-error", 9002: "storage-unavailable",
        9101: "network-error", 9102: "invalid-response", 9103: "local-auth-required",
        9104: "local-failure", 9105: "passkey-canceled",
    ]
}
