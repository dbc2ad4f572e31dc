import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// The user's own passkeys, from their registered device (calls signed by the device key, RFC 9421):
/// `GET /v1/devices/passkeys`, `PATCH /v1/devices/passkeys/{passkeyId}` (`{"name": …}`) and
/// `DELETE /v1/devices/passkeys/{passkeyId}`. Only the passkeys of the device's user at its client.
/// Passkeys made in the app, for the device's user: `POST /v1/devices/passkeys/registration/options` and
/// `POST /v1/devices/passkeys/registration/verify` (signed). A sign-in with one in the app:
/// `POST /v1/passkeys/authentication/options` and `POST /v1/passkeys/authentication/verify` (client key and bundle ID).
package struct PasskeyController<Context: TesseraContext> {
    package let passkeys: PasskeyService
    package let apps: PasskeyAppCeremonies
    package let bodyLimit: Int

    package init(passkeys: PasskeyService, apps: PasskeyAppCeremonies, bodyLimit: Int) {
        self.passkeys = passkeys
        self.apps = apps
        self.bodyLimit = bodyLimit
    }

    /// A rename's body.
    struct Rename: Decodable {
        var name: String
    }

    package func addRoutes(app: RouterGroup<Context>, signed: RouterGroup<Context>) {
        signed.post("passkeys/registration/options") { _, context in
            let (device, client) = try Self.owner(context)
            return Self.noStore(try Response.json(try await apps.registrationOptions(device: device, client: client)))
        }
        signed.post("passkeys/registration/verify") { request, context in
            var request = request
            let (device, client) = try Self.owner(context)
            let body = try await request.decodeJSON(PasskeyRegistrationBody.self, limit: bodyLimit)
            return try Response.json(try await apps.finishRegistration(device: device, client: client, body: body), status: .created)
        }
        app.post("passkeys/authentication/options") { request, context in
            let client = try context.requireClient()
            return Self.noStore(try Response.json(try await apps.authenticationOptions(client: client, bundleId: Self.bundleId(request))))
        }
        app.post("passkeys/authentication/verify") { request, context in
            var request = request
            let client = try context.requireClient()
            let body = try await request.decodeJSON(PasskeyAuthenticationBody.self, limit: bodyLimit)
            return Self.noStore(try Response.json(try await apps.signIn(client: client, bundleId: Self.bundleId(request), body: body)))
        }
        signed.get("passkeys") { _, context in
            let (device, client) = try Self.owner(context)
            return try Response.json(try await passkeys.list(userId: device.userId, client: client))
        }
        signed.patch("passkeys/{passkeyId}") { request, context in
            var request = request
            let (device, client) = try Self.owner(context)
            let body = try await request.decodeJSON(Rename.self, limit: bodyLimit)
            let id = try context.parameters.require("passkeyId")
            return try Response.json(try await passkeys.rename(id: id, userId: device.userId, client: client, name: body.name, actor: "device:\(device.deviceId)"))
        }
        signed.delete("passkeys/{passkeyId}") { _, context in
            let (device, _) = try Self.owner(context)
            try await passkeys.revoke(id: try context.parameters.require("passkeyId"), userId: device.userId, actor: "device:\(device.deviceId)")
            return Response(status: .noContent)
        }
    }

    /// The bundle ID the client middleware checked against the client's.
    static func bundleId(_ request: Request) -> String {
        HTTPField.Name(TesseraHeader.bundleId).flatMap { request.headers[$0] } ?? ""
    }

    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// The signing device (with its user) and its client.
    static func owner(_ context: Context) throws -> (DeviceAuthTarget, Client) {
        guard let device = context.signedDevice else { throw AppError.signatureMissing() }
        return (device, try context.requireClient())
    }
}
