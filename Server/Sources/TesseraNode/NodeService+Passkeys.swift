import Crypto
import Foundation
import SQLKit
import TesseraCore
import TesseraHTTPKit
import TesseraWebAuthn

/// Passkeys at a node (issue 38): the node keeps each passkey's public key, RP ID, origins and its own
/// signature counter, and verifies a forwarded assertion on its own (W3C WebAuthn Level 3 §7.2 against
/// what it holds), so that a server alone cannot mint a passkey sign-in.
extension NodeService {
    /// How old a challenge may be (its first 8 bytes are the server's time), and how far ahead of the node's clock.
    static let passkeyChallengeAge: Int64 = 600_000
    static let passkeyChallengeLead: Int64 = 60_000

    /// Stores passkey records in one transaction, a receipt or a refusal per record (a revocation is
    /// permanent; another key for a known passkey is refused with 5105).
    func storeAllPasskeys(_ records: [NodePasskeyRecord]) async throws -> [Result<NodeReceipt, AppError>] {
        let passkeys = self.passkeys
        return try await storeBatch(records, statement: AuthStatement.passkeyReceipt) { record, now, sql in
            try await Self.store(record, now: now, passkeys: passkeys, in: sql)
        }
    }

    private static func store(
        _ record: NodePasskeyRecord, now: Int64, passkeys: any NodePasskeyRepository, in sql: any SQLDatabase
    ) async throws -> (id: String, status: String, digest: String) {
        guard record.status == "active" || record.status == "revoked" else { throw AppError.invalidField("status", "status must be active or revoked") }
        guard let key = Base64URL.decode(record.publicKey), (try? COSEKey(try CBORDecoder().decode(key))) != nil else {
            throw AppError.invalidField("publicKey", "publicKey must be a COSE_Key (base64url) of ES256, EdDSA or RS256")
        }
        guard !record.rpId.isEmpty, !record.origins.isEmpty, record.origins.allSatisfy({ !$0.contains(" ") }),
              Base64URL.decode(record.credentialId) != nil, Base64URL.decode(record.userHandle) != nil
        else { throw AppError.invalidField("rpId", "rpId, origins, credentialId and userHandle must be given") }
        if let known = try await passkeys.passkey(id: record.passkeyId, in: sql), known.keysDigest != record.keysDigest {
            throw AppError.nodeKeyConflict()
        }
        if record.status == "revoked" {
            try await passkeys.revoke(record, now: now, in: sql)
        } else {
            try await passkeys.enrol(record, now: now, in: sql)
        }
        guard let stored = try await passkeys.passkey(id: record.passkeyId, in: sql) else { throw AppError.internalError }
        return (record.passkeyId, stored.record.status, stored.keysDigest)
    }

    /// Verifies a forwarded assertion against this node's own record of the passkey and, when it holds,
    /// signs an attestation: an unknown passkey is 5101, a revoked one 5102, anything that does not verify
    /// (signature, RP ID, origin, challenge, flags, a counter that did not grow, a challenge that is stale or
    /// was attested before) 5103.
    func attestPasskey(_ request: NodePasskeyAttestRequest) async throws -> NodePasskeyAttestation {
        let passkeys = self.passkeys, now = clock.now()
        guard let stored = try await database.read({ sql in try await passkeys.passkey(id: request.passkeyId, in: sql) }) else {
            throw AppError.nodeDeviceUnknown()
        }
        guard stored.record.status == "active" else { throw AppError.nodeDeviceRevoked() }
        guard let challenge = Base64URL.decode(request.challenge), challenge.count == 32 else { throw AppError.nodeSignatureInvalid() }
        let issuedAt = challenge.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard issuedAt >= now - Self.passkeyChallengeAge, issuedAt <= now + Self.passkeyChallengeLead else { throw AppError.nodeSignatureInvalid() }
        let verified: VerifiedAssertion
        do {
            func bytes(_ text: String) throws(WebAuthnError) -> [UInt8] {
                guard let bytes = Base64URL.decode(text) else { throw .malformed("not base64url") }
                return bytes
            }
            let credentialId = try bytes(stored.record.credentialId)
            let policy = RelyingPartyPolicy(
                rpId: stored.record.rpId, origins: Set(stored.record.origins), requireUserVerification: request.requireUserVerification
            )
            verified = try WebAuthnVerifier(policy: policy).verifyAssertion(
                credentialId: credentialId, clientDataJSON: try bytes(request.clientDataJSON), authenticatorData: try bytes(request.authenticatorData),
                signature: try bytes(request.signature), userHandle: try request.userHandle.map { text throws(WebAuthnError) in try bytes(text) },
                challenge: challenge,
                credential: CredentialRecord(
                    credentialId: credentialId, publicKeyBytes: try bytes(stored.record.publicKey), signCount: UInt32(clamping: stored.signCount),
                    userHandle: try bytes(stored.record.userHandle)
                ),
                allowCredentials: request.userHandle == nil ? [credentialId] : nil
            )
        } catch {
            throw AppError.nodeSignatureInvalid()
        }
        let count = Int64(verified.signCount)
        let fresh = try await database.transaction { sql in
            try await passkeys.purgeChallenges(before: now, in: sql)
            guard try await passkeys.useChallenge(request.challenge, expiresAt: issuedAt + Self.passkeyChallengeAge + Self.passkeyChallengeLead, in: sql) else {
                return false
            }
            if count == stored.signCount { return true }
            return try await passkeys.advance(id: request.passkeyId, from: stored.signCount, to: count, now: now, in: sql)
        }
        guard fresh else { throw AppError.nodeSignatureInvalid() }
        let statement = AuthStatement.passkeyAttestation(
            nodeId: identity.nodeId, passkeyId: request.passkeyId, challenge: request.challenge, signCount: count, signedAt: now
        )
        return NodePasskeyAttestation(nodeId: identity.nodeId, signCount: count, signedAt: now, signature: try identity.sign(statement))
    }
}
