import Crypto
import HTTPTypes
import Hummingbird
import TesseraCore

/// Re-registration (app calls; the registration itself signed by the new device key) and the
/// signed device calls.
package struct DeviceController<Context: TesseraContext> {
    package let service: DeviceRegistrationService
    package let bodyLimit: Int

    package init(service: DeviceRegistrationService, bodyLimit: Int) {
        self.service = service
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(app: RouterGroup<Context>, signed: RouterGroup<Context>) {
        app.post("devices/recovery/send-otp", use: sendRecoveryOTP)
        app.post("devices/register", use: register)
        signed.get("me", use: me)
    }

    @Sendable package func sendRecoveryOTP(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let body = try await OTPController<Context>.decode(RecoveryOTPRequest.self, from: &request, limit: bodyLimit)
        return try .json(try await service.sendRecoveryOTP(body, client: try context.requireClient(), ip: context.remoteAddress), status: .accepted)
    }

    /// Signed by the new device key (keyid = its thumbprint), exactly as sign-up.
    @Sendable package func register(_ request: Request, context: Context) async throws -> Response {
        var request = request
        let client = try context.requireClient()
        let body = try await request.decodeSelfSigned(
            RegisterDeviceRequest.self, limit: bodyLimit, database: service.database, clock: service.clock
        ) { try P256.Signing.PublicKey(x963Base64: $0.devicePublicKey, field: "devicePublicKey") }
        return try .json(try await service.register(body, client: client), status: .created)
    }

    @Sendable package func me(_ request: Request, context: Context) async throws -> Response {
        guard let deviceId = context.deviceId else { throw AppError.signatureMissing() }
        return try .json(try await service.info(deviceId: deviceId))
    }
}
