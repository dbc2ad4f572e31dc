import Hummingbird
import TesseraCore

/// The signed `PUT /v1/devices/push-token`: a device gives its current push token and provider
/// (the SDK's `updatePushToken(_:platform:)`), so relying-party requests wake it instead of waiting
/// for its next poll.
struct PushDeviceController<Context: TesseraContext> {
    let devices: any DevicePushTokens
    let bodyLimit: Int

    func addRoutes(signed: RouterGroup<Context>) {
        signed.put("push-token") { request, context in
            guard let deviceId = context.deviceId else { throw AppError(.signatureMissing, .unauthorized, "Signed request required") }
            var request = request
            let update = try await request.decodeJSON(PushTokenUpdate.self, limit: bodyLimit)
            try AppError.checkLengths([("token", update.token, 4096)])
            try await devices.setPushToken(deviceId: deviceId, token: update.token, platform: update.platform)
            return Response(status: .noContent)
        }
    }
}
