import Crypto
import Foundation
import SQLKit
import TesseraCore
import TesseraWebAuthn

/// Passkeys (issue 38): the registration and authentication ceremonies of W3C WebAuthn Level 3
/// (§7.1, §7.2) for Tessera's own origin. Each ceremony's challenge is 32 bytes from the CSPRNG,
/// single use, bound to what started it and expiring on the injected clock; a failed finish uses
/// it up as well. Every outcome goes to the audit log.
package struct PasskeyService: Sendable {
    package let database: any Database
    package let repository: any PasskeyRepository
    package let audit: any AuditLog
    package let settings: PasskeySettings
    package let random: RandomSource
    package let clock: WallClock
    /// The verifier nodes: told about every passkey, and asked to verify the sign-ins of clients whose
    /// policy says `passkeyNodeVerification` (nil: no nodes, such a client cannot sign in by passkey).
    package let nodes: PasskeyNodes?
    /// The clients' policies (whether a client requires node verification).
    package let policies: ClientPolicyRepository?
    /// The clients' Android apps, whose origins (`android:apk-key-hash:…`) a ceremony may carry.
    package let appLinks: PasskeyAppLinksService?
    /// The clients' rules for new passkeys' authenticators (attestation, allowed models).
    package let attestation: PasskeyAttestationService?

    package init(
        database: any Database, repository: any PasskeyRepository, audit: any AuditLog, settings: PasskeySettings, random: RandomSource, clock: WallClock,
        nodes: PasskeyNodes? = nil, policies: ClientPolicyRepository? = nil, appLinks: PasskeyAppLinksService? = nil,
        attestation: PasskeyAttestationService? = nil
    ) {
        self.database = database
        self.repository = repository
        self.audit = audit
        self.settings = settings
        self.random = random
        self.clock = clock
        self.nodes = nodes
        self.policies = policies
        self.appLinks = appLinks
        self.attestation = attestation
    }

    /// What a passkey sign-in established.
    package struct SignIn: Sendable, Equatable {
        package var userId: String
        package var credential: PasskeyCredential
        package var userVerified: Bool
        /// RFC 8176: `swk` for a synced (backup-eligible) passkey, `hwk` for a device-bound one; `user` for presence.
        package var amr: [String]
        /// The nodes that verified the assertion on their own (empty when the client does not require them).
        package var nodes: [String] = []
    }

    var verifier: WebAuthnVerifier { verifier(adding: []) }

    /// The verifier for the server's origins and `origins`, with a client's `rules` for new passkeys.
    func verifier(adding origins: Set<String>, rules: PasskeyAttestationService.Rules = .open) -> WebAuthnVerifier {
        WebAuthnVerifier(policy: RelyingPartyPolicy(
            rpId: settings.rpId, origins: settings.origins.union(origins), requireUserVerification: settings.requireUserVerification,
            attestationRoots: rules.roots, allowedAAGUIDs: rules.allowedAAGUIDs, metadata: settings.metadata
        ))
    }

    /// The client's rules for new passkeys (open when no attestation service is configured).
    func rules(_ client: Client) async throws -> PasskeyAttestationService.Rules {
        try await attestation?.rules(clientId: client.id) ?? .open
    }

    /// Runs a verification with the server's origins, and once more with an Android app's origin when the response
    /// came from one of the client's Android apps (their origins are read only then).
    func verifying<T>(
        client: Client, rules: PasskeyAttestationService.Rules = .open, _ body: (WebAuthnVerifier) async throws -> T
    ) async throws -> T {
        do {
            return try await body(verifier(adding: [], rules: rules))
        } catch WebAuthnError.wrongOrigin(let origin) where origin.hasPrefix("android:apk-key-hash:") {
            guard let appLinks, try await appLinks.androidOrigins(clientId: client.id).contains(origin) else { throw WebAuthnError.wrongOrigin(origin) }
            return try await body(verifier(adding: [origin], rules: rules))
        }
    }

    private var userVerification: String { settings.requireUserVerification ? "required" : "preferred" }

    // MARK: Registration (§7.1)

    /// Options to create a passkey for `userId` (its existing passkeys excluded); the challenge's ID
    /// comes back with the response.
    package func registrationOptions(
        client: Client, userId: String, userName: String, displayName: String, binding: String
    ) async throws -> (challengeId: String, options: PasskeyJSON.CreationOptions) {
        try requireAvailable()
        let now = clock.now(), challenge = Base64URL.encode(random.bytes(32)), candidate = Base64URL.encode(random.bytes(32))
        let record = PasskeyChallenge(
            id: random.identifier(prefix: "pkc_"), clientId: client.id, ceremony: .registration, userId: userId, binding: binding,
            challenge: challenge, createdAt: now, expiresAt: now + settings.challengeLifetime
        )
        let repository = self.repository, conveyance = try await rules(client).conveyance
        let (handle, existing) = try await database.transaction { sql in
            let handle = try await repository.userHandle(clientId: client.id, userId: userId, candidate: candidate, now: now, in: sql)
            let existing = try await repository.list(userId: userId, clientId: client.id, in: sql)
            try await repository.insertChallenge(record, in: sql)
            return (handle, existing)
        }
        return (record.id, PasskeyJSON.CreationOptions(
            challenge: challenge, rp: .init(id: settings.rpId, name: settings.rpName),
            user: .init(id: handle, name: userName, displayName: displayName),
            pubKeyCredParams: COSEKey.Algorithm.allCases.map { .init(alg: Int($0.rawValue)) }, timeout: Int(settings.challengeLifetime),
            excludeCredentials: existing.map(\.descriptor),
            authenticatorSelection: .init(userVerification: userVerification), attestation: conveyance
        ))
    }

    /// Verifies a registration response and stores the passkey.
    package func finishRegistration(
        client: Client, challengeId: String, binding: String, response: PasskeyJSON.RegistrationResponse, name: String?
    ) async throws -> PasskeyCredential {
        let challenge = try await consume(challengeId, client: client, binding: binding, ceremony: .registration)
        guard let userId = challenge.userId else { throw AppError.passkeyChallengeInvalid() }
        let verified: VerifiedRegistration
        do {
            guard response.type == "public-key" else { throw WebAuthnError.malformed("type is not public-key") }
            let clientData = try Self.bytes(response.response.clientDataJSON, "response.clientDataJSON")
            let attestation = try Self.bytes(response.response.attestationObject, "response.attestationObject")
            let expected = try Self.bytes(challenge.challenge, "challenge"), time = Date(timeIntervalSince1970: Double(clock.now()) / 1000)
            let rules = try await rules(client)
            verified = try await verifying(client: client, rules: rules) { verifier in
                try await verifier.verifyRegistration(clientDataJSON: clientData, attestationObject: attestation, challenge: expected, time: time)
            }
            guard Base64URL.decode(response.rawId) == verified.credentialId else { throw WebAuthnError.malformed("rawId is not the attested credential ID") }
        } catch let error as WebAuthnError {
            try await failed(error, client: client, userId: userId, ceremony: .registration)
            throw AppError.passkeyInvalid(detail: "\(error.code): \(error)")
        }
        let now = clock.now(), candidate = Base64URL.encode(random.bytes(32))
        var credential = PasskeyCredential(
            id: random.identifier(prefix: "pk_"), clientId: client.id, userId: userId, credentialId: Base64URL.encode(verified.credentialId),
            userHandle: "", publicKey: Base64URL.encode(verified.publicKeyBytes), algorithm: Int(verified.algorithm.rawValue),
            signCount: Int64(verified.signCount), aaguid: AAGUID.hex(verified.aaguid),
            backupEligible: verified.backupEligible, backedUp: verified.backedUp, attestationFormat: verified.attestationFormat,
            attestationType: verified.attestationType.name, transports: Self.transports(response.response.transports),
            name: try Self.name(name, aaguid: verified.aaguid), createdAt: now
        )
        let repository = self.repository, audit = self.audit
        do {
            credential.userHandle = try await database.transaction { [credential] sql in
                var credential = credential
                credential.userHandle = try await repository.userHandle(clientId: client.id, userId: userId, candidate: candidate, now: now, in: sql)
                try await repository.insert(credential, in: sql)
                try await audit.append([AuditEvent(
                    "passkey.registered", actor: "client:\(client.clientKey)", clientId: client.id, userId: userId,
                    details: ["passkey": credential.id, "aaguid": credential.aaguid, "backupEligible": "\(credential.backupEligible)"]
                )], in: sql)
                return credential.userHandle
            }
        } catch let error where UniqueViolation.detail(of: error) != nil {
            try await failed("credential_exists", client: client, userId: userId, ceremony: .registration)
            throw AppError.passkeyExists()
        }
        await syncNodes()
        return credential
    }

    // MARK: Authentication (§7.2)

    /// Options to sign in with a passkey: usernameless (`userId` nil, any discoverable passkey of the
    /// client) or for a known user (its passkeys in `allowCredentials`).
    package func authenticationOptions(client: Client, userId: String?, binding: String) async throws -> (challengeId: String, options: PasskeyJSON.RequestOptions) {
        try requireAvailable()
        let now = clock.now(), challenge = Base64URL.encode(Self.timed(now) + random.bytes(24))
        let record = PasskeyChallenge(
            id: random.identifier(prefix: "pkc_"), clientId: client.id, ceremony: .authentication, userId: userId, binding: binding,
            challenge: challenge, createdAt: now, expiresAt: now + settings.challengeLifetime
        )
        let repository = self.repository
        let allowed = try await database.transaction { sql in
            try await repository.insertChallenge(record, in: sql)
            guard let userId else { return [PasskeyCredential]() }
            return try await repository.list(userId: userId, clientId: client.id, in: sql)
        }
        return (record.id, PasskeyJSON.RequestOptions(
            challenge: challenge, timeout: Int(settings.challengeLifetime), rpId: settings.rpId,
            allowCredentials: allowed.map(\.descriptor), userVerification: userVerification
        ))
    }

    /// Verifies an assertion; on success records the counter and returns who signed in.
    package func finishAuthentication(
        client: Client, challengeId: String, binding: String, response: PasskeyJSON.AuthenticationResponse
    ) async throws -> SignIn {
        let challenge = try await consume(challengeId, client: client, binding: binding, ceremony: .authentication)
        let repository = self.repository
        let credentialId = Base64URL.decode(response.rawId).map { Base64URL.encode($0) } ?? response.rawId
        let found = try await database.read { sql in
            let credential = try await repository.credential(clientId: client.id, credentialId: credentialId, in: sql)
            guard let userId = challenge.userId else { return (credential, [PasskeyCredential]?.none) }
            return (credential, try await repository.list(userId: userId, clientId: client.id, in: sql))
        }
        guard let credential = found.0, challenge.userId == nil || challenge.userId == credential.userId else {
            try await failed(.credentialNotAllowed, client: client, userId: challenge.userId, ceremony: .authentication)
            throw AppError.passkeyUnknown()
        }
        let verified: VerifiedAssertion
        do {
            guard response.type == "public-key" else { throw WebAuthnError.malformed("type is not public-key") }
            let rawId = try Self.bytes(response.rawId, "rawId"), clientData = try Self.bytes(response.response.clientDataJSON, "response.clientDataJSON")
            let authenticatorData = try Self.bytes(response.response.authenticatorData, "response.authenticatorData")
            let signature = try Self.bytes(response.response.signature, "response.signature")
            let userHandle = try response.response.userHandle.map { try Self.bytes($0, "response.userHandle") }
            let expected = try Self.bytes(challenge.challenge, "challenge")
            let record = CredentialRecord(
                credentialId: try Self.bytes(credential.credentialId, "credentialId"), publicKeyBytes: try Self.bytes(credential.publicKey, "publicKey"),
                signCount: UInt32(clamping: credential.signCount), userHandle: try Self.bytes(credential.userHandle, "userHandle")
            )
            let allowed = try found.1.map { try $0.map { try Self.bytes($0.credentialId, "credentialId") } }
            verified = try await verifying(client: client) { verifier in
                try verifier.verifyAssertion(
                    credentialId: rawId, clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature, userHandle: userHandle,
                    challenge: expected, credential: record, allowCredentials: allowed
                )
            }
        } catch let error as WebAuthnError {
            if case .counterRegression = error {
                try await flag(credential, client: client)
                throw AppError.passkeyCounterRegression()
            }
            try await failed(error, client: client, userId: credential.userId, ceremony: .authentication)
            throw AppError.passkeyInvalid(detail: "\(error.code): \(error)")
        }
        let attested = try await nodeVerification(client: client, credential: credential, challenge: challenge.challenge, response: response)
        let now = clock.now(), audit = self.audit
        try await database.transaction { sql in
            try await repository.recordUse(id: credential.id, signCount: Int64(verified.signCount), backedUp: verified.backedUp, now: now, in: sql)
            try await audit.append([AuditEvent(
                "passkey.signed_in", actor: "client:\(client.clientKey)", clientId: client.id, userId: credential.userId,
                details: ["passkey": credential.id, "userVerified": "\(verified.userVerified)", "nodes": attested.joined(separator: ",")]
            )], in: sql)
        }
        var used = credential
        used.signCount = Int64(verified.signCount)
        used.backedUp = verified.backedUp
        used.lastUsedAt = now
        return SignIn(
            userId: credential.userId, credential: used, userVerified: verified.userVerified, amr: [credential.backupEligible ? "swk" : "hwk", "user"],
            nodes: attested
        )
    }

    // MARK: Helpers

    /// 7306 where browsers could not run a ceremony (an IP address or plain http as the issuer).
    private func requireAvailable() throws {
        guard settings.isAvailable else { throw AppError.passkeysUnavailable(rpId: settings.rpId) }
    }

    private func consume(_ id: String, client: Client, binding: String, ceremony: PasskeyChallenge.Ceremony) async throws -> PasskeyChallenge {
        let repository = self.repository, now = clock.now()
        guard let challenge = try await database.transaction({ sql in
            try await repository.consumeChallenge(id: id, clientId: client.id, binding: binding, ceremony: ceremony, now: now, in: sql)
        }) else { throw AppError.passkeyChallengeInvalid() }
        return challenge
    }

    private func failed(_ error: WebAuthnError, client: Client, userId: String?, ceremony: PasskeyChallenge.Ceremony) async throws {
        try await failed(error.code, client: client, userId: userId, ceremony: ceremony)
    }

    /// Appends `passkey.failed` with the refusal's stable code.
    func failed(_ code: String, client: Client, userId: String?, ceremony: PasskeyChallenge.Ceremony) async throws {
        let audit = self.audit
        try await database.transaction { sql in
            try await audit.append([AuditEvent(
                "passkey.failed", actor: "client:\(client.clientKey)", clientId: client.id, userId: userId,
                details: ["ceremony": ceremony.rawValue, "code": code]
            )], in: sql)
        }
    }

    private func flag(_ credential: PasskeyCredential, client: Client) async throws {
        let repository = self.repository, audit = self.audit, now = clock.now()
        try await database.transaction { sql in
            try await repository.flag(id: credential.id, now: now, in: sql)
            try await audit.append([AuditEvent(
                "passkey.flagged", actor: "system", clientId: client.id, userId: credential.userId,
                details: ["passkey": credential.id, "storedCounter": "\(credential.signCount)"]
            )], in: sql)
        }
    }

    /// The transports WebAuthn Level 3 §5.8.4 defines, in the order given, others dropped (at most 6).
    static func transports(_ given: [String]?) -> [String] {
        let known: Set<String> = ["usb", "nfc", "ble", "smart-card", "hybrid", "internal"]
        var seen: [String] = []
        for transport in given ?? [] where known.contains(transport) && !seen.contains(transport) { seen.append(transport) }
        return seen
    }

    /// base64url bytes of a response member; a problem naming it otherwise.
    static func bytes(_ text: String, _ field: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else { throw AppError.invalidField(field, "\(field) must be base64url") }
        return bytes
    }

    /// The name to store: the one given (trimmed, 1–64 characters), else the provider's name for the AAGUID
    /// ("iCloud Keychain"), else "Passkey".
    static func name(_ given: String?, aaguid: [UInt8] = []) throws -> String {
        guard let given else { return AuthenticatorNames.name(aaguid: AAGUID.hex(aaguid)) ?? "Passkey" }
        let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
        guard given.unicodeScalars.count <= 64, !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AppError.invalidField("name", "name must be 1 to 64 characters, without control characters")
        }
        return trimmed
    }
}

extension PasskeyCredential {
    /// The credential as `excludeCredentials` and `allowCredentials` name it.
    var descriptor: PasskeyJSON.Descriptor { .init(id: credentialId, transports: transports.isEmpty ? nil : transports) }
}
