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

extension AppError {
    /// The one way to build an error: status and title from the table.
    fileprivate init(
        _ code: ErrorCode, detail: String? = nil, field: String? = nil, remainingAttempts: Int? = nil, retryAfter: Int? = nil,
        adminLookup: Bool = false
    ) {
        let entry = ErrorCatalog.entry(code)
        self.code = code
        self.status = adminLookup ? ErrorCatalog.adminLookupStatus[code] ?? entry.status : entry.status
        self.title = entry.title
        self.detail = detail
        self.field = field
        self.remainingAttempts = remainingAttempts
        self.retryAfter = retryAfter
    }

    // MARK: Request shape (1000–1099)

    /// 400, 1001.
    public static func malformedJSON() -> AppError { AppError(.malformedJSON) }
    /// 413, 1002: the body is larger than `limit` bytes (when known).
    public static func bodyTooLarge(limit: Int? = nil) -> AppError { AppError(.bodyTooLarge, detail: limit.map { "The limit is \($0) bytes" }) }
    /// 400, 1003.
    public static func fieldWrongType(_ field: String, _ detail: String) -> AppError { AppError(.fieldWrongType, detail: detail, field: field) }
    /// 400, 1004: `field` is missing or null.
    public static func fieldMissing(_ field: String, _ detail: String) -> AppError { AppError(.fieldMissing, detail: detail, field: field) }
    /// 400, 1005: `field` (when known) has a value that is not allowed.
    public static func invalidField(_ field: String?, _ detail: String) -> AppError { AppError(.fieldInvalid, detail: detail, field: field) }
    /// 415, 1006.
    public static func unsupportedMediaType(detail: String? = nil) -> AppError { AppError(.unsupportedMediaType, detail: detail) }
    /// 404, 1007: no such route, or an object a path names that has no code of its own.
    public static func notFound(_ detail: String) -> AppError { AppError(.notFound, detail: detail) }
    /// 405, 1008 (the caller sets `Allow`).
    public static func methodNotAllowed() -> AppError { AppError(.methodNotAllowed) }
    /// 400, 1009: malformed in another way.
    public static func badRequest(detail: String?) -> AppError { AppError(.badRequest, detail: detail) }
    /// 400, 1009: HTTP that cannot be parsed (a broken request line, header or chunked framing).
    public static let malformedHTTP = badRequest(detail: "The request is not valid HTTP/1.1")

    // MARK: Callers (1100–1199)

    /// 401, 1101.
    public static func clientKeyMissing(detail: String? = nil) -> AppError { AppError(.clientKeyMissing, detail: detail) }
    /// 401, 1102: an app call's client key is unknown.
    public static func clientUnknown() -> AppError { AppError(.clientUnknown) }
    /// 404, 1102: the client an admin path or parameter names does not exist (see ``ErrorCatalog/adminLookupStatus``).
    public static func noSuchClient() -> AppError { AppError(.clientUnknown, detail: "No such client", adminLookup: true) }
    /// 403, 1103.
    public static func clientDisabled() -> AppError { AppError(.clientDisabled) }
    /// 403, 1104.
    public static func bundleIdNotAllowed(detail: String? = nil) -> AppError { AppError(.bundleIdNotAllowed, detail: detail) }
    /// 401, 1105: no admin token or console session, or a wrong one.
    public static func adminUnauthorized(detail: String) -> AppError { AppError(.adminUnauthorized, detail: detail) }
    /// 401, 1106: a relying party's client credentials are missing or wrong.
    public static func clientSecretInvalid(detail: String) -> AppError { AppError(.clientSecretInvalid, detail: detail) }
    /// 409, 1107.
    public static func conflict(_ detail: String) -> AppError { AppError(.conflict, detail: detail) }
    /// 401, 1108.
    public static func metricsUnauthorized(detail: String) -> AppError { AppError(.metricsUnauthorized, detail: detail) }
    /// 403, 1121.
    public static func consoleCSRFInvalid(detail: String? = nil) -> AppError { AppError(.consoleCSRFInvalid, detail: detail) }
    /// 403, 1122.
    public static func consoleCrossSite(detail: String) -> AppError { AppError(.consoleCrossSite, detail: detail) }

