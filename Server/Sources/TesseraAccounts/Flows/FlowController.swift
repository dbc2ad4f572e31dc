import Hummingbird
import TesseraCore

/// The registration flow's routes (client key and bundle identifier, like every app call).
package struct FlowController<Context: TesseraContext> {
    package let flows: RegistrationFlowService
    package let bodyLimit: Int

    package init(flows: RegistrationFlowService, bodyLimit: Int) {
        self.flows = flows
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to app: RouterGroup<Context>) {
        app.post("flows/registration") { _, context in
            try Response.json(try await flows.create(client: try context.requireClient(), ip: context.remoteAddress), status: .created)
        }
        app.get("flows/registration/{flowId}") { _, context in
            try Response.json(try await flows.get(client: try context.requireClient(), flowId: try context.parameters.require("flowId")))
        }
        app.post("flows/registration/{flowId}/phone") { request, context in
            var request = request
            let body = try await request.decodeJSON(FlowPhoneRequest.self, limit: bodyLimit)
            return try Response.json(
                try await flows.sendPhoneCode(
                    client: try context.requireClient(), flowId: try context.parameters.require("flowId"), phoneNumber: body.phoneNumber,
                    ip: context.remoteAddress
                ),
                status: .created
            )
        }
        app.post("flows/registration/{flowId}/phone/verify") { request, context in
            var request = request
            let body = try await request.decodeJSON(FlowVerifyRequest.self, limit: bodyLimit)
            return try Response.json(
                try await flows.verifyPhone(client: try context.requireClient(), flowId: try context.parameters.require("flowId"), code: body.otp)
            )
        }
        app.post("flows/registration/{flowId}/finish") { request, context in
            var request = request
            let body = try await request.decodeJSON(FlowFinishRequest.self, limit: bodyLimit)
            return try Response.json(
                try await flows.finish(client: try context.requireClient(), flowId: try context.parameters.require("flowId"), request: body)
            )
        }
    }
}
