import Foundation

/// The progress of a node-quorum authentication, in the order the server reports it (the seed's
/// `onProcess(status)` values).
public enum AuthStatus: String, Codable, Sendable, CaseIterable {
    /// The channel exists.
    case createChannel = "CreateChannel"
    /// The server chose the nodes that will verify the device.
    case selectNodes = "SelectNodes"
    /// The device's signed challenge went out to the nodes.
    case startVerificationOfNodes = "StartVerificationOfNodes"
    /// A quorum of nodes attested the device.
    case completeVerificationOfNodes = "CompleteVerificationOfNodes"
}

/// How an authentication channel ended (or that it has not).
public enum AuthOutcome: String, Codable, Sendable, CaseIterable {
    /// Waiting for the device (relying-party requests before the device picks them up).
    case pending
    /// The device is going through the steps.
    case inProgress = "in_progress"
    /// The user was verified; a result token was issued.
    case completed
    /// A step failed (`code` tells which).
    case failed
    /// The user declined a relying party's request.
    case declined
    /// The device or the relying party cancelled.
    case cancelled
    /// Nobody completed it in time.
    case expired

    /// Whether the channel can change any more.
    public var isFinal: Bool { self != .pending && self != .inProgress }
}

/// Signed `POST /v1/auth/channels`: opens a channel (the seed's `requestAuthRequest`).
public struct AuthChannelResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// Always "OK" on success.
    public var rtMsg: String
    /// The channel's identifier; also the capability to read its event stream.
    public var channelId: String
    /// Random challenge (base64url) the device signs with its device key, and later with its user-verification key.
    public var challenge: String
    /// The secondary verification the device must perform (the user's local-auth type).
    public var authType: String
    /// The address that asked: for a channel the device opened, the device's address as the server saw
    /// it (empty if unknown); for a relying party's request, the address it sent.
    public var connectIp: String
    /// What the relying party says the authentication is for, else empty.
    public var message: String
    /// The user key of the device's user (the app's own ID for the user, as given at sign-up).
    public var userKey: String
    /// The client key of the app the device is enrolled in.
    public var clientKey: String
    /// Seconds until the channel expires.
    public var expiresIn: Int
    /// Path of the server-sent-events stream of the channel's progress.
    public var eventsPath: String
    /// Number matching: three distinct two-digit numbers, one of them the number the relying party
    /// shows. The user picks the one they see; the approval must carry it (``AuthStartRequest/matchNumber``).
    /// Absent when the request does not ask for number matching.
    public var numberChoices: [String]?
    /// App Attest (issue 41): `required` when the approval must carry an assertion of the device's attested App Attest
    /// key (``AuthStartRequest/appAttestAssertion``), `accepted` when the client's policy is on and one is verified
    /// when sent; absent when App Attest is off for the client or the device has no attested key.
    public var appAttestAssertion: String?

    /// Creates a successful answer: `rtCode` 0, `rtMsg` "OK", and ``AuthChannelResponse/eventsPath`` set to
    /// `/v1/auth/channels/{channelId}/events`; every other field as given.
    public init(
        channelId: String, challenge: String, authType: String, connectIp: String, message: String, userKey: String, clientKey: String,
        expiresIn: Int, numberChoices: [String]? = nil, appAttestAssertion: String? = nil
    ) {
        rtCode = 0
        rtMsg = "OK"
        self.channelId = channelId
        self.challenge = challenge
        self.authType = authType
        self.connectIp = connectIp
        self.message = message
        self.userKey = userKey
        self.clientKey = clientKey
        self.expiresIn = expiresIn
        eventsPath = "/v1/auth/channels/\(channelId)/events"
        self.numberChoices = numberChoices
        self.appAttestAssertion = appAttestAssertion
    }
}

/// Signed `GET /v1/auth/pending`: relying-party requests waiting for this device.
public struct PendingAuthResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// The relying-party requests still pending for this device's user, oldest first, at most 20; each
    /// is a channel the device can start (or decline). Empty when there are none.
    public var requests: [AuthChannelResponse]

    /// Creates a successful answer (`rtCode` 0) listing `requests`.
    public init(requests: [AuthChannelResponse]) {
        rtCode = 0
        self.requests = requests
    }
}

/// Signed `POST /v1/auth/channels/{channelId}/start`.
public struct AuthStartRequest: Codable, Sendable, Equatable {
    /// ECDSA P-256 signature (raw r‖s, base64) by the device key over ``AuthStatement/challenge(channelId:deviceId:challenge:)``.
    public var challengeSignature: String
    /// The number the user picked from ``AuthChannelResponse/numberChoices``; required when the
    /// request asks for number matching. A missing or wrong number ends the request at once.
    public var matchNumber: String?
    /// An App Attest assertion over client data that carries the channel's challenge
    /// (``AuthChannelResponse/appAttestAssertion`` says whether it is required).
    public var appAttestAssertion: AppAttestSignInAssertion?

