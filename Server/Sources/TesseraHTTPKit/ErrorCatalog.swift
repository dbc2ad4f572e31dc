import Hummingbird
import NIOCore
import NIOHTTP1
import TesseraCore

/// The error table: every code the server answers with, its one HTTP status and its one title.
///
/// A title is short, stable and general; what a call site knows about the case goes into `detail`.
/// Errors are built by the factories below (one per code, like jwt-kit's `JWTError`), never by
/// spelling out a status and a title; `ErrorCatalogTests` checks both.
public enum ErrorCatalog {
    /// One line of the table.
    public struct Entry: Sendable {
        public let code: ErrorCode
        public let status: HTTPResponse.Status
        public let title: String
    }

    /// 423 Locked (WebDAV), which HTTPTypes has no name for.
    static let locked = HTTPResponse.Status(code: 423, reasonPhrase: "Locked")

    /// Every code the server answers with (not 0, the retired 8002 or the SDK-side 91xx), in code order.
    public static let entries: [Entry] = [
        // Request shape
        Entry(code: .malformedJSON, status: .badRequest, title: "The body is not valid JSON"),
        Entry(code: .bodyTooLarge, status: .contentTooLarge, title: "Request body too large"),
        Entry(code: .fieldWrongType, status: .badRequest, title: "A field has the wrong type"),
        Entry(code: .fieldMissing, status: .badRequest, title: "A required field is missing"),
        Entry(code: .fieldInvalid, status: .badRequest, title: "A field has a value that is not allowed"),
        Entry(code: .unsupportedMediaType, status: .unsupportedMediaType, title: "Unsupported media type"),
        Entry(code: .notFound, status: .notFound, title: "Not found"),
        Entry(code: .methodNotAllowed, status: .methodNotAllowed, title: "Method not allowed"),
        Entry(code: .badRequest, status: .badRequest, title: "Bad request"),
        // Callers
        Entry(code: .clientKeyMissing, status: .unauthorized, title: "Client key missing"),
        Entry(code: .clientUnknown, status: .unauthorized, title: "Unknown client"),
        Entry(code: .clientDisabled, status: .forbidden, title: "Client disabled"),
        Entry(code: .bundleIdNotAllowed, status: .forbidden, title: "Bundle identifier not allowed"),
        Entry(code: .adminUnauthorized, status: .unauthorized, title: "Admin credentials missing or wrong"),
        Entry(code: .clientSecretInvalid, status: .unauthorized, title: "Client credentials missing or wrong"),
        Entry(code: .conflict, status: .conflict, title: "Conflict"),
        Entry(code: .metricsUnauthorized, status: .unauthorized, title: "Metrics token missing or wrong"),
        Entry(code: .consoleCSRFInvalid, status: .forbidden, title: "CSRF token missing or wrong"),
        Entry(code: .consoleCrossSite, status: .forbidden, title: "Cross-site request refused"),
        // Identity proofing by OTP
        Entry(code: .invalidEmail, status: .badRequest, title: "Invalid e-mail address"),
        Entry(code: .invalidPhoneNumber, status: .badRequest, title: "Invalid phone number"),
        Entry(code: .invalidSendType, status: .badRequest, title: "sendType must be email or sms"),
        Entry(code: .invalidPurpose, status: .badRequest, title: "purpose must be signup or recovery"),
        Entry(code: .otpResendCooldown, status: .tooManyRequests, title: "Wait before asking for another code"),
        Entry(code: .otpTargetRateLimited, status: .tooManyRequests, title: "Too many codes sent to this target"),
        Entry(code: .otpIPRateLimited, status: .tooManyRequests, title: "Too many codes requested from this address"),
        Entry(code: .otpClientRateLimited, status: .tooManyRequests, title: "Too many codes requested for this app"),
        Entry(code: .otpChannelUnavailable, status: .serviceUnavailable, title: "No delivery configured for this channel"),
        Entry(code: .otpInvalid, status: .badRequest, title: "The code does not match"),
        Entry(code: .otpExpired, status: .gone, title: "No valid code: it expired, was used, or was never sent; ask for a new code"),
        Entry(code: .otpTooManyAttempts, status: .forbidden, title: "Too many wrong tries; ask for a new code"),
        Entry(code: .disposeTokenInvalid, status: .forbidden, title: "Dispose token invalid, expired or already used"),
        // Signed device requests
        Entry(code: .signatureMissing, status: .unauthorized, title: "Signed request required"),
        Entry(code: .signatureMalformed, status: .badRequest, title: "Malformed signature"),
        Entry(code: .signatureExpired, status: .unauthorized, title: "Signature too old or from the future"),
        Entry(code: .nonceReplayed, status: .unauthorized, title: "Nonce already used"),
        Entry(code: .contentDigestMismatch, status: .badRequest, title: "Content-Digest does not match the body"),
        Entry(code: .signatureInvalid, status: .unauthorized, title: "Signature does not verify"),
        Entry(code: .deviceUnknown, status: .unauthorized, title: "Unknown device"),
        Entry(code: .deviceRevoked, status: .forbidden, title: "Device revoked"),
        // Users and sign-up
        Entry(code: .duplicateEmail, status: .conflict, title: "This e-mail address already has an account"),
        Entry(code: .duplicatePhoneNumber, status: .conflict, title: "This phone number already has an account"),
        Entry(code: .userKeyTaken, status: .conflict, title: "This user key is taken"),
        Entry(code: .agreementsRequired, status: .badRequest, title: "All three agreements must be accepted"),
        Entry(code: .disposeTokenTargetMismatch, status: .forbidden, title: "The dispose token was verified for another address or number"),
        Entry(code: .identityNotMatched, status: .notFound, title: "No account matches this user key, name and address"),
        Entry(code: .identityCheckRateLimited, status: .tooManyRequests, title: "Too many identity checks; try again later"),
        Entry(code: .localAuthTypeMismatch, status: .conflict, title: "Use the account's local authentication"),
        // Authentication channels
        Entry(code: .authChannelUnknown, status: .notFound, title: "No such authentication channel"),
        Entry(code: .authChannelExpired, status: .gone, title: "The authentication channel expired"),
        Entry(code: .authChannelState, status: .conflict, title: "The channel is not at that step"),
        Entry(code: .authQuorumNotReached, status: .serviceUnavailable, title: "Not enough verifier nodes attested"),
        Entry(code: .authSecondaryFailed, status: .unauthorized, title: "Secondary verification failed"),
        Entry(code: .authUserVerificationInvalid, status: .unauthorized, title: "The user-verification signature does not verify"),
        Entry(code: .authChannelCancelled, status: .conflict, title: "The authentication was cancelled"),
        Entry(code: .authDeclined, status: .conflict, title: "The user declined the authentication"),
        Entry(code: .authChallengeSignatureInvalid, status: .unauthorized, title: "The challenge signature does not verify"),
        Entry(code: .authUserUnknown, status: .notFound, title: "No such user, or the user has no active device"),
        Entry(code: .authNumberMismatch, status: .forbidden, title: "The number does not match"),
        // Verifier nodes
        Entry(code: .nodeDeviceUnknown, status: .notFound, title: "This node does not know the device"),
        Entry(code: .nodeDeviceRevoked, status: .forbidden, title: "The device is revoked in this node's registry"),
        Entry(code: .nodeSignatureInvalid, status: .unauthorized, title: "The device signature does not verify against this node's registry"),
        Entry(code: .nodeUnknown, status: .notFound, title: "No such node"),
        Entry(code: .nodeKeyConflict, status: .conflict, title: "This node holds other keys for that device"),
        // TOTP verification and tokens
        Entry(code: .totpInvalid, status: .badRequest, title: "The code does not match"),
        Entry(code: .totpStepReused, status: .badRequest, title: "This code was already used"),
        Entry(code: .totpLocked, status: locked, title: "Too many failed codes"),
        Entry(code: .totpUserUnknown, status: .notFound, title: "No such user, or no active device"),
        Entry(code: .tokenInvalid, status: .unauthorized, title: "Invalid token"),
        // Registration flows
        Entry(code: .flowUnknown, status: .notFound, title: "No such registration flow"),
        Entry(code: .flowExpired, status: .gone, title: "The registration flow expired; start a new one"),
        Entry(code: .flowStepOutOfOrder, status: .conflict, title: "Step out of order"),
        Entry(code: .flowAlreadyUsed, status: .conflict, title: "The registration flow was finished already"),
        Entry(code: .flowPhoneMismatch, status: .conflict, title: "The phone number differs from the verified one"),
        Entry(code: .flowRateLimited, status: .tooManyRequests, title: "Too many registration flows from this address"),
        // Sessions and password log-in
        Entry(code: .sessionInvalid, status: .unauthorized, title: "Session missing or unknown"),
        Entry(code: .sessionExpired, status: .unauthorized, title: "Session expired"),
        Entry(code: .sessionRevoked, status: .unauthorized, title: "Session revoked"),
        Entry(code: .sessionDeviceRequired, status: .forbidden, title: "Register the device key first"),
        Entry(code: .sessionUnknown, status: .notFound, title: "No such live session"),
        Entry(code: .passwordInvalid, status: .unauthorized, title: "Wrong identifier or password"),
        Entry(code: .passwordLocked, status: .tooManyRequests, title: "Too many wrong passwords; try again later"),
        Entry(code: .passwordRateLimited, status: .tooManyRequests, title: "Too many log-ins from this address"),
        // Authenticators and client policy
        Entry(code: .authenticatorNotAllowed, status: .forbidden, title: "Authenticator type not allowed"),
        Entry(code: .pinPolicyViolation, status: .unprocessableContent, title: "The PIN breaks this app's rules"),
        Entry(code: .passwordPolicyViolation, status: .unprocessableContent, title: "The password breaks this app's rules"),
        Entry(code: .authenticatorUnknown, status: .notFound, title: "No such authenticator"),
        Entry(code: .authenticatorKeyInvalid, status: .badRequest, title: "Invalid authenticator key"),
        Entry(code: .passcodeFallbackNotAllowed, status: .forbidden, title: "This app does not allow the device passcode as fallback"),
        Entry(code: .authenticatorExists, status: .conflict, title: "An authenticator of this type exists already; delete it first"),
        Entry(code: .authenticatorUsernameMismatch, status: .forbidden, title: "The username is not this device's user"),
        Entry(code: .authenticatorChallengeInvalid, status: .unauthorized, title: "Unknown, used or expired challenge"),
        Entry(code: .authenticatorSignatureInvalid, status: .unauthorized, title: "The authenticator's signature does not verify"),
        // Passkeys
        Entry(code: .passkeyChallengeInvalid, status: .unauthorized, title: "Unknown, used or expired passkey challenge"),
        Entry(code: .passkeyInvalid, status: .unauthorized, title: "The passkey response does not verify"),
        Entry(code: .passkeyUnknown, status: .notFound, title: "No such passkey"),
        Entry(code: .passkeyExists, status: .conflict, title: "This passkey is registered already"),
        Entry(code: .passkeyCounterRegression, status: .unauthorized, title: "The passkey's signature counter went back"),
        Entry(code: .passkeysUnavailable, status: .conflict, title: "Passkeys are not available at this server"),
        // App Attest
        Entry(code: .appAttestChallengeUnknown, status: .unauthorized, title: "Unknown App Attest challenge"),
        Entry(code: .appAttestChallengeUsed, status: .unauthorized, title: "The App Attest challenge was used already"),
        Entry(code: .appAttestChallengeExpired, status: .unauthorized, title: "The App Attest challenge expired"),
        Entry(code: .appAttestDeviceNotAttested, status: .notFound, title: "The device has no attested App Attest key"),
        Entry(code: .appAttestClientDataMismatch, status: .unauthorized, title: "The client data does not carry the challenge"),
        Entry(code: .appAttestOff, status: .forbidden, title: "App Attest is off for this client"),
        Entry(code: .appAttestRequired, status: .forbidden, title: "This client requires an App Attest attestation"),
        Entry(code: .nodeAppAttestMissing, status: .forbidden, title: "This node verified no App Attest attestation of the device"),
        Entry(code: .appAttestChallengeNotBound, status: .unauthorized, title: "The App Attest challenge is not bound to this device key"),
        Entry(code: .appAttestMalformed, status: .badRequest, title: "Malformed App Attest data"),
        Entry(code: .appAttestUnsupportedFormat, status: .badRequest, title: "The attestation format is not apple-appattest"),
        Entry(code: .appAttestWrongChain, status: .unauthorized, title: "The attestation does not lead to a trusted App Attest root"),
        Entry(code: .appAttestCertificateExpired, status: .unauthorized, title: "An attestation certificate is not valid now"),
        Entry(code: .appAttestNonceMismatch, status: .unauthorized, title: "The attestation's nonce does not match the challenge"),
        Entry(code: .appAttestKeyIdMismatch, status: .unauthorized, title: "The key ID does not match the attested key"),
        Entry(code: .appAttestRpIdMismatch, status: .unauthorized, title: "The App Attest data is for another app"),
        Entry(code: .appAttestCounterNotZero, status: .unauthorized, title: "The attestation's counter is not 0"),
        Entry(code: .appAttestAaguidMismatch, status: .unauthorized, title: "The attestation is from another App Attest environment"),
        Entry(code: .appAttestCredentialIdMismatch, status: .unauthorized, title: "The credential ID is not the key ID"),
        Entry(code: .appAttestBadSignature, status: .unauthorized, title: "The assertion's signature does not verify"),
        Entry(code: .appAttestCounterNotGrown, status: .unauthorized, title: "The assertion's counter did not grow"),
        Entry(code: .appAttestAssertionRequired, status: .forbidden, title: "This client requires an App Attest assertion with each approval"),
        Entry(code: .appAttestRateLimited, status: .tooManyRequests, title: "Too many App Attest challenges from this address"),
        // Push
        Entry(code: .pushSettingsInvalid, status: .badRequest, title: "Invalid push settings"),
        Entry(code: .pushEndpointNotAllowed, status: .badRequest, title: "The push endpoint is not under one of the client's allowed UnifiedPush prefixes"),
        // Hosted sign-in (OIDC)
        Entry(code: .oidcAuthorizationUnknown, status: .notFound, title: "No such sign-in"),
        Entry(code: .oidcRateLimited, status: .tooManyRequests, title: "Too many sign-in attempts"),
        // Webhooks
        Entry(code: .webhookEndpointUnknown, status: .notFound, title: "No such webhook endpoint"),
        Entry(code: .webhookURLInvalid, status: .badRequest, title: "Webhook URL not allowed"),
        Entry(code: .webhookEventTypeUnknown, status: .badRequest, title: "Unknown event type"),
        Entry(code: .webhookDeliveryUnknown, status: .notFound, title: "No such delivery"),
        // Server
        Entry(code: .internalError, status: .internalServerError, title: "Internal server error"),
        Entry(code: .storageUnavailable, status: .serviceUnavailable, title: "Database unavailable"),
    ]

    /// Two codes that name a missing object in two roles: as a caller's credential (the client key of
    /// an app call, the key id of a signed request) they answer 401; as the object an admin path names
    /// (`/v1/admin/clients/{clientKey}…`, `/v1/admin/devices/{deviceId}/revoke`) they answer 404. Both
    /// are in the OpenAPI contract and pinned by tests, so the code keeps both; two codes would be the
    /// clean split (a new code is a contract change). ``AppError/noSuchClient()`` and
    /// ``AppError/noSuchDevice()`` are the only users.
    public static let adminLookupStatus: [ErrorCode: HTTPResponse.Status] = [.clientUnknown: .notFound, .deviceUnknown: .notFound]

    private static let byCode: [ErrorCode: Entry] = Dictionary(entries.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })

    /// The line for `code`; a code missing from the table answers as a bug (500).
    public static func entry(_ code: ErrorCode) -> Entry {
        byCode[code] ?? Entry(code: code, status: .internalServerError, title: "Internal server error")
    }
}
