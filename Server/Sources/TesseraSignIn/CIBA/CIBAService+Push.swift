import Foundation
import TesseraCore

/// CIBA push mode (CIBA Core 1.0 §10.3): the tokens, or the error, delivered to the client's notification endpoint.
extension CIBAService {
    /// The JSON body that pushes the outcome of the request `idHash` (`authReqId` its ID) to a push-mode client,
    /// minting its tokens once (the request is marked used first); nil while the user has not answered.
    /// §10.3.1: `auth_req_id`, `access_token`, `token_type`, `expires_in`, `id_token` (with the
    /// `urn:openid:params:jwt:claim:auth_req_id` and, with a refresh token, `…:rt_hash` claims) and `refresh_token`;
    /// §12: `access_denied`, `expired_token`, or `transaction_failed` for tokens that were minted but not delivered.
    package func pushBody(clientId: String, idHash: String, authReqId: String) async throws -> Data? {
        let repository = self.repository, now = oidc.clock.now()
        let clientKey = try await oidc.database.read { sql in try await oidc.clients.repository.clientKeys(ids: [clientId], in: sql) }[clientId]
        guard let clientKey, let client = try? await oidc.clients.client(clientKey: clientKey),
              let record = try await oidc.database.read({ sql in try await repository.find(idHash: idHash, clientId: clientId, in: sql) })
        else { return Self.pushError(authReqId, "transaction_failed", "the request is gone") }
        let request = try await record.channelId.asyncMap { try await oidc.relyingParty.state(client: client, id: $0, wait: .zero) }
        switch CIBAState.of(record, request: request, now: now) {
        case .pending:
            return nil
        case .denied:
            return Self.pushError(authReqId, "access_denied", "the user declined, or the request was cancelled")
        case .expired:
            return Self.pushError(authReqId, "expired_token", "the request expired before the user approved it")
        case .used:
            return Self.pushError(authReqId, "transaction_failed", "the tokens were issued but could not be kept for delivery")
        case .approved(let resultToken):
            guard try await oidc.database.transaction({ sql in try await repository.markUsed(idHash: idHash, now: now, in: sql) }) else {
                return Self.pushError(authReqId, "transaction_failed", "the tokens were issued already")
            }
            let claims = try await oidc.tokens.verify(resultToken)
            let tokens = try await oidc.issueTokens(
                client: client, userKey: claims.sub.value, scope: record.scope, authTime: Int64(claims.iat.value.timeIntervalSince1970), amr: claims.amr,
                nonce: nil, family: idHash, sessionId: nil, nodes: claims.nodes, authReqId: authReqId, at: now
            )
            var body: [String: Any] = [
                "auth_req_id": authReqId, "access_token": tokens.accessToken, "token_type": tokens.tokenType, "expires_in": tokens.expiresIn,
                "id_token": tokens.idToken, "scope": tokens.scope,
            ]
            body["refresh_token"] = tokens.refreshToken
            return try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        }
    }

    static func pushError(_ authReqId: String, _ error: String, _ description: String) -> Data {
        (try? JSONSerialization.data(
            withJSONObject: ["auth_req_id": authReqId, "error": error, "error_description": description], options: [.sortedKeys]
        )) ?? Data()
    }
}