    /// Creates a start request: the device key's signature over the challenge and, when the request asks
    /// for number matching, the number the user picked.
    public init(challengeSignature: String, matchNumber: String? = nil, appAttestAssertion: AppAttestSignInAssertion? = nil) {
        self.challengeSignature = challengeSignature
        self.matchNumber = matchNumber
        self.appAttestAssertion = appAttestAssertion
    }
}

/// Answer of the start call once a quorum of nodes attested (the seed's `AuthStartResponse`).
public struct AuthStartResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// Always "OK" on success.
    public var rtMsg: String
    /// The secondary verification the device must now perform.
    public var authType: String
    /// The nodes whose attestations count.
    public var nodes: [String]

    /// Creates a successful answer: `rtCode` 0, `rtMsg` "OK", the local-auth type to perform and the attesting nodes.
    public init(authType: String, nodes: [String]) {
        rtCode = 0
        rtMsg = "OK"
        self.authType = authType
        self.nodes = nodes
    }
}

/// Signed `POST /v1/auth/channels/{channelId}/result` (the seed's `requestAuthResult(isSecondaryCertification:)`).
public struct AuthResultRequest: Codable, Sendable, Equatable {
    /// Whether the local verification succeeded on the device.
    public var isSecondaryCertification: Bool
    /// ECDSA P-256 signature (raw, base64) by the user-verification key over
    /// ``AuthStatement/userVerification(channelId:deviceId:challenge:)``; required when the verification succeeded.
    public var userVerificationSignature: String?

    /// Creates a result request: whether the local verification succeeded and, when it did, the
    /// user-verification key's signature.
    public init(isSecondaryCertification: Bool, userVerificationSignature: String?) {
        self.isSecondaryCertification = isSecondaryCertification
        self.userVerificationSignature = userVerificationSignature
    }
}

/// Answer of a completed authentication: the result token (the seed's `AuthResultResponse.data`).
public struct AuthResultResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// Always "OK" on success.
    public var rtMsg: String
    /// The result token: a JWT (ES256) naming user, client, device, methods and attesting nodes.
    public var data: String
    /// Seconds the token stays valid.
    public var expiresIn: Int

    /// Creates a successful answer: `rtCode` 0, `rtMsg` "OK", ``AuthResultResponse/data`` set to `token`.
    public init(token: String, expiresIn: Int) {
        rtCode = 0
        rtMsg = "OK"
        data = token
        self.expiresIn = expiresIn
    }
}

/// A plain success answer (cancel, decline).
public struct RtResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// What was done: the server answers "cancelled" to a cancel and "declined" to a decline (the device's
    /// and the relying party's routes alike); "OK" by default.
    public var rtMsg: String

    /// Creates a success answer: `rtCode` 0 and `rtMsg` as given ("OK" unless told).
    public init(rtMsg: String = "OK") {
        rtCode = 0
        self.rtMsg = rtMsg
    }
}

/// One event on a channel's progress stream (`data:` of the server-sent event).
public struct AuthEvent: Codable, Sendable, Equatable {
    /// Set on progress events.
    public var status: AuthStatus?
    /// Set on the closing event.
    public var outcome: AuthOutcome?
    /// The error code of a closing event whose outcome is not `completed` (`failed`, `declined`,
    /// `cancelled`, `expired`); absent otherwise.
    public var code: Int?
    /// Milliseconds since 1970 when it happened.
    public var at: Int64

    /// Creates an event: a progress event with `status`, or the closing event with `outcome` (and `code`
    /// when it did not complete); `at` in milliseconds since 1970.
    public init(status: AuthStatus? = nil, outcome: AuthOutcome? = nil, code: Int? = nil, at: Int64) {
        self.status = status
        self.outcome = outcome
        self.code = code
        self.at = at
    }
}

/// Relying party: `POST /v1/rp/auth-requests` (client key and secret).
public struct RPAuthRequest: Codable, Sendable, Equatable {
    /// The user key (the app's own ID for the user, as given at sign-up) of the user to authenticate; at
    /// most 100 characters. A user with no active device of this client is ``ErrorCode/authUserUnknown`` (404).
    public var userKey: String
    /// The address of the browser or terminal that is logging in, shown on the device.
    public var connectIp: String
    /// What the log-in is for, shown on the device (at most 200 characters).
    public var message: String
    /// Number matching against push fatigue: the answer carries a two-digit ``RPAuthState/matchNumber``
    /// to show the user, and the device approves only with that number. Missing means false.
    public var numberMatching: Bool

    /// Creates a request; number matching is off unless asked for.
    public init(userKey: String, connectIp: String, message: String, numberMatching: Bool = false) {
        self.userKey = userKey
        self.connectIp = connectIp
        self.message = message
        self.numberMatching = numberMatching
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userKey = try container.decode(String.self, forKey: .userKey)
        connectIp = try container.decode(String.self, forKey: .connectIp)
        message = try container.decode(String.self, forKey: .message)
        // Missing means false; an explicit null is a wrong type (400), as the schema says.
        numberMatching = container.contains(.numberMatching) ? try container.decode(Bool.self, forKey: .numberMatching) : false
    }
}

