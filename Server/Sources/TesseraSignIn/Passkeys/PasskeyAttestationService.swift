import Foundation
import TesseraCore
import TesseraWebAuthn
import X509

/// Each client's rules for new passkeys' authenticators (W3C WebAuthn Level 3 §7.1 steps 21–24): attestation
/// `none` (any authenticator) or `required` (a chain to the client's trust roots, or to the model's roots in the
/// FIDO metadata), and the allowed models (AAGUIDs). Set by the admin, checked strictly.
package struct PasskeyAttestationService: Sendable {
    package let database: any Database
    package let repository: any PasskeyAttestationRepository
    package let clock: WallClock

    /// What a client's registrations are verified with.
    package struct Rules: Sendable {
        /// The options' `attestation` (`none` or `direct`).
        package var conveyance: String
        /// The trust roots; nil: attestation not required.
        package var roots: [Certificate]?
        /// The models accepted; nil: any.
        package var allowedAAGUIDs: Set<[UInt8]>?

        package static let open = Rules(conveyance: "none", roots: nil, allowedAAGUIDs: nil)
    }

    package init(database: any Database, repository: any PasskeyAttestationRepository = SQLPasskeyAttestationRepository(), clock: WallClock) {
        self.database = database
        self.repository = repository
        self.clock = clock
    }

    static let maxRoots = 10, maxAAGUIDs = 100

    package func settings(client: Client) async throws -> PasskeyAttestationSettings {
        let repository = self.repository
        return try await database.read { sql in try await repository.settings(clientId: client.id, in: sql) }
    }

    /// Replaces the client's settings after checking each member (1005 naming the first wrong one); AAGUIDs are
    /// stored as 32 lowercase hex digits, duplicates dropped.
    package func set(_ settings: PasskeyAttestationSettings, client: Client) async throws -> PasskeyAttestationSettings {
        let checked = try Self.checked(settings), repository = self.repository, now = clock.now()
        try await database.transaction { sql in try await repository.save(clientId: client.id, settings: checked, now: now, in: sql) }
        return checked
    }

    /// The client's rules (one read).
    package func rules(clientId: String) async throws -> Rules {
        let repository = self.repository
        let settings = try await database.read { sql in try await repository.settings(clientId: clientId, in: sql) }
        let allowed = settings.allowedAAGUIDs.isEmpty ? nil : Set(settings.allowedAAGUIDs.compactMap(AAGUID.bytes))
        guard settings.attestation == "required" else { return Rules(conveyance: "none", roots: nil, allowedAAGUIDs: allowed) }
        return Rules(conveyance: "direct", roots: settings.trustRoots.compactMap { try? Certificate(pemEncoded: $0) }, allowedAAGUIDs: allowed)
    }

    static func checked(_ settings: PasskeyAttestationSettings) throws -> PasskeyAttestationSettings {
        guard ["none", "required"].contains(settings.attestation) else {
            throw AppError.invalidField("attestation", "attestation must be none or required")
        }
        guard settings.trustRoots.count <= maxRoots else { throw AppError.invalidField("trustRoots", "trustRoots holds at most \(maxRoots) certificates") }
        guard settings.allowedAAGUIDs.count <= maxAAGUIDs else {
            throw AppError.invalidField("allowedAAGUIDs", "allowedAAGUIDs holds at most \(maxAAGUIDs) AAGUIDs")
        }
        var result = PasskeyAttestationSettings(attestation: settings.attestation)
        for (index, pem) in settings.trustRoots.enumerated() {
            let trimmed = pem.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.utf8.count <= 16_384, (try? Certificate(pemEncoded: trimmed)) != nil else {
                throw AppError.invalidField("trustRoots[\(index)]", "trustRoots[\(index)] must be one PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
            if !result.trustRoots.contains(trimmed) { result.trustRoots.append(trimmed) }
        }
        for (index, aaguid) in settings.allowedAAGUIDs.enumerated() {
            guard let bytes = AAGUID.bytes(aaguid) else {
                throw AppError.invalidField("allowedAAGUIDs[\(index)]", "allowedAAGUIDs[\(index)] must be an AAGUID: 32 hex digits, dashes allowed")
            }
            let hex = AAGUID.hex(bytes)
            if !result.allowedAAGUIDs.contains(hex) { result.allowedAAGUIDs.append(hex) }
        }
        return result
    }
}
