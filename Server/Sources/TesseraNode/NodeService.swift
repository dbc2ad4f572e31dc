import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore
import TesseraHTTPKit

/// A verifier node: its own key, its own registry of device public keys, and the two things it
/// does — store what the server tells it about a device (with a signed receipt) and attest that a
/// device signed a channel's challenge, checked against its own registry only.
///
/// It runs inside `tessera node` only (over HTTP); the server's zero-config embedded nodes are
/// `tessera node` child processes too, so the server never holds a node's key.
struct NodeService: Sendable {
    let identity: NodeIdentity
    let database: any Database
    let clock: WallClock
    /// The registry's storage (`node_devices`).
    var registry: any NodeRegistryRepository = SQLNodeRegistryRepository()
    /// The passkeys' storage (`node_passkeys`, `node_passkey_challenges`).
    var passkeys: any NodePasskeyRepository = SQLNodePasskeyRepository()

    /// Opens the node's registry in `directory` (`registry.sqlite`; in memory when `nil`).
    static func open(directory: String, inMemory: Bool = false, clock: WallClock = .system, logger: Logger) async throws -> NodeService {
        let identity = try NodeIdentity.loadOrCreate(directory: directory)
        let database = try await SQLiteDatabase.open(
            path: inMemory ? nil : (directory as NSString).appendingPathComponent("registry.sqlite"), logger: logger
        )
        try await Migration.apply(NodeMigrations.all, to: database)
        return NodeService(identity: identity, database: database, clock: clock)
    }

    var info: NodeInfo {
        get async throws {
            let registry = self.registry
            let count = try await database.withSQL { sql in try await registry.count(in: sql) }
            return NodeInfo(nodeId: identity.nodeId, publicKey: identity.publicKeyBase64, devices: count)
        }
    }

    /// Stores a device's keys or its revocation. A revocation is permanent: replaying an older
    /// enrolment cannot bring the device back. Different keys for a known device are refused.
    func store(_ record: NodeDeviceRecord) async throws -> NodeReceipt {
        switch try await storeAll([record])[0] {
        case .success(let receipt): return receipt
        case .failure(let error): throw error
        }
    }

    /// Stores several records in one transaction (``store(_:)`` for each), with a result per record:
    /// a record that is refused does not keep the others from being stored.
    func storeAll(_ records: [NodeDeviceRecord]) async throws -> [Result<NodeReceipt, AppError>] {
        let registry = self.registry
        return try await storeBatch(records, statement: AuthStatement.receipt) { record, now, sql in
            try await Self.store(record, now: now, registry: registry, in: sql)
        }
    }

    /// Stores a batch in one transaction with `store` (what the record is for, the status now held, the digest
    /// vouched for) and signs a receipt (`statement`: node, ID, status, digest, time) for each record stored; a
    /// refused record does not keep the others from being stored.
    func storeBatch<Record: Sendable>(
        _ records: [Record], statement: @escaping @Sendable (_ nodeId: String, _ id: String, _ status: String, _ digest: String, _ at: Int64) -> Data,
        store: @escaping @Sendable (Record, Int64, any SQLDatabase) async throws -> (id: String, status: String, digest: String)
    ) async throws -> [Result<NodeReceipt, AppError>] {
        let now = clock.now()
        let stored: [Result<(id: String, status: String, digest: String), AppError>] = try await database.transaction { sql in
            var results: [Result<(id: String, status: String, digest: String), AppError>] = []
            for record in records {
                do {
                    results.append(.success(try await store(record, now, sql)))
                } catch let error as AppError {
                    results.append(.failure(error))
                }
            }
            return results
        }
        return try stored.map { result in
            switch result {
            case .failure(let error): return .failure(error)
            case .success(let stored):
                let signed = statement(identity.nodeId, stored.id, stored.status, stored.digest, now)
                return .success(NodeReceipt(
                    nodeId: identity.nodeId, deviceId: stored.id, status: stored.status, keysDigest: stored.digest, signedAt: now,
                    signature: try identity.sign(signed)
                ))
            }
        }
    }

    /// One record inside the caller's transaction. Keys are compared before anything is written, so a
    /// refused record leaves the registry as it was.
    private static func store(
        _ record: NodeDeviceRecord, now: Int64, registry: any NodeRegistryRepository, in sql: any SQLDatabase
    ) async throws -> (id: String, status: String, digest: String) {
        guard record.status == "active" || record.status == "revoked" else {
            throw AppError.invalidField("status", "status must be active or revoked")
        }
        guard P256.Signing.PublicKey(x963Base64: record.deviceKey) != nil, P256.Signing.PublicKey(x963Base64: record.userVerificationKey) != nil else {
            throw AppError.invalidField("deviceKey", "deviceKey and userVerificationKey must be P-256 public keys (X9.63, base64)")
        }
        if let known = try await registry.keys(deviceId: record.deviceId, in: sql) {
            guard known.deviceKey == record.deviceKey, known.userVerificationKey == record.userVerificationKey else { throw AppError.nodeKeyConflict() }
        }
        if record.status == "revoked" {
            try await registry.revoke(record, now: now, in: sql)
        } else {
            try await registry.enrol(record, now: now, in: sql)
        }
        guard let status = try await registry.status(deviceId: record.deviceId, in: sql) else { throw AppError.internalError }
        return (record.deviceId, status, record.keysDigest)
    }

    /// Checks the device's signature over the channel's challenge against this node's registry and,
    /// if it holds, signs an attestation.
    func attest(_ request: NodeAttestRequest) async throws -> NodeAttestation {
        let registry = self.registry
        let stored = try await database.read { sql in try await registry.deviceKey(deviceId: request.deviceId, in: sql) }
        guard let stored, let key = P256KeyCache.shared.key(x963Base64: stored.deviceKey) else {
            throw AppError.nodeDeviceUnknown()
        }
        guard stored.status == "active" else {
            throw AppError.nodeDeviceRevoked()
        }
        let message = AuthStatement.challenge(channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge)
        guard let raw = Data(base64Encoded: request.challengeSignature),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              key.isValidSignature(signature, for: message)
        else {
            throw AppError.nodeSignatureInvalid()
        }
        let now = clock.now()
        let statement = AuthStatement.attestation(
            nodeId: identity.nodeId, channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge, signedAt: now
        )
        return NodeAttestation(nodeId: identity.nodeId, signedAt: now, signature: try identity.sign(statement))
    }

    func close() async { await database.close() }
}
