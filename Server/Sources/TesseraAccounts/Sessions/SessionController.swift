import Crypto
import Hummingbird
import TesseraCore

/// Session routes: password log-in (app), the device-key registration that completes a log-in,
/// who am I, log-out, and listing and revoking one's own sessions.
package struct SessionController<Context: TesseraContext> {
    package let sessions: SessionService
    package let devices: SessionDeviceService
    package let login: PasswordLoginService
    package let bodyLimit: Int

    package init(sessions: SessionService, devices: SessionDeviceService, login: PasswordLoginService, bodyLimit: Int) {
        self.sessions = sessions
        self.devices = devices
        self.login = login
        self.bodyLimit = bodyLimit
    }

    /// - Parameters:
    ///   - app: client-key routes; `pending`: sessions with or without a device; `live`: sessions with a device.
    package func addRoutes(app: RouterGroup<Context>, pending: RouterGroup<Context>, live: RouterGroup<Context>) {
        app.post("login/password") { request, context in
            var request = request
            let body = try await request.decodeJSON(PasswordLoginRequest.self, limit: bodyLimit)
            return try Response.json(
                try await login.login(client: try context.requireClient(), identifier: body.identifier, password: body.password, ip: context.remoteAddress)
            )
        }
        pending.put("session/device") { request, context in
            var request = request
            let session = try context.requireSession()
            let body = try await request.decodeSelfSigned(
                SessionDeviceRequest.self, limit: bodyLimit, database: sessions.database, clock: sessions.clock
            ) { try P256.Signing.PublicKey(x963Base64: $0.devicePublicKey, field: "devicePublicKey") }
            // The session middleware let the request in with its bearer token: the secret an attestation's challenge
            // may be derived from (the session registers one device key).
            let token = request.headers.value(.authorization).map { String($0.dropFirst(7)) }
            return try Response.json(
                try await devices.register(body, session: session, sessionToken: token, client: try context.requireClient()), status: .created
            )
        }
        pending.delete("session") { _, context in
            let session = try context.requireSession()
            try await sessions.revoke(id: session.id, userId: nil, by: session.auditActor)
            return Response(status: .noContent)
        }
        live.get("session") { _, context in
            try Response.json(try await sessions.current(try context.requireSession()))
        }
        live.get("sessions") { _, context in
            let session = try context.requireSession()
            return try Response.json(try await sessions.list(userId: session.userId, currentId: session.id))
        }
        live.delete("sessions/{sessionId}") { _, context in
            let session = try context.requireSession()
            try await sessions.revoke(id: try context.parameters.require("sessionId"), userId: session.userId, by: session.auditActor)
            return Response(status: .noContent)
        }
    }
}
