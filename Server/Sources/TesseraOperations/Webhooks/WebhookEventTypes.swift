/// The event types a webhook endpoint can subscribe to: the audit log's client events, the test
/// event and the endpoint's own disabling. `*` subscribes to all, `prefix.*` to a family
/// (`login.*`).
package enum WebhookEventTypes {
    /// Sent by "send test event" to one endpoint.
    package static let test = "webhook.test"
    /// Appended to the audit log (and sent to the client's other endpoints) when an endpoint is disabled.
    package static let endpointDisabled = "webhook.endpoint_disabled"

    /// Every known type.
    package static let all: [String] = [
        "user.signed_up", "otp.sent", "otp.verified", "otp.failed", "otp.locked",
        "login.started", "login.attested", "login.completed", "login.failed",
        "device.enrolled", "device.revoked", "device.app_attest.attested", "device.app_attest.failed", "session.created", "session.revoked",
        "password.locked", "totp.failed", "totp.locked",
        "passkey.registered", "passkey.signed_in", "passkey.failed", "passkey.flagged", "passkey.renamed", "passkey.revoked", test, endpointDisabled,
    ]

    /// Whether `pattern` is `*`, a known type, or `family.*` of a known family.
    package static func isValid(_ pattern: String) -> Bool {
        if pattern == "*" || all.contains(pattern) { return true }
        guard pattern.hasSuffix(".*") else { return false }
        let family = pattern.dropLast(1)
        return all.contains { $0.hasPrefix(family) }
    }

    /// Whether an endpoint subscribed to `patterns` gets `type`.
    package static func matches(_ patterns: [String], _ type: String) -> Bool {
        patterns.contains { pattern in
            pattern == "*" || pattern == type || (pattern.hasSuffix(".*") && type.hasPrefix(pattern.dropLast(1)))
        }
    }
}