    // MARK: Identity proofing by OTP (2000–2099)

    /// 400, 2001.
    public static func invalidEmail(field: String) -> AppError { AppError(.invalidEmail, field: field) }
    /// 400, 2002.
    public static func invalidPhoneNumber(field: String, detail: String? = nil) -> AppError { AppError(.invalidPhoneNumber, detail: detail, field: field) }
    /// 400, 2003.
    public static func invalidSendType(field: String?, detail: String?) -> AppError { AppError(.invalidSendType, detail: detail, field: field) }
    /// 400, 2004.
    public static func invalidPurpose(field: String?, detail: String?) -> AppError { AppError(.invalidPurpose, detail: detail, field: field) }
    /// 429, 2010.
    public static func otpResendCooldown(retryAfter: Int) -> AppError { AppError(.otpResendCooldown, retryAfter: retryAfter) }
    /// 429, 2011.
    public static func otpTargetRateLimited(retryAfter: Int) -> AppError { AppError(.otpTargetRateLimited, retryAfter: retryAfter) }
    /// 429, 2012.
    public static func otpIPRateLimited(retryAfter: Int) -> AppError { AppError(.otpIPRateLimited, retryAfter: retryAfter) }
    /// 429, 2013.
    public static func otpClientRateLimited(retryAfter: Int) -> AppError { AppError(.otpClientRateLimited, retryAfter: retryAfter) }
    /// 503, 2014.
    public static func otpChannelUnavailable(detail: String) -> AppError { AppError(.otpChannelUnavailable, detail: detail) }
    /// 400, 2020, with the tries left.
    public static func otpInvalid(remainingAttempts: Int) -> AppError {
        AppError(.otpInvalid, detail: "\(remainingAttempts) tries left", remainingAttempts: remainingAttempts)
    }
    /// 410, 2021.
    public static func otpExpired() -> AppError { AppError(.otpExpired) }
    /// 403, 2022.
    public static func otpTooManyAttempts() -> AppError { AppError(.otpTooManyAttempts) }
    /// 403, 2101.
    public static func disposeTokenInvalid() -> AppError { AppError(.disposeTokenInvalid) }

    // MARK: Signed device requests (3000–3099)

    /// 401, 3001.
    public static func signatureMissing(detail: String? = nil) -> AppError { AppError(.signatureMissing, detail: detail) }
    /// 400, 3002.
    public static func signatureMalformed(detail: String) -> AppError { AppError(.signatureMalformed, detail: detail) }
    /// 401, 3003.
    public static func signatureExpired(detail: String) -> AppError { AppError(.signatureExpired, detail: detail) }
    /// 401, 3004.
    public static func nonceReplayed() -> AppError { AppError(.nonceReplayed) }
    /// 400, 3005.
    public static func contentDigestMismatch() -> AppError { AppError(.contentDigestMismatch) }
    /// 401, 3006.
    public static func signatureInvalid() -> AppError { AppError(.signatureInvalid) }
    /// 401, 3007: a signed request's key id names no device.
    public static func deviceUnknown() -> AppError { AppError(.deviceUnknown) }
    /// 404, 3007: the device an admin path names does not exist (see ``ErrorCatalog/adminLookupStatus``).
    public static func noSuchDevice() -> AppError { AppError(.deviceUnknown, detail: "No such device", adminLookup: true) }
    /// 403, 3008.
    public static func deviceRevoked() -> AppError { AppError(.deviceRevoked) }

    // MARK: Users and sign-up (4000–4099)

