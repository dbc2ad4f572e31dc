import Crypto
import Foundation
import Logging
import SQLKit
import TesseraCore
import TesseraHTTPKit
import X509

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
    /// The node's own check of a device's App Attest evidence (issue 41), with the node's trusted roots.
    let appAttest: NodeAppAttestCheck
    /// The registry's storage (`node_devices`).
    var registry: any NodeRegistryRepository = SQLNodeRegistryRepository()
    /// The passkeys' storage (`node_passkeys`, `node_passkey_challenges`).
    var passkeys: any NodePasskeyRepository = SQLNodePasskeyRepository()

    /// Opens the node's registry in `directory` (`registry.sqlite`; in memory when `nil`). App Attest evidence is
    /// verified against `appAttestRoots`, or Apple's App Attestation Root CA when nil.
    static func open(
        directory: String, inMemory: Bool = false, clock: WallClock = .system, appAttestRoots: [Certificate]? = nil, logger: Logger
    ) async throws -> NodeService {
        let appAttest = try NodeAppAttestCheck(trustedRoots: appAttestRoots)
        let identity = try NodeIdentity.loadOrCreate(directory: directory)
        let database = try await SQLiteDatabase.open(
            path: inMemory ? nil : (directory as NSString).appendingPathComponent("registry.sqlite"), logger: logger
        )
        try await Migration.apply(NodeMigrations.all, to: database)
        return NodeService(identity: identity, database: database, clock: clock, appAttest: appAttest)
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
    ///
    /// A record's App Attest evidence is verified first, outside the transaction (CPU only, a millisecond or two),
    /// and its outcome stored with the record; a failed verification does not refuse the record (the server decides
    /// the enrolment, the node only knows it holds no verified attestation).
    func storeAll(_ records: [NodeDeviceRecord]) async throws -> [Result<NodeReceipt, AppError>] {
        let registry = self.registry
        let now = clock.now()
        var checked: [CheckedRecord] = []
        checked.reserveCapacity(records.count)
        for record in records {
            checked.append(CheckedRecord(record: record, appAttest: await appAttest.outcome(for: record, now: now)))
        }
        return try await storeBatch(checked, statement: AuthStatement.receipt) { checked, now, sql in
            try await Self.store(checked.record, appAttest: checked.appAttest, now: now, registry: registry, in: sql)
        }
    }

    /// A record and the outcome of its App Attest evidence (nil: it carries none).
    private struct CheckedRecord: Sendable {
        var record: NodeDeviceRecord
        var appAttest: NodeAppAttestOutcome?
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
        _ record: NodeDeviceRecord, appAttest: NodeAppAttestOutcome?, now: Int64, registry: any NodeRegistryRepository, in sql: any SQLDatabase
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
        try await storeAppAttest(record, outcome: appAttest, registry: registry, in: sql)
        guard let status = try await registry.status(deviceId: record.deviceId, in: sql) else { throw AppError.internalError }
        return (record.deviceId, status, record.keysDigest)
    }

    /// Records a stored record's App Attest news: its client's requirement when the record states it (nil keeps the
    /// one held), and the outcome of its evidence. A verified outcome held for these keys is kept when the record
    /// carries no evidence (a re-sent record, a revocation) or evidence that fails now; a new verified one replaces it.
    private static func storeAppAttest(
        _ record: NodeDeviceRecord, outcome: NodeAppAttestOutcome?, registry: any NodeRegistryRepository, in sql: any SQLDatabase
    ) async throws {
        guard outcome != nil || record.appAttestRequired != nil else { return }
        let held = try await registry.appAttest(deviceId: record.deviceId, in: sql)
        let required = record.appAttestRequired ?? held?.required ?? false
        var kept = held?.outcome
        if let outcome, outcome.isVerified || kept?.isVerified != true { kept = outcome }
        try await registry.saveAppAttest(deviceId: record.deviceId, required: required, outcome: kept, in: sql)
    }

    /// Checks the device's signature over the channel's challenge against this node's registry and,
    /// if it holds, signs an attestation. When the device's client requires App Attest, only a device whose
    /// attestation the node verified is attested (else 7408); an attestation of such a device says so, signed.
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
        guard stored.appAttested || !stored.appAttestRequired else { throw AppError.nodeAppAttestMissing() }
        let now = clock.now()
        let statement = AuthStatement.attestation(
            nodeId: identity.nodeId, channelId: request.channelId, deviceId: request.deviceId, challenge: request.challenge, signedAt: now,
            appAttested: stored.appAttested
        )
        return NodeAttestation(
            nodeId: identity.nodeId, signedAt: now, signature: try identity.sign(statement), appAttested: stored.appAttested ? true : nil
        )
    }

    func close() async { await database.close() }
}
