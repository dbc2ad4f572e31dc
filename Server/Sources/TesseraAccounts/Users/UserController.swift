import Crypto
import HTTPTypes
import Hummingbird
import TesseraCore

/// The seed's `checkDuplicateUserData`, `checkUserKeyAvailable` and `requestSignUp`.
package struct UserController<Context: TesseraContext> {
    package let service: SignUpService
    package let bodyLimit: Int

    package init(service: SignUpService, bodyLimit: Int) {
        self.service = service
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.post("users/check-duplicate", use: checkDuplicate)
        group.post("users/check-user-key", use: checkUserKey)
        group.post("signup", use: signUp)
    }

    @Sendable package func checkDuplicate(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body: CheckDuplicateRequest
        do {
            body = try await request.decodeJSON(CheckDuplicateRequest.self, limit: bodyLimit)
        } catch let error as AppError where error.code == .fieldInvalid && error.field == "verifyType" {
            throw AppError.invalidField("verifyType", "verifyType must be Email or PhoneNumber")
        }
        let duplicate = try await service.isDuplicate(client: try context.requireClient(), type: body.verifyType, data: body.verifyData)
        return try .json(CheckDuplicateResponse(duplicate: duplicate))
    }

    @Sendable package func checkUserKey(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await request.decodeJSON(CheckUserKeyRequest.self, limit: bodyLimit)
        return try .json(CheckUserKeyResponse(available: try await service.isUserKeyAvailable(client: try context.requireClient(), userKey: body.userKey)))
    }

    /// Sign-up is signed by the new device key (proof of possession): the body is read once, the
    /// signature checked over those exact bytes with the key the body names, then the account created.
    @Sendable package func signUp(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let client = try context.requireClient()
        let bundleId = HTTPField.Name(TesseraHeader.bundleId).flatMap { request.headers[$0] }
        var checked: (email: String, phone: String, deviceKey: P256.Signing.PublicKey)?
        let body = try await request.decodeSelfSigned(
            SignUpRequest.self, limit: bodyLimit, database: service.database, clock: service.clock
        ) { body in
            let validated = try service.validate(body, client: client, bundleId: bundleId)
            checked = validated
            return validated.deviceKey
        }
        guard let checked else { throw AppError.internalError }
        let answer = try await service.signUp(body, client: client, email: checked.email, phone: checked.phone)
        return try .json(answer, status: .created)
    }
}
