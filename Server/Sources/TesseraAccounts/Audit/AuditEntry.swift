/// A row of the audit log as the admin API lists and exports it (one JSON object; one line of the
/// JSONL export). `hash` covers exactly the stored fields (all but `clientKey` and `userKey`;
/// docs/audit-log.md gives the encoding), so a third party can recompute the chain from the export alone.
public struct AuditEntry: Codable, Sendable, Equatable {
    /// Position in the chain: 1, 2, 3, … without gaps.
    public var seq: Int64
    /// When it was appended, milliseconds since 1970.
    public var time: Int64
    public var type: String
    public var actor: String
    public var clientId: String?
    public var userId: String?
    public var deviceId: String?
    public var sessionId: String?
    /// The event's details as the JSON text that was hashed (an object of strings).
    public var details: String
    /// The previous row's `hash` (64 zeros before the first row), lowercase hex.
    public var prevHash: String
    /// SHA-256 over `prevHash`'s bytes and the canonical encoding of this row, lowercase hex.
    public var hash: String
    /// The client key (`tck_…`) of `clientId`, as the CLI and the console name the client. Looked up when the
    /// row is read, not stored nor hashed; absent when there is no client (or it no longer exists).
    public var clientKey: String?
    /// The user key of `userId`, as the users list names the user (unique within the client). Looked up when
    /// the row is read, not stored nor hashed; absent when there is no user (or it no longer exists).
    public var userKey: String?

    public init(
        seq: Int64, time: Int64, type: String, actor: String, clientId: String?, userId: String?, deviceId: String?, sessionId: String?,
        details: String, prevHash: String, hash: String, clientKey: String? = nil, userKey: String? = nil
    ) {
        self.seq = seq
        self.time = time
        self.type = type
        self.actor = actor
        self.clientId = clientId
        self.userId = userId
        self.deviceId = deviceId
        self.sessionId = sessionId
        self.details = details
        self.prevHash = prevHash
        self.hash = hash
        self.clientKey = clientKey
        self.userKey = userKey
    }
}

/// A page of the audit log (`GET /v1/admin/audit`): rows in sequence order, the `after` of the next
/// page, and the chain's head when the page was read (the last row's sequence and hash).
public struct AuditPage: Codable, Sendable {
    public var entries: [AuditEntry]
    /// Pass as `after` for the next page; absent on the last page.
    public var nextAfter: Int64?
    public var head: AuditHead

    public init(entries: [AuditEntry], nextAfter: Int64?, head: AuditHead) {
        self.entries = entries
        self.nextAfter = nextAfter
        self.head = head
    }
}

/// The end of the chain: the last row's sequence number (0 when empty) and hash.
public struct AuditHead: Codable, Sendable, Equatable {
    public var seq: Int64
    public var hash: String

    public init(seq: Int64, hash: String) {
        self.seq = seq
        self.hash = hash
    }
}
