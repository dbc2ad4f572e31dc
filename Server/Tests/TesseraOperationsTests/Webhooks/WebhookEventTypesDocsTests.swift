import Foundation
import Testing
@testable import TesseraServer

/// Every webhook event type that is an audit event is documented where operators look: in docs/audit-log.md's table
/// of event types and in the README's list of webhook events; the types of `device.app_attest.*` are among them.
@Suite("Webhook event types in the docs")
struct WebhookEventTypesDocsTests {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("each audit event type a webhook can subscribe to is in docs/audit-log.md and the README")
    func documented() throws {
        let auditLog = try String(contentsOf: Self.root.appendingPathComponent("docs/audit-log.md"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let audited = WebhookEventTypes.all.filter { $0 != WebhookEventTypes.test && $0 != WebhookEventTypes.endpointDisabled }
        #expect(audited.contains("device.app_attest.attested") && audited.contains("device.app_attest.failed"))
        for type in audited {
            #expect(auditLog.contains("| `\(type)` |"), "docs/audit-log.md lacks \(type)")
            #expect(readme.contains("`\(type)`"), "README.md lacks \(type)")
        }
        #expect(WebhookEventTypes.isValid("device.app_attest.*"))
        #expect(WebhookEventTypes.matches(["device.*"], "device.app_attest.failed"))
    }
}
