import Foundation
import SQLKit
import TesseraCore

/// Storage of App Attest at enrolment, in the tables of AppAttest/: the challenges issued before a device exists
/// (`app_attest_enrolment_challenges`) and the evidence the verifier nodes are sent (`app_attest_keys`'s attestation
/// object and challenge, stored with the key by ``AppAttestRepository/storeKey(_:attestationObject:challenge:in:)``).
/// Methods take the caller's database handle.
package protocol AppAttestEnrolmentRepository: Sendable {
    /// Stores an enrolment challenge of `clientId` (by its hash).
    func insertChallenge(hash: String, clientId: String, createdAt: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws
    /// Marks the enrolment challenge `hash` of `clientId` used when it is unused and not expired at `now`: exactly one
    /// caller gets ``AppAttestChallengeUse/consumed``.
    func consumeChallenge(hash: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws -> AppAttestChallengeUse
    /// Deletes enrolment challenges that expired before `before` (the janitor).
    func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws
    /// The evidence of those of `deviceIds` whose key has it, by device ID.
    func evidence(deviceIds: [String], in sql: any SQLDatabase) async throws -> [String: AppAttestEvidence]
}

/// An attested key's evidence, as stored for the verifier nodes.
package struct AppAttestEvidence: Sendable, Equatable {
    /// The key ID, base64url (as stored).
    package var keyId: [UInt8]
    /// The attestation object.
    package var attestationObject: [UInt8]
    /// The challenge it was made for.
    package var challenge: [UInt8]
}

/// ``AppAttestEnrolmentRepository`` over SQLKit (SQLite and PostgreSQL).
package struct SQLAppAttestEnrolmentRepository: AppAttestEnrolmentRepository {
    /// The repository.
    package init() {}

    private struct ChallengeState: Decodable {
        var used_at: Int64?
    }

    private struct EvidenceRow: Decodable {
        var device_id: String
        var key_id: String
        var attestation_object: String
        var challenge: String
    }

    package func insertChallenge(hash: String, clientId: String, createdAt: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw(
            """
            INSERT INTO app_attest_enrolment_challenges (id, client_id, created_at, expires_at)
            VALUES (\(bind: hash), \(bind: clientId), \(bind: createdAt), \(bind: expiresAt))
            """
        ).run()
    }

    package func consumeChallenge(hash: String, clientId: String, now: Int64, in sql: any SQLDatabase) async throws -> AppAttestChallengeUse {
        // One statement decides, as for the device's challenges (SQLAppAttestRepository.consumeChallenge).
        let consumed = try await sql.raw(
            """
            UPDATE app_attest_enrolment_challenges SET used_at = \(bind: now)
            WHERE id = \(bind: hash) AND client_id = \(bind: clientId) AND used_at IS NULL AND expires_at > \(bind: now)
            RETURNING id
            """
        ).first()
        if consumed != nil { return .consumed }
        guard let state = try await sql.raw(
            "SELECT used_at FROM app_attest_enrolment_challenges WHERE id = \(bind: hash) AND client_id = \(bind: clientId)"
        ).first(decoding: ChallengeState.self) else { return .unknown }
        return state.used_at == nil ? .expired : .used
    }

    package func purgeChallenges(before: Int64, in sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM app_attest_enrolment_challenges WHERE expires_at < \(bind: before)").run()
    }

    package func evidence(deviceIds: [String], in sql: any SQLDatabase) async throws -> [String: AppAttestEvidence] {
        guard !deviceIds.isEmpty else { return [:] }
        let binds: [any Encodable & Sendable] = deviceIds
        var found: [String: AppAttestEvidence] = [:]
        for row in try await sql.raw(
            """
            SELECT device_id, key_id, attestation_object, challenge FROM app_attest_keys
            WHERE device_id IN (\(binds: binds)) AND attestation_object IS NOT NULL AND challenge IS NOT NULL
            """
        ).all(decoding: EvidenceRow.self) {
            guard let keyId = Data(base64URLEncoded: row.key_id), let object = Data(base64Encoded: row.attestation_object),
                  let challenge = Data(base64URLEncoded: row.challenge)
            else { throw AppError.internalError(detail: "the App Attest evidence stored for device \(row.device_id) does not decode") }
            found[row.device_id] = AppAttestEvidence(keyId: Array(keyId), attestationObject: Array(object), challenge: Array(challenge))
        }
        return found
    }
}
