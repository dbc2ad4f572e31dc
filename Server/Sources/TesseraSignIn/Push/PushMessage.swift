import Foundation
import NIOHTTP1

/// What a push carries: the ID of the relying-party request and a type marker, nothing else (no
/// personal data, no message text). The device fetches the details with the signed `GET /v1/auth/pending`.
package struct PushMessage: Sendable, Equatable {
    /// The type marker in every payload.
    package static let type = "tessera.auth-request"

    package var requestId: String
    package var deviceToken: String
    /// When the request expires (ms since 1970): the push is useless after it.
    package var expiresAt: Int64
}

/// What a provider said about one push.
package enum PushOutcome: Sendable, Equatable {
    /// Accepted for delivery.
    case delivered
    /// The device token is no longer valid (APNs 410 / 400 BadDeviceToken, FCM UNREGISTERED): clear it.
    case tokenInvalid(String)
    /// Try again later (429, 5xx, an expired provider token), after `after` when the provider said.
    case retry(String, after: Duration?)
    /// Refused for good (a bad topic, a wrong key): no more tries.
    case rejected(String)

    /// The outcome of a provider's status for what is not specific to it: 429 and 5xx retry
    /// (honouring `Retry-After` in seconds), 2xx delivered, the rest `rejected`.
    package static func common(status: Int, reason: String, headers: HTTPHeaders) -> PushOutcome {
        switch status {
        case 200..<300: return .delivered
        case 429, 500..<600:
            let after = headers.first(name: "retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { Duration.seconds($0) }
            return .retry("\(status) \(reason)", after: after)
        default: return .rejected("\(status) \(reason)")
        }
    }

    /// The `outcome` label of `tessera_push_deliveries_total`.
    package var metricsOutcome: PushResult {
        switch self {
        case .delivered: .delivered
        case .tokenInvalid: .tokenInvalid
        case .retry: .retry
        case .rejected: .rejected
        }
    }
}

/// The compact JWT form: `base64url(header).base64url(claims)`, to be signed.
package enum CompactJWT {
    package static func signingInput<Header: Encodable, Claims: Encodable>(header: Header, claims: Claims) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Data(try encoder.encode(header)).base64URLEncodedString() + "." + Data(try encoder.encode(claims)).base64URLEncodedString()
    }
}
