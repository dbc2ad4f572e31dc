import TesseraCore

/// Where a backchannel authentication request stands, as the token endpoint answers it (CIBA Core 1.0 §11):
/// the one state type of a CIBA request, derived from its record and the relying-party request it became.
package enum CIBAState: Sendable, Equatable {
    /// The user has not answered yet (`authorization_pending`).
    case pending
    /// The phone approved: the result token to turn into the client's tokens.
    case approved(resultToken: String)
    /// The user declined, or the request was cancelled or failed on the phone (`access_denied`).
    case denied
    /// It expired before the user approved (`expired_token`).
    case expired
    /// Its tokens were issued already (`invalid_grant`).
    case used

    /// The state of `record` at `now`, given the state of its relying-party request (nil when it has none: the
    /// hint named no one, and the request waits until it expires, exactly as one the user ignores).
    package static func of(_ record: CIBARequestRecord, request: RPAuthState?, now: Int64) -> CIBAState {
        if record.usedAt != nil { return .used }
        guard now < record.expiresAt else { return .expired }
        guard let request else { return .pending }
        switch request.outcome {
        case .pending, .inProgress: return .pending
        case .completed: return request.token.map { .approved(resultToken: $0) } ?? .pending
        case .declined, .cancelled, .failed: return .denied
        case .expired: return .expired
        }
    }

    /// The OAuth error of the token endpoint for a state that gives no tokens (CIBA Core 1.0 §11).
    package var error: OIDCService.OAuthError? {
        switch self {
        case .pending: .init(error: "authorization_pending", description: "the user has not approved the request yet")
        case .approved: nil
        case .denied: .init(error: "access_denied", description: "the user declined, or the request was cancelled")
        case .expired: .init(error: "expired_token", description: "the request expired before the user approved it")
        case .used: .init(error: "invalid_grant", description: "the auth_req_id was used already")
        }
    }
}