    /// 409, 4001.
    public static func duplicateEmail() -> AppError { AppError(.duplicateEmail) }
    /// 409, 4002.
    public static func duplicatePhoneNumber() -> AppError { AppError(.duplicatePhoneNumber) }
    /// 409, 4003.
    public static func userKeyTaken() -> AppError { AppError(.userKeyTaken) }
    /// 400, 4004.
    public static func agreementsRequired() -> AppError { AppError(.agreementsRequired) }
    /// 403, 4005.
    public static func disposeTokenTargetMismatch(detail: String? = nil) -> AppError { AppError(.disposeTokenTargetMismatch, detail: detail) }
    /// 404, 4006.
    public static func identityNotMatched() -> AppError { AppError(.identityNotMatched) }
    /// 429, 4007.
    public static func identityCheckRateLimited(retryAfter: Int) -> AppError { AppError(.identityCheckRateLimited, retryAfter: retryAfter) }
    /// 409, 4008.
    public static func localAuthTypeMismatch(detail: String) -> AppError { AppError(.localAuthTypeMismatch, detail: detail) }

    // MARK: Authentication channels (5000–5099)

    /// 404, 5001.
    public static func authChannelUnknown(detail: String? = nil) -> AppError { AppError(.authChannelUnknown, detail: detail) }
    /// 410, 5002.
    public static func authChannelExpired() -> AppError { AppError(.authChannelExpired) }
    /// 409, 5003: the call does not fit the channel's state (`detail` says how).
    public static func authChannelState(_ detail: String? = nil) -> AppError { AppError(.authChannelState, detail: detail) }
    /// 503, 5004.
    public static func authQuorumNotReached(detail: String) -> AppError { AppError(.authQuorumNotReached, detail: detail) }
    /// 401, 5005.
    public static func authSecondaryFailed() -> AppError { AppError(.authSecondaryFailed) }
    /// 401, 5006.
    public static func authUserVerificationInvalid() -> AppError { AppError(.authUserVerificationInvalid) }
    /// 409, 5007.
    public static func authChannelCancelled() -> AppError { AppError(.authChannelCancelled) }
    /// 409, 5008.
    public static func authDeclined() -> AppError { AppError(.authDeclined) }
    /// 401, 5009.
    public static func authChallengeSignatureInvalid() -> AppError { AppError(.authChallengeSignatureInvalid) }
    /// 404, 5010.
    public static func authUserUnknown(detail: String? = nil) -> AppError { AppError(.authUserUnknown, detail: detail) }
    /// 403, 5011.
    public static func authNumberMismatch(detail: String) -> AppError { AppError(.authNumberMismatch, detail: detail) }

    // MARK: Verifier nodes (5100–5199)

    /// 404, 5101.
    public static func nodeDeviceUnknown() -> AppError { AppError(.nodeDeviceUnknown) }
    /// 403, 5102.
    public static func nodeDeviceRevoked() -> AppError { AppError(.nodeDeviceRevoked) }
    /// 401, 5103.
    public static func nodeSignatureInvalid() -> AppError { AppError(.nodeSignatureInvalid) }
    /// 404, 5104.
    public static func nodeUnknown() -> AppError { AppError(.nodeUnknown) }
    /// 409, 5105.
    public static func nodeKeyConflict() -> AppError { AppError(.nodeKeyConflict) }

    // MARK: TOTP verification and tokens (6000–6199)

    /// 400, 6001, with the failures left before the lock.
    public static func totpInvalid(remainingAttempts: Int) -> AppError {
        AppError(.totpInvalid, detail: "\(remainingAttempts) tries left", remainingAttempts: remainingAttempts)
    }
    /// 400, 6002.
    public static func totpStepReused(detail: String) -> AppError { AppError(.totpStepReused, detail: detail) }
    /// 423, 6003.
    public static func totpLocked(detail: String) -> AppError { AppError(.totpLocked, detail: detail) }
    /// 404, 6004.
    public static func totpUserUnknown(detail: String? = nil) -> AppError { AppError(.totpUserUnknown, detail: detail) }
    /// 401, 6101.
    public static func tokenInvalid(detail: String) -> AppError { AppError(.tokenInvalid, detail: detail) }

