import Hummingbird

/// Records each successful state change of the admin API (`POST`, `PUT`, `PATCH`, `DELETE` answered
/// 2xx) as an `admin.<action>` event by the actor `admin` (`admin:console` from the console, ``AdminActor``), naming the route's parameters (client
/// keys, node, device, session and authenticator IDs; never a body). Appended after the change's
/// own transaction committed, in one of its own: a change the server crashes between is missing
/// here; the in-transaction events (`device.revoked`, `session.revoked`) record the same change atomically.
package struct AdminAuditMiddleware<Context: TesseraContext>: RouterMiddleware {
    package let database: any Database
    package let audit: any AuditLog

    package init(database: any Database, audit: any AuditLog) {
        self.database = database
        self.audit = audit
    }

    /// Stable names for the admin API's changes, by method and route (parameters in braces).
    package static var actions: [String: String] {
        [
            "POST clients": "admin.client.created",
            "POST clients/{clientKey}/disable": "admin.client.disabled",
            "POST clients/{clientKey}/enable": "admin.client.enabled",
            "POST clients/{clientKey}/rotate-secret": "admin.client.secret_rotated",
            "PUT clients/{clientKey}/policy": "admin.client.policy_set",
            "POST nodes": "admin.node.added",
            "POST nodes/{nodeId}/disable": "admin.node.disabled",
            "POST nodes/{nodeId}/enable": "admin.node.enabled",
            "POST devices/{deviceId}/revoke": "admin.device.revoked",
            "DELETE sessions/{sessionId}": "admin.session.revoked",
            "DELETE authenticators/{authenticatorId}": "admin.authenticator.deleted",
            "DELETE passkeys/{passkeyId}": "admin.passkey.revoked",
            "PUT clients/{clientKey}/passkeys/app-links": "admin.client.passkey_app_links_set",
            "PUT clients/{clientKey}/passkeys/attestation": "admin.client.passkey_attestation_set",
            "PUT clients/{clientKey}/app-attest": "admin.client.app_attest_set",
            "POST keys/rotate": "admin.key.rotated",
            "POST totp/reset": "admin.totp.reset",
            "PUT clients/{clientKey}/push": "admin.client.push_set",
            "PUT clients/{clientKey}/oidc": "admin.client.oidc_set",
            "PUT clients/{clientKey}/ciba": "admin.client.ciba_set",
            "PUT clients/{clientKey}/ciba/channel": "admin.client.ciba_channel_set",
            "DELETE clients/{clientKey}/ciba/channel": "admin.client.ciba_channel_removed",
            "PUT clients/{clientKey}/keys": "admin.client.keys_set",
            "DELETE clients/{clientKey}/keys": "admin.client.keys_removed",
            "PUT clients/{clientKey}/oidc/logo": "admin.client.logo_set",
            "DELETE clients/{clientKey}/oidc/logo": "admin.client.logo_removed",
            "POST clients/{clientKey}/webhooks": "admin.webhook.created",
            "PATCH webhooks/{endpointId}": "admin.webhook.updated",
            "DELETE webhooks/{endpointId}": "admin.webhook.deleted",
            "POST webhooks/{endpointId}/rotate-secret": "admin.webhook.secret_rotated",
            "POST webhooks/{endpointId}/test": "admin.webhook.tested",
            "POST webhooks/{endpointId}/deliveries/{deliveryId}/redeliver": "admin.webhook.redelivered",
        ]
    }

    /// The event type of a change: its stable name, else `admin.` and the route's words.
    package static func action(method: String, route: String) -> String {
        if let known = actions["\(method) \(route)"] { return known }
        let words = route.split(separator: "/").filter { !$0.hasPrefix("{") }.map { $0.replacingOccurrences(of: "-", with: "_") }
        return (["admin", method.lowercased()] + words).joined(separator: ".")
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard request.method != .get, request.method != .head, (200..<300).contains(response.status.code) else { return response }
        var route = context.endpointPath ?? request.uri.path
        for prefix in ["/v1/admin/", "v1/admin/"] where route.hasPrefix(prefix) { route = String(route.dropFirst(prefix.count)) }
        var details: [String: String] = [:]
        for component in route.split(separator: "/") where component.hasPrefix("{") && component.hasSuffix("}") {
            let name = String(component.dropFirst().dropLast())
            if let value = context.parameters.get(name) { details[name] = String(value.prefix(200)) }
        }
        let event = AuditEvent(
            Self.action(method: request.method.rawValue, route: route), actor: AdminActor.current, deviceId: details["deviceId"],
            sessionId: details["sessionId"], details: details
        )
        let audit = self.audit
        try await database.transaction { sql in try await audit.append(event, in: sql) }
        return response
    }
}
