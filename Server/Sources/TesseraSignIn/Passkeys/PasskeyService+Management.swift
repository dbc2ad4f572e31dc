import TesseraCore
import TesseraWebAuthn

/// Listing, renaming and revoking passkeys: the admin API and the CLI, and the user's own device (signed calls).
extension PasskeyService {
    /// The user's active passkeys at `client`, oldest first.
    package func list(userId: String, client: Client) async throws -> PasskeyList {
        let repository = self.repository
        let records = try await database.read { sql in try await repository.list(userId: userId, clientId: client.id, in: sql) }
        return PasskeyList(passkeys: records.map { $0.info(clientKey: client.clientKey) })
    }

    /// Renames a passkey of `userId` (1–64 characters, no control characters): its new description. 7303 when the
    /// user has no such active passkey.
    package func rename(id: String, userId: String, client: Client, name: String, actor: String) async throws -> PasskeyInfo {
        let name = try Self.name(name), repository = self.repository, audit = self.audit
        return try await database.transaction { sql in
            guard try await repository.rename(id: id, userId: userId, name: name, in: sql),
                  let renamed = try await repository.list(userId: userId, clientId: client.id, in: sql).first(where: { $0.id == id })
            else { throw AppError.passkeyUnknown() }
            try await audit.append([AuditEvent(
                "passkey.renamed", actor: actor, clientId: client.id, userId: userId, details: ["passkey": id]
            )], in: sql)
            return renamed.info(clientKey: client.clientKey)
        }
    }

    /// Revokes a passkey (of `userId` when given): it signs in no more. 7303 when there is no such active passkey.
    package func revoke(id: String, userId: String?, actor: String) async throws {
        let repository = self.repository, audit = self.audit, now = clock.now()
        try await database.transaction { sql in
            guard let revoked = try await repository.revoke(id: id, userId: userId, now: now, in: sql) else { throw AppError.passkeyUnknown() }
            try await audit.append([AuditEvent(
                "passkey.revoked", actor: actor, clientId: revoked.clientId, userId: revoked.userId, details: ["passkey": revoked.id]
            )], in: sql)
        }
        await syncNodes()
    }
}

extension PasskeyCredential {
    /// The wire form.
    func info(clientKey: String) -> PasskeyInfo {
        PasskeyInfo(
            id: id, clientKey: clientKey, name: name, credentialId: credentialId,
            algorithm: COSEKey.Algorithm(rawValue: Int64(algorithm))?.name ?? "\(algorithm)", aaguid: aaguid, backupEligible: backupEligible,
            backedUp: backedUp, attestationFormat: attestationFormat, transports: transports, createdAt: createdAt, lastUsedAt: lastUsedAt,
            flaggedAt: flaggedAt, authenticatorName: AuthenticatorNames.name(aaguid: aaguid)
        )
    }
}
