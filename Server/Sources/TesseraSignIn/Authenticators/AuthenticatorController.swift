import Hummingbird
import TesseraCore

/// Authenticator routes, signed by the device key, and the client's policy for the SDK.
package struct AuthenticatorController<Context: TesseraContext> {
    package let authenticators: AuthenticatorService
    package let login: AuthenticatorLoginService
    package let bodyLimit: Int

    package init(authenticators: AuthenticatorService, login: AuthenticatorLoginService, bodyLimit: Int) {
        self.authenticators = authenticators
        self.login = login
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(app: RouterGroup<Context>, signed: RouterGroup<Context>) {
        app.get("policy") { _, context in
            try Response.json(try await authenticators.policies.policy(clientId: try context.requireClient().id))
        }
        signed.post("authenticators") { request, context in
            var request = request
            let body = try await request.decodeJSON(AuthenticatorRegistrationRequest.self, limit: bodyLimit)
            return try Response.json(
                try await authenticators.register(body, deviceId: try context.requireDevice(), client: try context.requireClient()), status: .created
            )
        }
        signed.post("authenticator-challenges") { request, context in
            var request = request
            let body = try await request.decodeJSON(AuthenticatorChallengeRequest.self, limit: bodyLimit)
            let challenge = try await login.challenge(
                body, deviceId: try context.requireDevice(), client: try context.requireClient(), signed: context.signedDevice
            )
            return try Response.json(challenge, status: .created)
        }
        signed.post("authenticator-logins") { request, context in
            var request = request
            let body = try await request.decodeJSON(AuthenticatorAuthenticationRequest.self, limit: bodyLimit)
            return Response.json(try await login.authenticate(
                body, deviceId: try context.requireDevice(), client: try context.requireClient(), signed: context.signedDevice
            ))
        }
        signed.get("authenticators") { _, context in
            try Response.json(try await authenticators.list(deviceId: try context.requireDevice()))
        }
        signed.delete("authenticators/{authenticatorId}") { _, context in
            try await authenticators.delete(id: try context.parameters.require("authenticatorId"), deviceId: try context.requireDevice())
            return Response(status: .noContent)
        }
    }
}

extension TesseraContext {
    /// The device whose signature the middleware verified.
    package func requireDevice() throws -> String {
        guard let deviceId else { throw AppError.signatureMissing() }
        return deviceId
    }
}