/// Relying party: the state of a request it made.
public struct RPAuthState: Codable, Sendable, Equatable {
    /// The request's ID (the ID of its authentication channel, `ch_…`): the `{requestId}` of
    /// `GET` and `DELETE /v1/rp/auth-requests/{requestId}`.
    public var requestId: String
    /// Where the request stands: `pending` until a device picks it up, `in_progress` while the device goes
    /// through the steps, then final. Past its lifetime it reads `expired`, even before the server wrote that.
    public var outcome: AuthOutcome
    /// The error code when the outcome is `failed`, `declined`, `cancelled` or `expired`.
    public var code: Int?
    /// The result token, once `completed`.
    public var token: String?
    /// Seconds from this answer until the request expires; 0 once it has. A request lives
    /// `auth.channelLifetime` seconds (120 by default) from when it was made.
    public var expiresIn: Int
    /// Number matching: the two digits to show the user, who picks them on the phone. Absent when
    /// the request did not ask for number matching.
    public var matchNumber: String?

    /// Creates a state answer with every field as given.
    public init(requestId: String, outcome: AuthOutcome, code: Int?, token: String?, expiresIn: Int, matchNumber: String? = nil) {
        self.requestId = requestId
        self.outcome = outcome
        self.code = code
        self.token = token
        self.expiresIn = expiresIn
        self.matchNumber = matchNumber
    }
}

/// Relying party: `POST /v1/rp/totp/verify`.
public struct TOTPVerifyRequest: Codable, Sendable, Equatable {
    /// The user key (the app's own ID for the user) whose devices' codes are checked; at most 100
    /// characters. A user with no active device is ``ErrorCode/totpUserUnknown`` (404).
    public var userKey: String
    /// The six-digit code the user gives (RFC 6238, ``TOTP``: 30-second steps, six ASCII digits). The server
    /// accepts the current step or the one either side, and only a step later than the last one it
    /// accepted for the user (else ``ErrorCode/totpStepReused``).
    public var code: String

    /// Creates a request to check `code` for the user `userKey`.
    public init(userKey: String, code: String) {
        self.userKey = userKey
        self.code = code
    }
}

/// Answer of a successful TOTP verification.
public struct TOTPVerifyResponse: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// Always true: a code that does not verify is an error answer, not `false` (``ErrorCode/totpInvalid``,
    /// ``ErrorCode/totpStepReused``, ``ErrorCode/totpLocked``, ``ErrorCode/totpUserUnknown``).
    public var valid: Bool
    /// The ID of the user's device whose TOTP secret produced the code (one of them, when several of the
    /// user's devices produce it).
    public var deviceId: String

    /// Creates a successful answer: `rtCode` 0, `valid` true, the matching device's ID.
    public init(deviceId: String) {
        rtCode = 0
        valid = true
        self.deviceId = deviceId
    }
}

/// One authentication in a user's history.
public struct AuthHistoryItem: Codable, Sendable, Equatable {
    /// The authentication channel's ID (`ch_…`).
    public var channelId: String
    /// Milliseconds since 1970 when the channel was opened.
    public var createdAt: Int64
    /// When it ended, if it has.
    public var endedAt: Int64?
    /// The device that opened the channel, or that started a relying party's request; empty when no
    /// device started it (a request declined, cancelled or expired before that).
    public var deviceId: String
    /// The client key of the app (the user's app; the result token's client).
    public var clientKey: String
    /// The address that asked: for a channel the device opened, the device's address as the server saw it
    /// (empty if unknown); for a relying party's request, the address it sent.
    public var connectIp: String
    /// Who opened the channel: `device` (the device itself) or `rp` (a relying party's request).
    public var initiator: String
    /// How it ended, or `pending`/`in_progress`; one still open past its lifetime reads `expired`.
    public var outcome: AuthOutcome
    /// The error code when the outcome is `failed`, `declined`, `cancelled` or `expired`; absent otherwise.
    public var code: Int?
    /// The IDs of the nodes whose attestations made the quorum; empty until the nodes attested.
    public var nodes: [String]

    /// Creates a history entry with every field as given.
    public init(
        channelId: String, createdAt: Int64, endedAt: Int64?, deviceId: String, clientKey: String, connectIp: String, initiator: String,
        outcome: AuthOutcome, code: Int?, nodes: [String]
    ) {
        self.channelId = channelId
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.deviceId = deviceId
        self.clientKey = clientKey
        self.connectIp = connectIp
        self.initiator = initiator
        self.outcome = outcome
        self.code = code
        self.nodes = nodes
    }
}

/// `GET /v1/auth/history`: newest first.
public struct AuthHistoryPage: Codable, Sendable, Equatable {
    /// Always 0 on success: a failure is an error answer (a ``Problem``) instead.
    public var rtCode: Int
    /// Up to `limit` authentications (1–100, default 20) of the user, newest first.
    public var items: [AuthHistoryItem]
    /// Pass as `before` to read the next page; absent on the last page.
    public var nextCursor: String?

    /// Creates a successful answer (`rtCode` 0) with one page of items and the cursor of the next.
    public init(items: [AuthHistoryItem], nextCursor: String?) {
        rtCode = 0
        self.items = items
        self.nextCursor = nextCursor
    }
}
