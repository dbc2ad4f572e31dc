import Foundation

/// One security event a service appends to the audit log (``AuditLog/append(_:in:)``), inside the
/// transaction that makes the change. It names things by their IDs only: never an e-mail address, a
/// phone number, a name, a code, a token or a secret.
public struct AuditEvent: Sendable, Equatable {
    /// A stable dotted name (`user.signed_up`, `otp.failed`, `admin.client.disabled`, …).
    public var type: String
    /// Who did it: `admin`, `device:<id>`, `client:<key>` or `system`.
    public var actor: String
    public var clientId: String?
    public var userId: String?
    public var deviceId: String?
    public var sessionId: String?
    /// A few IDs or outcomes (the nodes of an attestation, a failure code); stored as JSON with sorted keys.
    public var details: [String: String]

    public init(
        _ type: String, actor: String, clientId: String? = nil, userId: String? = nil, deviceId: String? = nil, sessionId: String? = nil,
        details: [String: String] = [:]
    ) {
        self.type = type
        self.actor = actor
        self.clientId = clientId
        self.userId = userId
        self.deviceId = deviceId
        self.sessionId = sessionId
        self.details = details
    }

    /// The encoder of ``detailsJSON``, made once (its options never change after this).
    private static let detailsEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// `details` as stored and hashed: a JSON object with sorted keys, no whitespace.
    package var detailsJSON: String {
        guard let data = try? Self.detailsEncoder.encode(details) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension AuditEvent {
    /// The actor of a call signed by a device.
    package static func device(_ deviceId: String) -> String { "device:\(deviceId)" }
    /// The actor of a relying party's call (its client key).
    package static func client(_ clientKey: String) -> String { "client:\(clientKey)" }
}
