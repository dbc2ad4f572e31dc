import Foundation
import SQLKit
import TesseraCore
import TesseraWebAuthn

/// Storage of App Attest state, the one owner of `app_attest_challenges` and `app_attest_keys`. Methods take the
/// caller's database handle.
package protocol AppAttestRepository: Sendable {
    /// Stores an issued challenge (by its hash).
    func insertChallenge(_ challenge: AppAttestChallengeRecord, in sql: any SQLDatabase) async throws
    /// Marks the challenge `hash` of `deviceId` used, when it is unused and not expired at `now`: exactly one
    /// caller gets ``AppAttestChallengeUse/consumed``; the others learn why not.
    func consumeChallenge(hash: String, deviceId: String, now: Int64, in sql: any SQLDatabase) async throws -> AppAttestChallengeUse
    /// Deletes challenges that expired before `before` (the janitor).
    func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws
    /// Stores the device's attested key (counter 0) with its attestation object and challenge, the evidence the verifier
    /// nodes are sent, replacing a key attested for the device before: one statement.
    func storeKey(_ key: AppAttestKeyRecord, attestationObject: [UInt8], challenge: [UInt8], in sql: any SQLDatabase) async throws
    /// The device's attested key, nil when it has none.
    func key(deviceId: String, in sql: any SQLDatabase) async throws -> AppAttestKeyRecord?
    /// The attested keys of those of `deviceIds` that have one, by device ID (the admin's device view).
    func keys(deviceIds: [String], in sql: any SQLDatabase) async throws -> [String: AppAttestKeyRecord]
    /// Stores `counter` for the device when it is greater than the stored one (a compare-and-set:
    /// `UPDATE … SET counter = new WHERE device_id = ? AND counter < new`); false when no row changed, because
    /// another assertion stored an equal or greater counter first (or the device has no key).
    func advanceCounter(deviceId: String, to counter: UInt32, in sql: any SQLDatabase) async throws -> Bool
}

