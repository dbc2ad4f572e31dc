import Foundation
import Hummingbird
import TesseraCore

/// App Attest for the signing device (issue 41), calls signed by the device key (RFC 9421), for clients whose App
/// Attest policy is not `off` (else 403, 7406):
/// - `POST /v1/devices/app-attest/challenge`: a single-use challenge (32 bytes, base64url, 5 minutes) for this device;
/// - `POST /v1/devices/app-attest/attestation` (``AppAttestAttestationRequest``): verifies Apple's attestation of the
///   app's key against the client's app and stores the key (201, the device's ``AppAttestDeviceState``);
/// - `POST /v1/devices/app-attest/assertion` (``AppAttestAssertionRequest``): verifies an assertion of the stored key
///   and stores its counter (``AppAttestAssertionResult``);
///
/// and, with the client headers only (no device yet), `POST /v1/app-attest/challenge`
/// (``AppAttestEnrolmentChallengeRequest``): a challenge for the attestation sent with the enrolment of a device key
/// (`appAttest` of sign-up, re-registration and a session's device key), bound to that key.
package struct AppAttestController<Context: TesseraContext> {
    /// Challenges, attestations and assertions.
    package let service: AppAttestService
    /// The clients' policies and apps.
    package let settings: AppAttestSettingsService
    /// The largest body read.
    package let bodyLimit: Int

    /// A controller.
    package init(service: AppAttestService, settings: AppAttestSettingsService, bodyLimit: Int) {
        self.service = service
        self.settings = settings
        self.bodyLimit = bodyLimit
    }

    /// Adds the routes to `app` (`/v1`, the client headers) and `signed` (`/v1/devices`, signed by a device).
    package func addRoutes(app: RouterGroup<Context>, signed: RouterGroup<Context>) {
        app.post("app-attest/challenge") { request, context in
            var request = request
            let client = try context.requireClient()
            _ = try await settings.app(clientId: client.id)
            let body = try await request.decodeJSON(AppAttestEnrolmentChallengeRequest.self, limit: bodyLimit)
            var response = try Response.json(try await service.enrolmentChallenge(
                clientId: client.id, devicePublicKey: body.devicePublicKey, ip: context.remoteAddress
            ))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        signed.post("app-attest/challenge") { _, context in
            let device = try Self.device(context)
            _ = try await settings.app(clientId: device.clientId)
            var response = try Response.json(try await service.challenge(for: device.deviceId, deviceKey: Array(device.deviceKey.x963Representation)))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        signed.post("app-attest/attestation") { request, context in
            var request = request
            let device = try Self.device(context)
            let app = try await settings.app(clientId: device.clientId)
            let body = try await request.decodeJSON(AppAttestAttestationRequest.self, limit: bodyLimit)
            let keyId = try AppAttestService.bytes(body.keyId, field: "keyId"), object = try AppAttestService.bytes(body.attestationObject, field: "attestationObject")
            try await service.attest(deviceId: device.deviceId, keyId: keyId, attestationObject: object, challenge: body.challenge, app: app)
            return try Response.json(try await service.state(deviceId: device.deviceId), status: .created)
        }
        signed.post("app-attest/assertion") { request, context in
            var request = request
            let device = try Self.device(context)
            let app = try await settings.app(clientId: device.clientId)
            let body = try await request.decodeJSON(AppAttestAssertionRequest.self, limit: bodyLimit)
            let assertion = try AppAttestService.bytes(body.assertion, field: "assertion"), clientData = try AppAttestService.bytes(body.clientData, field: "clientData")
            let counter = try await service.verifyAssertion(
                deviceId: device.deviceId, assertion: assertion, clientData: clientData, challenge: body.challenge, app: app
            )
            return try Response.json(AppAttestAssertionResult(counter: Int64(counter)))
        }
    }

    /// The signing device, when it is the calling client's (3007 when another client's).
    static func device(_ context: Context) throws -> DeviceAuthTarget {
        guard let device = context.signedDevice else { throw AppError.signatureMissing() }
        guard device.clientId == (try context.requireClient()).id else { throw AppError.deviceUnknown() }
        return device
    }
}
