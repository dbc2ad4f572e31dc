import Foundation
import Hummingbird
import TesseraCore

/// The user's own passkeys, from their registered device (calls signed by the device key, RFC 9421):
/// `GET /v1/devices/passkeys`, `PATCH /v1/devices/passkeys/{passkeyId}` (`{"name": …}`) and
/// `DELETE /v1/devices/passkeys/{passkeyId}`. Only the passkeys of the device's user at its client.
package struct PasskeyController<Context: TesseraContext> {
    package let passkeys: PasskeyService
    package let bodyLimit: Int

    package init(passkeys: PasskeyService, bodyLimit: Int) {
        self.passkeys = passkeys
        self.bodyLimit = bodyLimit
    }

    /// A rename's body.
    struct Rename: Decodable {
        var name: String
    }

    package func addRoutes(signed: RouterGroup<Context>) {
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

    /// The signing device (with its user) and its client.
    static func owner(_ context: Context) throws -> (DeviceAuthTarget, Client) {
        guard let device = context.signedDevice else { throw AppError.signatureMissing() }
        return (device, try context.requireClient())
    }
}
