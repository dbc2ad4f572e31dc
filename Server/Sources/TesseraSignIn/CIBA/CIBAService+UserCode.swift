import Foundation
import TesseraCore

/// CIBA §7.1 `user_code`, for clients that require it (`backchannel_user_code_parameter`).
extension CIBAService {
    /// Checks the `user_code` of a request for `userKey` (nil: the hint named no one): the user's Tessera password,
    /// through the password log-in's limits (failures counted before the comparison, a lock after 5 in a row).
    /// §13: `missing_user_code` without one; `invalid_user_code` for a wrong one, an unknown user (after the same
    /// work: the comparison runs against no password) or a locked user.
    func checkUserCode(_ code: String?, userKey: String?, client: Client) async throws {
        guard let code, !code.isEmpty else {
            throw OIDCService.OAuthError(error: "missing_user_code", description: "this client's requests must carry the user's user_code")
        }
        guard let userCode else { throw OIDCService.OAuthError(error: "invalid_user_code", description: "user codes cannot be checked here") }
        let record = try await userKey.asyncMap { key in try await oidc.user(clientId: client.id, identifier: key) } ?? nil
        // An identifier no user has: the check does the same work and fails alike.
        let identifier = record.map { $0.email.isEmpty ? $0.phone : $0.email } ?? "ciba-nobody@invalid.example"
        do {
            try await userCode(client, identifier, String(code.prefix(1024)))
        } catch let error as AppError where error.code == .passwordLocked {
            throw OIDCService.OAuthError(error: "invalid_user_code", description: "too many wrong user codes: the user's code is locked for a while")
        } catch is AppError {
            throw OIDCService.OAuthError(error: "invalid_user_code", description: "the user_code is wrong")
        }
    }
}
