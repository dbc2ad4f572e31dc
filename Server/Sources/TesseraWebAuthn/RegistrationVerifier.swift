import Crypto
import Foundation

/// A registration response that passed every step of W3C WebAuthn Level 3 §7.1: what the relying
/// party stores as the credential record.
public struct VerifiedRegistration: Sendable, Equatable {
    /// The credential ID.
    public let credentialId: [UInt8]
    /// The credential public key as a COSE key's bytes (stored, and given to the verifier nodes).
    public let publicKeyBytes: [UInt8]
    /// Its algorithm.
    public let algorithm: COSEKey.Algorithm
    /// The signature counter at registration.
    public let signCount: UInt32
    /// The authenticator model (16 bytes; zeros when it does not say, and for `fido-u2f`, whose signature does not
    /// cover it).
    public let aaguid: [UInt8]
    /// Whether the UV flag was set.
    public let userVerified: Bool
    /// Backup eligible (a synced, multi-device passkey).
    public let backupEligible: Bool
    /// Backed up now.
    public let backedUp: Bool
    /// The attestation statement's format.
    public let attestationFormat: String
    /// What the attestation proved.
    public let attestationType: AttestationType
}

/// Registration (§7.1) and authentication (§7.2) checks for one relying party.
public struct WebAuthnVerifier: Sendable {
    /// The relying party's rules.
    public var policy: RelyingPartyPolicy

    /// A verifier for `policy`.
    public init(policy: RelyingPartyPolicy) {
        self.policy = policy
    }

    /// §7.1 steps 5–27 on a registration response: `clientDataJSON` and `attestationObject` as the
    /// browser gave them, `challenge` the one issued for this ceremony (the caller makes it single-use),
    /// `time` the moment certificate chains are checked at.
    public func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], challenge: [UInt8], time: Date
    ) async throws(WebAuthnError) -> VerifiedRegistration {
        let clientData = try CollectedClientData(clientDataJSON)
        try check(clientData, type: "webauthn.create", challenge: challenge)
        let clientDataHash = [UInt8](SHA256.hash(data: clientDataJSON))
        let object = try AttestationObject(attestationObject)
        let authData = object.authenticatorData
        try check(authData)
        guard let credential = authData.attestedCredential else { throw .malformed("no attested credential data") }
        guard policy.algorithms.contains(credential.publicKey.algorithm) else { throw .unsupportedAlgorithm(credential.publicKey.algorithm.rawValue) }

        // §8.6 signs neither the AAGUID nor the flags or the counter: the model a fido-u2f registration names is not
        // attested even when its certificate is trusted, so it counts as the all-zero AAGUID of a U2F authenticator (as
        // CTAP2 platforms report one) for the allow-list, the metadata and the record.
        let aaguid = object.format == "fido-u2f" ? [UInt8](repeating: 0, count: 16) : credential.aaguid
        if let allowed = policy.allowedAAGUIDs, !allowed.contains(aaguid) {
            throw .authenticatorNotAllowed("this relying party does not accept this authenticator model")
        }
        if let refusal = policy.metadata?.refusal(aaguid: aaguid) { throw .authenticatorNotAllowed(refusal) }
        let roots = policy.attestationRoots.map { $0 + (policy.metadata?.entry(aaguid: aaguid)?.roots ?? []) } ?? []
        let type: AttestationType
        do {
            type = try await AttestationVerifier(trustAnchors: roots, time: time).verify(object, clientDataHash: clientDataHash)
        } catch .unsupportedAttestationFormat where policy.acceptUnverifiedFormatsAsNone && policy.attestationRoots == nil {
            type = .none
        }
        if policy.attestationRoots != nil, type != .certificate(trusted: true) {
            throw .untrustedAttestation("this relying party requires attestation by a trusted authenticator; got \(type.name)")
        }
        return VerifiedRegistration(
            credentialId: credential.credentialId, publicKeyBytes: credential.publicKeyBytes, algorithm: credential.publicKey.algorithm,
            signCount: authData.signCount, aaguid: aaguid, userVerified: authData.userVerified,
            backupEligible: authData.backupEligible, backedUp: authData.backedUp, attestationFormat: object.format, attestationType: type
        )
    }

    /// Steps common to both ceremonies on the client data: type, challenge, origin, cross-origin.
    func check(_ clientData: CollectedClientData, type: String, challenge: [UInt8]) throws(WebAuthnError) {
        guard clientData.type == type else { throw .wrongType(clientData.type) }
        guard clientData.challenge.count == challenge.count, constantTimeEqual(clientData.challenge, challenge) else { throw .wrongChallenge }
        guard policy.origins.contains(clientData.origin) else { throw .wrongOrigin(clientData.origin) }
        // §7.1 steps 10–11 / §7.2 steps 13–14: a cross-origin ceremony only where the RP expects one, and a
        // top-level origin only one it names.
        if clientData.crossOrigin, !policy.allowCrossOrigin { throw .crossOrigin }
        if let top = clientData.topOrigin, top != clientData.origin, !(policy.allowCrossOrigin && policy.topOrigins.contains(top)) {
            throw .crossOrigin
        }
    }

    /// Steps common to both ceremonies on the authenticator data: RP ID hash, UP, UV, BE/BS.
    func check(_ authData: AuthenticatorData) throws(WebAuthnError) {
        guard constantTimeEqual(authData.rpIdHash, [UInt8](SHA256.hash(data: Data(policy.rpId.utf8)))) else { throw .wrongRelyingParty }
        guard authData.userPresent else { throw .userNotPresent }
        if policy.requireUserVerification, !authData.userVerified { throw .userNotVerified }
        if authData.backedUp, !authData.backupEligible { throw .invalidBackupFlags }
    }
}

/// Compares without stopping at the first difference.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
