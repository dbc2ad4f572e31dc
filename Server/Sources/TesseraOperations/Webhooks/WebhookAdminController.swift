import Hummingbird
import TesseraCore

/// The webhook routes of the admin API (admin token): `…/clients/{clientKey}/webhooks` to create and
/// list a client's endpoints, `…/webhooks/{endpointId}` to show, change and delete one, rotate its
/// secret, list its deliveries, send a test event and redeliver one delivery.
package struct WebhookAdminController<Context: TesseraContext> {
    package let webhooks: WebhookAdminService
    package let bodyLimit: Int

    package init(webhooks: WebhookAdminService, bodyLimit: Int) {
        self.webhooks = webhooks
        self.bodyLimit = bodyLimit
    }

    package func addRoutes(to group: RouterGroup<Context>) {
        group.post("clients/{clientKey}/webhooks") { request, context in
            var request = request
            let body = try await request.decodeJSON(CreateWebhookRequest.self, limit: bodyLimit)
            return try Response.json(try await webhooks.create(clientKey: try context.parameters.require("clientKey"), body), status: .created)
        }
        group.get("clients/{clientKey}/webhooks") { _, context in
            try Response.json(try await webhooks.list(clientKey: try context.parameters.require("clientKey")))
        }
        group.get("webhooks/{endpointId}") { _, context in
            try Response.json(try await webhooks.endpoint(try context.parameters.require("endpointId")))
        }
        group.patch("webhooks/{endpointId}") { request, context in
            var request = request
            let body = try await request.decodeJSON(UpdateWebhookRequest.self, limit: bodyLimit)
            return try Response.json(try await webhooks.update(try context.parameters.require("endpointId"), body))
        }
        group.delete("webhooks/{endpointId}") { _, context in
            try await webhooks.delete(try context.parameters.require("endpointId"))
            return Response(status: .noContent)
        }
        group.post("webhooks/{endpointId}/rotate-secret") { _, context in
            try Response.json(try await webhooks.rotate(try context.parameters.require("endpointId")))
        }
        group.get("webhooks/{endpointId}/deliveries") { request, context in
            var limit = 50
            if let text = request.uri.queryParameters.get("limit") {
                guard let value = Int(text), (1...500).contains(value) else { throw AppError.invalidField("limit", "limit must be 1–500") }
                limit = value
            }
            let before = request.uri.queryParameters.get("before").map { String($0) }
            return try Response.json(try await webhooks.deliveries(try context.parameters.require("endpointId"), limit: limit, before: before))
        }
        group.post("webhooks/{endpointId}/test") { _, context in
            try Response.json(try await webhooks.sendTest(try context.parameters.require("endpointId")), status: .accepted)
        }
        group.post("webhooks/{endpointId}/deliveries/{deliveryId}/redeliver") { _, context in
            try Response.json(
                try await webhooks.redeliver(
                    endpointId: try context.parameters.require("endpointId"), deliveryId: try context.parameters.require("deliveryId")
                ),
                status: .accepted
            )
        }
    }
}
