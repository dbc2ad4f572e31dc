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
    public var rtCode: Int
    public var rtMsg: String
    /// The channel's identifier; also the capability to read its event stream.
    public var channelId: String
    /// Random challenge (base64url) the device signs with its device key, and later with its user-verification key.
    public var challenge: String
    /// The secondary verification the device must perform (the user's local-auth type).
    public var authType: String
    /// The address that asked (relying-party requests), else empty.
    public var connectIp: String
    /// What the relying party says the authentication is for, else empty.
    public var message: String
    public var userKey: String
    public var clientKey: String
    /// Seconds until the channel expires.
    public var expiresIn: Int
    /// Path of the server-sent-events stream of the channel's progress.
    public var eventsPath: String
    /// Number matching: three distinct two-digit numbers, one of them the number the relying party
    /// shows. The user picks the one they see; the approval must carry it (``AuthStartRequest/matchNumber``).
    /// Absent when the request does not ask for number matching.
    public var numberChoices: [String]?

    public init(
        channelId: String, challenge: String, authType: String, connectIp: String, message: String, userKey: String, clientKey: String,
        expiresIn: Int, numberChoices: [String]? = nil
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
    }
}

/// Signed `GET /v1/auth/pending`: relying-party requests waiting for this device.
public struct PendingAuthResponse: Codable, Sendable, Equatable {
    public var rtCode: Int
    public var requests: [AuthChannelResponse]

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

    public init(challengeSignature: String, matchNumber: String? = nil) {
        self.challengeSignature = challengeSignature
        self.matchNumber = matchNumber
    }
}

/// Answer of the start call once a quorum of nodes attested (the seed's `AuthStartResponse`).
public struct AuthStartResponse: Codable, Sendable, Equatable {
    public var rtCode: Int
    public var rtMsg: String
    /// The secondary verification the device must now perform.
    public var authType: String
    /// The nodes whose attestations count.
    public var nodes: [String]

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

    public init(isSecondaryCertification: Bool, userVerificationSignature: String?) {
        self.isSecondaryCertification = isSecondaryCertification
        self.userVerificationSignature = userVerificationSignature
    }
}

/// Answer of a completed authentication: the result token (the seed's `AuthResultResponse.data`).
public struct AuthResultResponse: Codable, Sendable, Equatable {
    public var rtCode: Int
    public var rtMsg: String
    /// The result token: a JWT (ES256) naming user, client, device, methods and attesting nodes.
    public var data: String
    /// Seconds the token stays valid.
    public var expiresIn: Int

    public init(token: String, expiresIn: Int) {
        rtCode = 0
        rtMsg = "OK"
        data = token
        self.expiresIn = expiresIn
    }
}

/// A plain success answer (cancel, decline).
public struct RtResponse: Codable, Sendable, Equatable {
    public var rtCode: Int
    public var rtMsg: String

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
    /// The error code of a failed outcome.
    public var code: Int?
    /// Milliseconds since 1970 when it happened.
    public var at: Int64

    public init(status: AuthStatus? = nil, outcome: AuthOutcome? = nil, code: Int? = nil, at: Int64) {
        self.status = status
        self.outcome = outcome
        self.code = code
        self.at = at
    }
}

/// Relying party: `POST /v1/rp/auth-requests` (client key and secret).
public struct RPAuthRequest: Codable, Sendable, Equatable {
    public var userKey: String
    /// The address of the browser or terminal that is logging in, shown on the device.
    public var connectIp: String
    /// What the log-in is for, shown on the device (at most 200 characters).
    public var message: String
    /// Number matching against push fatigue: the answer carries a two-digit ``RPAuthState/matchNumber``
    /// to show the user, and the device approves only with that number. Missing means false.
    public var numberMatching: Bool

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
    public var requestId: String
    public var outcome: AuthOutcome
    /// The error code when the outcome is `failed`, `declined`, `cancelled` or `expired`.
    public var code: Int?
    /// The result token, once `completed`.
    public var token: String?
    public var expiresIn: Int
    /// Number matching: the two digits to show the user, who picks them on the phone. Absent when
    /// the request did not ask for number matching.
    public var matchNumber: String?

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
    public var userKey: String
    public var code: String

    public init(userKey: String, code: String) {
        self.userKey = userKey
        self.code = code
    }
}

/// Answer of a successful TOTP verification.
public struct TOTPVerifyResponse: Codable, Sendable, Equatable {
    public var rtCode: Int
    public var valid: Bool
    public var deviceId: String

    public init(deviceId: String) {
        rtCode = 0
        valid = true
        self.deviceId = deviceId
    }
}

/// One authentication in a user's history.
public struct AuthHistoryItem: Codable, Sendable, Equatable {
    public var channelId: String
    /// Milliseconds since 1970 when the channel was opened.
    public var createdAt: Int64
    /// When it ended, if it has.
    public var endedAt: Int64?
    public var deviceId: String
    public var clientKey: String
    public var connectIp: String
    public var initiator: String
    public var outcome: AuthOutcome
    public var code: Int?
    public var nodes: [String]

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
    public var rtCode: Int
    public var items: [AuthHistoryItem]
    /// Pass as `before` to read the next page; absent on the last page.
    public var nextCursor: String?

    public init(items: [AuthHistoryItem], nextCursor: String?) {
        rtCode = 0
        self.items = items
        self.nextCursor = nextCursor
    }
}

/// The exact bytes each party signs during an authentication. One definition for the SDK, the
/// server and the nodes, so that none can drift.
public enum AuthStatement {
    /// Signed by the device key when starting; checked by the server and by every node.
    public static func challenge(channelId: String, deviceId: String, challenge: String) -> Data {
        Data("tessera-auth-v1\n\(channelId)\n\(deviceId)\n\(challenge)".utf8)
    }

    /// Signed by the user-verification key after local authentication.
    public static func userVerification(channelId: String, deviceId: String, challenge: String) -> Data {
        Data("tessera-uv-v1\n\(channelId)\n\(deviceId)\n\(challenge)".utf8)
    }

    /// Signed (Ed25519) by a node that vouches for the device in this channel.
    public static func attestation(nodeId: String, channelId: String, deviceId: String, challenge: String, signedAt: Int64) -> Data {
        Data("tessera-attest-v1\n\(nodeId)\n\(channelId)\n\(deviceId)\n\(challenge)\n\(signedAt)".utf8)
    }

    /// Signed (Ed25519) by a node that stored a device's keys or revocation.
    public static func receipt(nodeId: String, deviceId: String, status: String, keysDigest: String, signedAt: Int64) -> Data {
        Data("tessera-receipt-v1\n\(nodeId)\n\(deviceId)\n\(status)\n\(keysDigest)\n\(signedAt)".utf8)
    }
}
