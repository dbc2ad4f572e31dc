import SQLKit
import TesseraCore

/// A node's receipt for the state of a passkey.
package struct PasskeyNodeReceipt: Sendable, Equatable {
    package var nodeId: String
    package var passkeyId: String
    package var status: String
    package var keysDigest: String
    package var signedAt: Int64
    package var signature: String

    package init(nodeId: String, passkeyId: String, status: String, keysDigest: String, signedAt: Int64, signature: String) {
        self.nodeId = nodeId
        self.passkeyId = passkeyId
        self.status = status
        self.keysDigest = keysDigest
        self.signedAt = signedAt
        self.signature = signature
    }
}

/// What a node is sent about a passkey (the relying party's RP ID and origins are added from the settings).
package struct PasskeyNodeState: Sendable, Equatable, Decodable {
    package var id: String
    package var client_id: String
    package var user_id: String
    package var credential_id: String
    package var user_handle: String
    package var public_key: String
    /// `active` or `revoked`.
    package var status: String
}

/// What the nodes have acknowledged of the passkeys (`passkey_node_receipts`, owned here): the sync sends
/// each node what it has no receipt for. Methods take the caller's handle.
package protocol PasskeyNodeRepository: Sendable {
    /// Up to `limit` passkeys whose current state `nodeId` has not acknowledged (a revoked passkey only if the
    /// node had it active), with that state.
    func unsynced(nodeId: String, limit: Int, in sql: any SQLDatabase) async throws -> [PasskeyNodeState]
    /// Keeps receipts (a newer one replaces the node's earlier receipt for the passkey).
    func store(_ receipts: [PasskeyNodeReceipt], receivedAt: Int64, in sql: any SQLDatabase) async throws
    /// The receipts for a passkey, by node.
    func receipts(passkeyId: String, in sql: any SQLDatabase) async throws -> [PasskeyNodeReceipt]
}

/// ``PasskeyNodeRepository`` over SQLKit.
package struct SQLPasskeyNodeRepository: PasskeyNodeRepository {
    package init() {}

    package func unsynced(nodeId: String, limit: Int, in sql: any SQLDatabase) async throws -> [PasskeyNodeState] {
        try await sql.raw(
            """
            SELECT c.id, c.client_id, c.user_id, c.credential_id, c.user_handle, c.public_key, c.status FROM passkey_credentials c
            WHERE NOT EXISTS (SELECT 1 FROM passkey_node_receipts r WHERE r.node_id = \(bind: nodeId) AND r.passkey_id = c.id AND r.status = c.status)
              AND (c.status = 'active' OR EXISTS (
                SELECT 1 FROM passkey_node_receipts r WHERE r.node_id = \(bind: nodeId) AND r.passkey_id = c.id AND r.status = 'active'))
            ORDER BY c.created_at, c.id LIMIT \(bind: limit)
            """
        ).all(decoding: PasskeyNodeState.self)
    }

    package func store(_ receipts: [PasskeyNodeReceipt], receivedAt: Int64, in sql: any SQLDatabase) async throws {
        for r in receipts {
            try await sql.raw(
                """
                INSERT INTO passkey_node_receipts (node_id, passkey_id, status, keys_digest, signed_at, signature, received_at)
                VALUES (\(bind: r.nodeId), \(bind: r.passkeyId), \(bind: r.status), \(bind: r.keysDigest), \(bind: r.signedAt), \(bind: r.signature),
                        \(bind: receivedAt))
                ON CONFLICT (node_id, passkey_id) DO UPDATE SET status = \(bind: r.status), keys_digest = \(bind: r.keysDigest),
                    signed_at = \(bind: r.signedAt), signature = \(bind: r.signature), received_at = \(bind: receivedAt)
                """
            ).run()
        }
    }

    private struct ReceiptRow: Decodable {
        var node_id: String
        var passkey_id: String
        var status: String
        var keys_digest: String
        var signed_at: Int64
        var signature: String
    }

    package func receipts(passkeyId: String, in sql: any SQLDatabase) async throws -> [PasskeyNodeReceipt] {
        try await sql.raw(
            """
            SELECT node_id, passkey_id, status, keys_digest, signed_at, signature FROM passkey_node_receipts
            WHERE passkey_id = \(bind: passkeyId) ORDER BY node_id
            """
        ).all(decoding: ReceiptRow.self).map {
            PasskeyNodeReceipt(nodeId: $0.node_id, passkeyId: $0.passkey_id, status: $0.status, keysDigest: $0.keys_digest, signedAt: $0.signed_at, signature: $0.signature)
        }
    }
}
