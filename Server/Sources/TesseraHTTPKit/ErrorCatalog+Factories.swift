import Hummingbird
import NIOCore
import NIOHTTP1
import TesseraCore

// The factories of the error table (ErrorCatalog.swift): one per code; status and title come from the table.

extension AppError {
    /// The one way to build an error: status and title from the table.
    init(
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

    // MARK: Passkeys (7300–7399)

    /// 401, 7301.
    public static func passkeyChallengeInvalid() -> AppError {
        AppError(.passkeyChallengeInvalid, detail: "The passkey challenge is unknown, used, expired or another session's; start again")
    }
    /// 401, 7302: `detail` names the failed WebAuthn step.
    public static func passkeyInvalid(detail: String) -> AppError { AppError(.passkeyInvalid, detail: detail) }
    /// 404, 7303.
    public static func passkeyUnknown() -> AppError { AppError(.passkeyUnknown, detail: "No active passkey with this credential ID") }
    /// 409, 7304.
    public static func passkeyExists() -> AppError { AppError(.passkeyExists, detail: "This authenticator already holds a passkey of this account") }
    /// 401, 7305.
    public static func passkeyCounterRegression() -> AppError {
        AppError(.passkeyCounterRegression, detail: "The passkey's signature counter did not grow; it is flagged for the administrator")
    }
    /// 409, 7306: `rpId` is the host WebAuthn would not accept as an RP ID.
    public static func passkeysUnavailable(rpId: String) -> AppError {
        AppError(.passkeysUnavailable, detail: "Passkeys need the issuer on a domain name over https (or localhost); \(rpId) cannot be a WebAuthn RP ID here")
    }

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
