import ArgumentParser
import Foundation
import TesseraCore

/// `tessera admin webhook …`: a client's webhook endpoints through the admin API. The `whsec_…`
/// secret is printed by `create` and `rotate` only, once.
struct WebhookAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Webhooks (Standard Webhooks): a client's endpoints, their deliveries, test events.",
        subcommands: [Create.self, List.self, Update.self, Rotate.self, Delete.self, Deliveries.self, Test.self, Redeliver.self]
    )

    static func show(_ endpoint: WebhookEndpointView) {
        let state = endpoint.enabled ? "enabled" : "disabled (\(endpoint.disabledReason ?? "admin"))"
        print("\(endpoint.id)  \(state)  \(endpoint.url)  [\(endpoint.eventTypes.joined(separator: " "))]  failures: \(endpoint.failureCount)")
    }

    static func show(_ delivery: WebhookDeliveryView) {
        let status = delivery.lastStatus.map { " HTTP \($0)" } ?? ""
        print("\(delivery.id)  \(delivery.eventId)  \(delivery.eventType)  \(delivery.status)  attempts: \(delivery.attempts)\(status)\(delivery.lastError.map { "  \($0)" } ?? "")")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an endpoint to a client; prints its signing secret (only now).")
        @Argument(help: "Client key.") var clientKey: String
        @Option(help: "The receiver's URL (https; http only to a loopback host unless webhooks.allowHttp).") var url: String
        @Option(name: .customLong("event"), help: "An event type (user.signed_up, login.*, * for all); repeat for more.") var events: [String] = ["*"]
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let created = try await AdminAPI.connect(options).send(
                .POST, "clients/\(pathComponent(clientKey))/webhooks", body: CreateWebhookRequest(url: url, eventTypes: events), as: WebhookEndpointWithSecret.self
            )
            if json { printJSON(created); return }
            WebhookAdminCommand.show(created.endpoint)
            print("secret: \(created.secret)   (shown once: give it to the receiver now)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a client's endpoints.")
        @Argument(help: "Client key.") var clientKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let list = try await AdminAPI.connect(options).get("clients/\(pathComponent(clientKey))/webhooks", as: WebhookEndpointList.self)
            if json { printJSON(list); return }
            if list.endpoints.isEmpty { print("no webhook endpoints") }
            list.endpoints.forEach(WebhookAdminCommand.show)
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change an endpoint's URL or event types, or enable or disable it.")
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @Option(help: "New URL.") var url: String?
        @Option(name: .customLong("event"), help: "Replace the event types (repeat for more).") var events: [String] = []
        @Flag(help: "Enable the endpoint (clears its failure count).") var enable = false
        @Flag(help: "Disable the endpoint.") var disable = false
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            guard !(enable && disable) else { throw ValidationError("give --enable or --disable, not both") }
            let body = UpdateWebhookRequest(url: url, eventTypes: events.isEmpty ? nil : events, enabled: enable ? true : (disable ? false : nil))
            let view = try await AdminAPI.connect(options).send(.PATCH, "webhooks/\(pathComponent(endpointId))", body: body, as: WebhookEndpointView.self)
            if json { printJSON(view) } else { WebhookAdminCommand.show(view) }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give an endpoint a new secret (printed once); the old one still signs for 24 hours."
        )
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let rotated = try await AdminAPI.connect(options).send(.POST, "webhooks/\(pathComponent(endpointId))/rotate-secret", as: WebhookEndpointWithSecret.self)
            if json { printJSON(rotated); return }
            WebhookAdminCommand.show(rotated.endpoint)
            print("secret: \(rotated.secret)   (shown once; the previous secret still signs until the overlap ends)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an endpoint and its delivery history.")
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @OptionGroup var options: AdminOptions

        func run() async throws {
            try await AdminAPI.connect(options).send(.DELETE, "webhooks/\(pathComponent(endpointId))")
            print("webhook endpoint deleted")
        }
    }

    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An endpoint's deliveries, newest first.")
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @Option(help: "Deliveries per page.") var limit = 50
        @Option(help: "The nextBefore of the previous page.") var before: String?
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            var query = ["limit": String(limit)]
            if let before { query["before"] = before }
            let page = try await AdminAPI.connect(options).get("webhooks/\(pathComponent(endpointId))/deliveries", query: query, as: WebhookDeliveryPage.self)
            if json { printJSON(page); return }
            if page.deliveries.isEmpty { print("no deliveries") }
            page.deliveries.forEach(WebhookAdminCommand.show)
            if let next = page.nextBefore { print("more: --before \(next)") }
        }
    }

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a webhook.test event to an endpoint.")
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let delivery = try await AdminAPI.connect(options).send(.POST, "webhooks/\(pathComponent(endpointId))/test", as: WebhookDeliveryView.self)
            if json { printJSON(delivery) } else { WebhookAdminCommand.show(delivery) }
        }
    }

    struct Redeliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send one delivery again (same webhook-id).")
        @Argument(help: "Endpoint ID (whe_…).") var endpointId: String
        @Argument(help: "Delivery ID (whd_…).") var deliveryId: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let delivery = try await AdminAPI.connect(options).send(
                .POST, "webhooks/\(pathComponent(endpointId))/deliveries/\(pathComponent(deliveryId))/redeliver", as: WebhookDeliveryView.self
            )
            if json { printJSON(delivery) } else { WebhookAdminCommand.show(delivery) }
        }
    }
}
