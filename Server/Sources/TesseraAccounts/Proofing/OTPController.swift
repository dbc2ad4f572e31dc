import Hummingbird
import TesseraCore

/// `POST /v1/otp/send` and `POST /v1/otp/verify` (the seed's `requestSendOTPNumber` and
/// `verifyOTPNumber`). Both are app calls: the client middleware has already checked the client.
package struct OTPController<Context: TesseraContext> {
    package let service: OTPService
    package let bodyLimit: Int

    package init(service: OTPService, bodyLimit: Int) {
        self.service = service
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.post("otp/send", use: send)
        group.post("otp/verify", use: verify)
    }

    @Sendable package func send(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await Self.decode(SendOTPRequest.self, from: &request, limit: bodyLimit)
        let answer = try await service.send(
            client: try context.requireClient(), channel: body.sendType, target: body.sendTarget, purpose: body.purpose ?? .signup,
            ip: context.remoteAddress
        )
        return try .json(answer, status: .accepted)
    }

    @Sendable package func verify(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await Self.decode(VerifyOTPRequest.self, from: &request, limit: bodyLimit)
        switch try await service.verify(
            client: try context.requireClient(), channel: body.sendType, target: body.sendTarget, code: body.otpNumber,
            purpose: body.purpose ?? .signup
        ) {
        case .valid(let token):
            return try .json(VerifyOTPResponse(disposeToken: token, expiresIn: Int(service.settings.disposeTokenLifetime.components.seconds)))
        case .invalid(let remaining):
            throw OTPService.invalidCode(remaining: remaining)
        }
    }

    /// Decodes a body, giving the enum fields their own codes.
    package static func decode<T: Decodable>(_ type: T.Type, from request: inout Request, limit: Int) async throws -> T {
        do {
            return try await request.decodeJSON(T.self, limit: limit)
        } catch let error as AppError where error.code == .fieldInvalid {
            switch error.field {
            case "sendType": throw AppError.invalidSendType(field: error.field, detail: error.detail)
            case "purpose": throw AppError.invalidPurpose(field: error.field, detail: error.detail)
            default: throw error
            }
        }
    }
}

extension TesseraContext {
    /// The authenticated client; the client middleware guarantees it on app routes.
    package func requireClient() throws -> Client {
        guard let client else { throw AppError.clientKeyMissing() }
        return client
    }
}
