/// What the console's live view receives (`GET /v1/admin/events`): an audit row (`event: audit`, the
/// row as the audit listing gives it, `id:` its sequence number) or a keep-alive (`event: ping`, `{}`),
/// sent after about 15 quiet seconds so that a closed connection is noticed.
package enum ConsoleLiveEvent: Encodable, Sendable {
    case entry(AuditEntry)
    case ping

    /// The `event:` field.
    package var name: String {
        switch self {
        case .entry: "audit"
        case .ping: "ping"
        }
    }

    /// The `id:` field (the row's sequence number), so a reconnecting EventSource resumes after it.
    package var id: String? {
        switch self {
        case .entry(let entry): String(entry.seq)
        case .ping: nil
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .entry(let entry): try entry.encode(to: encoder)
        case .ping:
            var container = encoder.singleValueContainer()
            try container.encode([String: String]())
        }
    }
}