    // MARK: Registration flows (7000–7099)

    /// 404, 7001.
    public static func flowUnknown() -> AppError { AppError(.flowUnknown) }
    /// 410, 7002.
    public static func flowExpired() -> AppError { AppError(.flowExpired) }
    /// 409, 7003.
    public static func flowStepOutOfOrder(detail: String) -> AppError { AppError(.flowStepOutOfOrder, detail: detail) }
    /// 409, 7004.
    public static func flowAlreadyUsed() -> AppError { AppError(.flowAlreadyUsed) }
    /// 409, 7005.
    public static func flowPhoneMismatch(field: String? = nil) -> AppError { AppError(.flowPhoneMismatch, field: field) }
    /// 429, 7006.
    public static func flowRateLimited(retryAfter: Int) -> AppError { AppError(.flowRateLimited, retryAfter: retryAfter) }

    // MARK: Sessions and password log-in (7100–7199)

    /// 401, 7101.
    public static func sessionInvalid(detail: String? = nil) -> AppError { AppError(.sessionInvalid, detail: detail) }
    /// 401, 7102.
    public static func sessionExpired() -> AppError { AppError(.sessionExpired) }
    /// 401, 7103.
    public static func sessionRevoked() -> AppError { AppError(.sessionRevoked) }
    /// 403, 7104.
    public static func sessionDeviceRequired(detail: String) -> AppError { AppError(.sessionDeviceRequired, detail: detail) }
    /// 404, 7105.
    public static func sessionUnknown() -> AppError { AppError(.sessionUnknown) }
    /// 401, 7110.
    public static func passwordInvalid() -> AppError { AppError(.passwordInvalid) }
    /// 429, 7111.
    public static func passwordLocked(retryAfter: Int) -> AppError { AppError(.passwordLocked, retryAfter: retryAfter) }
    /// 429, 7112.
    public static func passwordRateLimited(retryAfter: Int) -> AppError { AppError(.passwordRateLimited, retryAfter: retryAfter) }

    // MARK: Authenticators and client policy (7200–7299)

    /// 403, 7201.
    public static func authenticatorNotAllowed(detail: String) -> AppError { AppError(.authenticatorNotAllowed, detail: detail) }
    /// 422, 7202: `detail` says which rule.
    public static func pinPolicyViolation(_ detail: String, field: String) -> AppError { AppError(.pinPolicyViolation, detail: detail, field: field) }
    /// 422, 7203: `detail` says which rule.
    public static func passwordPolicyViolation(_ detail: String, field: String) -> AppError {
        AppError(.passwordPolicyViolation, detail: detail, field: field)
    }
    /// 404, 7204.
    public static func authenticatorUnknown(detail: String? = nil) -> AppError { AppError(.authenticatorUnknown, detail: detail) }
    /// 400, 7205.
    public static func authenticatorKeyInvalid(_ detail: String, field: String) -> AppError { AppError(.authenticatorKeyInvalid, detail: detail, field: field) }
    /// 403, 7206.
    public static func passcodeFallbackNotAllowed() -> AppError { AppError(.passcodeFallbackNotAllowed) }
    /// 409, 7207.
    public static func authenticatorExists(detail: String) -> AppError { AppError(.authenticatorExists, detail: detail) }
    /// 403, 7208.
    public static func authenticatorUsernameMismatch(detail: String, field: String) -> AppError {
        AppError(.authenticatorUsernameMismatch, detail: detail, field: field)
    }
    /// 401, 7209.
    public static func authenticatorChallengeInvalid(detail: String) -> AppError { AppError(.authenticatorChallengeInvalid, detail: detail) }
    /// 401, 7210.
    public static func authenticatorSignatureInvalid(field: String) -> AppError { AppError(.authenticatorSignatureInvalid, field: field) }

    // MARK: Push (8000–8099)

