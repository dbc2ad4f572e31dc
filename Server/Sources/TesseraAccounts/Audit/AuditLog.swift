import SQLKit

/// What to list from the audit log (`GET /v1/admin/audit`).
package struct AuditQuery: Sendable {
    /// Rows after this sequence number.
    package var after: Int64 = 0
    /// Only this event type.
    package var type: String?
    /// Only rows naming this ID as client, user, device or session, or naming the client of this client key or a
    /// user with this user key.
    package var subject: String?
    /// Only rows appended at or after this time (ms).
    package var since: Int64?
    package var limit = 100
    /// Fill in each row's client key and user key (``AuditEntry/clientKey``); off for the chain's verification,
    /// which reads only the hashed fields.
    package var named = true

    package init(
        after: Int64 = 0,
        type: String? = nil,
        subject: String? = nil,
        since: Int64? = nil,
        limit: Int = 100,
        named: Bool = true
    ) {
        self.after = after
        self.type = type
        self.subject = subject
        self.since = since
        self.limit = limit
        self.named = named
    }
}

/// The audit log, the one owner of `audit_log`, `audit_head`, `audit_pending` and `audit_checkpoints`:
/// an append-only, hash-chained record of security events. A service appends inside the transaction
/// that makes the change. On PostgreSQL the append is deferred (``AuditSequencer``) and the reads
/// chain what is pending before they read.
package protocol AuditLog: Sendable {
    /// Appends `events` in order (one locking read of the head, one INSERT, one UPDATE of the head),
    /// inside the caller's transaction, stamped with the injected clock.
    func append(_ events: [AuditEvent], in sql: any SQLDatabase) async throws
    /// Rows in sequence order, with their subjects' keys when `query.named`. On PostgreSQL every event
    /// committed before the call is chained first (``AuditSequencer/settle()``, in a transaction of its own).
    func entries(_ query: AuditQuery, in sql: any SQLDatabase) async throws -> [AuditEntry]
    /// The last row's sequence number and hash, after chaining what is pending (as ``entries(_:in:)``).
    func head(in sql: any SQLDatabase) async throws -> AuditHead
    /// Stores a checkpoint; a second one for the same row and key is ignored.
    func insert(_ checkpoint: AuditCheckpoint, in sql: any SQLDatabase) async throws
    /// The newest checkpoint's sequence number (nil when there is none).
    func lastCheckpointSeq(in sql: any SQLDatabase) async throws -> Int64?
    /// Every checkpoint, in sequence order.
    func checkpoints(in sql: any SQLDatabase) async throws -> [AuditCheckpoint]
    /// The append of a batch's events (one per request, in the batch's order) as a write of a statement that another
    /// owner composes (``ComposedWrite``: an event exists exactly when its request was selected), where appends are
    /// deferred (PostgreSQL: `audit_pending`); nil where they cannot be composed (SQLite chains at once; a webhook
    /// subscribed to one of the events is queued by statements of its own): the caller then appends in a transaction.
    func composedAppend(_ events: [AuditEvent], in sql: any SQLDatabase) async throws -> ComposedWrite?
    /// Signalled after this process appends (nil: readers poll only).
    var appended: AuditAppendSignal? { get }
    /// What chains deferred appends (PostgreSQL); nil where appends chain at once.
    var sequencer: AuditSequencer? { get }
}

extension AuditLog {
    /// Readers poll only.
    package var appended: AuditAppendSignal? { nil }
    /// Appends chain at once.
    package var sequencer: AuditSequencer? { nil }

    /// Not composed: the caller appends in a transaction.
    package func composedAppend(_ events: [AuditEvent], in sql: any SQLDatabase) async throws -> ComposedWrite? { nil }

    /// Appends one event inside the caller's transaction.
    package func append(_ event: AuditEvent, in sql: any SQLDatabase) async throws {
        try await append([event], in: sql)
    }
}