/// An issued App Attest challenge, as stored: its SHA-256 (hex), never the challenge.
package struct AppAttestChallengeRecord: Sendable, Equatable {
    /// SHA-256 of the challenge's 32 bytes, lowercase hex.
    package var hash: String
    /// The device it was issued to.
    package var deviceId: String
    /// Issued at, milliseconds since 1970.
    package var createdAt: Int64
    /// Usable until (exclusive), milliseconds since 1970.
    package var expiresAt: Int64

    /// A challenge record.
    package init(hash: String, deviceId: String, createdAt: Int64, expiresAt: Int64) {
        self.hash = hash
        self.deviceId = deviceId
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What consuming a challenge found.
package enum AppAttestChallengeUse: Sendable, Equatable {
    /// This call used it.
    case consumed
    /// No challenge of this device has this hash.
    case unknown
    /// Used already (by an earlier or a concurrent call).
    case used
    /// Expired unused.
    case expired
}

/// A device's attested App Attest key.
package struct AppAttestKeyRecord: Sendable, Equatable {
    /// The device.
    package var deviceId: String
    /// The key ID, SHA-256 of ``publicKey``.
    package var keyId: [UInt8]
    /// The P-256 public key, uncompressed X9.62.
    package var publicKey: [UInt8]
    /// The counter of the last accepted assertion (0 after the attestation).
    package var counter: UInt32
    /// The environment it was attested in.
    package var environment: AppAttestEnvironment
    /// Apple's receipt.
    package var receipt: [UInt8]
    /// Attested at, milliseconds since 1970.
    package var attestedAt: Int64

    /// A key record.
    package init(
        deviceId: String, keyId: [UInt8], publicKey: [UInt8], counter: UInt32, environment: AppAttestEnvironment, receipt: [UInt8],
        attestedAt: Int64
    ) {
        self.deviceId = deviceId
        self.keyId = keyId
        self.publicKey = publicKey
        self.counter = counter
        self.environment = environment
        self.receipt = receipt
        self.attestedAt = attestedAt
    }
}

/// ``AppAttestRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLAppAttestRepository: AppAttestRepository {
    /// The repository.
    package init() {}

    private struct ChallengeState: Decodable {
        var used_at: Int64?
    }

    private struct KeyRow: Decodable {
        var device_id: String
        var key_id: String
        var public_key: String
        var counter: Int64
        var environment: String
        var receipt: String
        var attested_at: Int64
    }

    package func insertChallenge(_ challenge: AppAttestChallengeRecord, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO app_attest_challenges (id, device_id, created_at, expires_at)
            VALUES (\(bind: challenge.hash), \(bind: challenge.deviceId), \(bind: challenge.createdAt), \(bind: challenge.expiresAt))
            """
        ).run()
    }

    package func consumeChallenge(hash: String, deviceId: String, now: Int64, in sql: any SQLDatabase) async throws -> AppAttestChallengeUse {
        // One statement decides: on PostgreSQL a concurrent UPDATE of the row waits and re-checks `used_at IS NULL`,
        // on SQLite writes are serial; either way one caller sets it.
        let consumed = try await sql.raw(
            """
            UPDATE app_attest_challenges SET used_at = \(bind: now)
            WHERE id = \(bind: hash) AND device_id = \(bind: deviceId) AND used_at IS NULL AND expires_at > \(bind: now)
            RETURNING id
            """
        ).first()
        if consumed != nil { return .consumed }
        guard let state = try await sql.raw(
            "SELECT used_at FROM app_attest_challenges WHERE id = \(bind: hash) AND device_id = \(bind: deviceId)"
        ).first(decoding: ChallengeState.self) else { return .unknown }
        return state.used_at == nil ? .expired : .used
    }

    package func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM app_attest_challenges WHERE expires_at < \(bind: before)").run()
    }

    package func storeKey(_ key: AppAttestKeyRecord, attestationObject: [UInt8], challenge: [UInt8], in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO app_attest_keys (device_id, key_id, public_key, counter, environment, receipt, attested_at, attestation_object, challenge)
            VALUES (\(bind: key.deviceId), \(bind: Self.base64URL(key.keyId)), \(bind: Self.base64URL(key.publicKey)),
                    \(bind: Int64(key.counter)), \(bind: key.environment.rawValue), \(bind: Data(key.receipt).base64EncodedString()),
                    \(bind: key.attestedAt), \(bind: Data(attestationObject).base64EncodedString()), \(bind: Self.base64URL(challenge)))
            ON CONFLICT (device_id) DO UPDATE SET key_id = excluded.key_id, public_key = excluded.public_key, counter = excluded.counter,
                environment = excluded.environment, receipt = excluded.receipt, attested_at = excluded.attested_at,
                attestation_object = excluded.attestation_object, challenge = excluded.challenge
            """
        ).run()
    }

    package func key(deviceId: String, in sql: any SQLDatabase) async throws -> AppAttestKeyRecord? {
        guard let row = try await sql.raw(
            """
            SELECT device_id, key_id, public_key, counter, environment, receipt, attested_at
            FROM app_attest_keys WHERE device_id = \(bind: deviceId)
            """
        ).first(decoding: KeyRow.self) else { return nil }
        return try Self.record(row)
    }

    package func keys(deviceIds: [String], in sql: any SQLDatabase) async throws -> [String: AppAttestKeyRecord] {
        guard !deviceIds.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = deviceIds
        var keys: [String: AppAttestKeyRecord] = [:]
        for row in try await sql.raw(
            """
            SELECT device_id, key_id, public_key, counter, environment, receipt, attested_at
            FROM app_attest_keys WHERE device_id IN (\(binds: binds))
            """
        ).all(decoding: KeyRow.self) {
            keys[row.device_id] = try Self.record(row)
        }
        return keys
    }

    /// The record of a stored row (an internal error when it does not decode).
    private static func record(_ row: KeyRow) throws -> AppAttestKeyRecord {
        guard let keyId = Data(base64URLEncoded: row.key_id), let publicKey = Data(base64URLEncoded: row.public_key),
              let receipt = Data(base64Encoded: row.receipt), let environment = AppAttestEnvironment(rawValue: row.environment),
              let counter = UInt32(exactly: row.counter)
        else { throw AppError.internalError(detail: "the App Attest key stored for device \(row.device_id) does not decode") }
        return AppAttestKeyRecord(
            deviceId: row.device_id, keyId: Array(keyId), publicKey: Array(publicKey), counter: counter, environment: environment,
            receipt: Array(receipt), attestedAt: row.attested_at
        )
    }

    package func advanceCounter(deviceId: String, to counter: UInt32, in sql: any SQLDatabase) async throws -> Bool {
        let new = Int64(counter)
        // A sign-in approval's hot path: a statement with `?` placeholders (no serialiser at each call).
        return try await sql.statement(
            "UPDATE app_attest_keys SET counter = ? WHERE device_id = ? AND counter < ? RETURNING device_id", new, deviceId, new
        ).first() != nil
    }

    private static func base64URL(_ bytes: [UInt8]) -> String { Data(bytes).base64URLEncodedString() }
}
