import Hummingbird
import TesseraCore

/// The signed `PUT /v1/devices/push-token`: a device gives its current push token and provider
/// (the SDK's `updatePushToken(_:platform:)`), so relying-party requests wake it instead of waiting
/// for its next poll. A UnifiedPush token is an endpoint URL: it is taken only under one of the
/// calling client's allowed prefixes (8003 otherwise), so the server never POSTs elsewhere.
package struct PushDeviceController<Context: TesseraContext> {
    package let devices: any DevicePushTokens
    package let push: any PushRepository
    package let bodyLimit: Int
    package let clock: WallClock

    package init(devices: any DevicePushTokens, push: any PushRepository, bodyLimit: Int, clock: WallClock) {
        self.devices = devices
        self.push = push
        self.bodyLimit = bodyLimit
        self.clock = clock
    }

    package func addRoutes(signed: RouterGroup<Context>) {
        signed.put("push-token") { request, context in
            guard let deviceId = context.deviceId else { throw AppError.signatureMissing() }
            var request = request
            let update = try await request.decodeJSON(PushTokenUpdate.self, limit: bodyLimit)
            try AppError.checkLengths([("token", update.token, 4096)])
            if update.platform == .unifiedpush, !update.token.isEmpty {
                guard let client = context.client, let settings = try await push.settings(clientId: client.id), settings.provider == .unifiedpush,
                      UnifiedPushClient.allows(update.token, prefixes: settings.view.allowedEndpoints ?? [])
                else {
                    throw AppError.pushEndpointNotAllowed(field: "token")
                }
            }
            try await devices.setPushToken(deviceId: deviceId, token: update.token, platform: update.platform, at: clock.now())
            return Response(status: .noContent)
        }
    }
}