    /// 400, 8001: `detail` says what is wrong.
    public static func pushSettingsInvalid(_ detail: String) -> AppError { AppError(.pushSettingsInvalid, detail: detail) }
    /// 400, 8003.
    public static func pushEndpointNotAllowed(field: String) -> AppError { AppError(.pushEndpointNotAllowed, field: field) }

    // MARK: Hosted sign-in (8100–8199)

    /// 404, 8101.
    public static func oidcAuthorizationUnknown(detail: String) -> AppError { AppError(.oidcAuthorizationUnknown, detail: detail) }
    /// 429, 8102.
    public static func oidcRateLimited(detail: String) -> AppError { AppError(.oidcRateLimited, detail: detail) }

    // MARK: Webhooks (8200–8299)

    /// 404, 8201.
    public static func webhookEndpointUnknown() -> AppError { AppError(.webhookEndpointUnknown) }
    /// 400, 8202: `detail` says why.
    public static func webhookURLInvalid(_ detail: String, field: String) -> AppError { AppError(.webhookURLInvalid, detail: detail, field: field) }
    /// 400, 8203.
    public static func webhookEventTypeUnknown(_ detail: String, field: String) -> AppError {
        AppError(.webhookEventTypeUnknown, detail: detail, field: field)
    }
    /// 404, 8204.
    public static func webhookDeliveryUnknown(detail: String? = nil) -> AppError { AppError(.webhookDeliveryUnknown, detail: detail) }

    // MARK: Server (9000–9099)

    /// 500, 9001: a bug.
    public static let internalError = AppError(.internalError)
    /// 500, 9001: a bug that can say what broke.
    public static func internalError(detail: String) -> AppError { AppError(.internalError, detail: detail) }
    /// 503, 9002.
    public static func storageUnavailable() -> AppError { AppError(.storageUnavailable) }
}

extension AppError {
    /// The problem for an error raised while a request was read rather than by Tessera's own
    /// code: a body over the limit (413, 1002; `NIOTooManyBytesError` for a chunked body,
    /// `HTTPError` 413 for one with Content-Length) or HTTP that cannot be parsed (400, 1009).
    /// `nil` for anything else.
    public init?(transport error: any Error, bodyLimit: Int) {
        switch error {
        case is NIOTooManyBytesError:
            self = .bodyTooLarge(limit: bodyLimit)
        case let error as HTTPError where error.status == .contentTooLarge:
            self = .bodyTooLarge(limit: bodyLimit)
        case is HTTPParserError, is ByteToMessageDecoderError:
            self = .malformedHTTP
        default:
            return nil
        }
    }

    /// The problem for a JSON document that does not decode: wrong type (1003), missing (1004), not allowed (1005), not JSON (1001).
    public init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String {
            (codingPath + (key.map { [$0] } ?? [])).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context):
            self = .fieldWrongType(path(context.codingPath), context.debugDescription)
        case .keyNotFound(let key, let context):
            self = .fieldMissing(path(context.codingPath, key), "\(path(context.codingPath, key)) is required")
        case .valueNotFound(_, let context):
            self = .fieldMissing(path(context.codingPath), "\(path(context.codingPath)) must not be null")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            // A value of the right JSON type that the type refuses (for example an unknown enum case).
            self = .invalidField(path(context.codingPath), context.debugDescription)
        default:
            self = .malformedJSON()
        }
    }

    /// The problem for an error Hummingbird raised (no route, method, body size, media type); any
    /// other 4xx is 1009 with 400, a 5xx a bug.
    public init(httpError error: HTTPError) {
        self = switch error.status {
        case .notFound: .notFound("No such route")
        case .methodNotAllowed: .methodNotAllowed()
        case .contentTooLarge: .bodyTooLarge()
        case .unsupportedMediaType: .unsupportedMediaType()
        default: error.status.code >= 500 ? .internalError : .badRequest(detail: error.body)
        }
    }
}
