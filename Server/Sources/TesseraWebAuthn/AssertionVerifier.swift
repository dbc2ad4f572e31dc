import Crypto
import Foundation

/// A stored credential, as the relying party checks an assertion against it.
public struct CredentialRecord: Sendable, Equatable {
    /// The credential ID.
    public var credentialId: [UInt8]
    /// The COSE public key's bytes.
    public var publicKeyBytes: [UInt8]
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The owner's opaque user handle (at most 64 bytes).
    public var userHandle: [UInt8]

    /// A record.
    public init(credentialId: [UInt8], publicKeyBytes: [UInt8], signCount: UInt32, userHandle: [UInt8]) {
        self.credentialId = credentialId
        self.publicKeyBytes = publicKeyBytes
        self.signCount = signCount
        self.userHandle = userHandle
    }
}

/// An assertion that passed §7.2: what changes in the credential record.
public struct VerifiedAssertion: Sendable, Equatable {
    /// The counter to store.
    public let signCount: UInt32
    /// Whether the UV flag was set.
    public let userVerified: Bool
    /// Backup eligibility and state, to keep up to date (§7.2 step 25).
    public let backupEligible: Bool
    /// Backed up now.
    public let backedUp: Bool
}

extension WebAuthnVerifier {
    /// §7.2 steps 5–24 on an assertion for `credential`: `credentialId` is the response's `rawId`,
    /// `allowCredentials` the IDs the options named (nil for a discoverable, usernameless ceremony).
    public func verifyAssertion(
        credentialId: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?,
        challenge: [UInt8], credential: CredentialRecord, allowCredentials: [[UInt8]]? = nil
    ) throws(WebAuthnError) -> VerifiedAssertion {
        if let allowCredentials, !allowCredentials.contains(credentialId) { throw .credentialNotAllowed }
        guard credentialId == credential.credentialId else { throw .credentialNotAllowed }
        // Step 6: the user handle, when given, names the credential's owner; without allowCredentials it must be given.
        if let userHandle {
            guard constantTimeEqual(userHandle, credential.userHandle) else { throw .wrongUser }
        } else if allowCredentials == nil {
            throw .wrongUser
        }
        let clientData = try CollectedClientData(clientDataJSON)
        try check(clientData, type: "webauthn.get", challenge: challenge)
        let authData = try AuthenticatorData(authenticatorData)
        guard authData.attestedCredential == nil else { throw .malformed("an assertion's authenticator data has attested credential data") }
        try check(authData)
        let key: COSEKey
        do { key = try COSEKey(try CBORDecoder().decode(credential.publicKeyBytes)) } catch let error as WebAuthnError { throw error } catch {
            throw .invalidPublicKey("the stored key is not CBOR")
        }
        guard policy.algorithms.contains(key.algorithm) else { throw .unsupportedAlgorithm(key.algorithm.rawValue) }
        let signed = authenticatorData + [UInt8](SHA256.hash(data: clientDataJSON))
        guard key.verify(signature: signature, over: signed) else { throw .invalidSignature }
        // Step 22: a counter that does not grow (when either side keeps one) may be a cloned authenticator.
        if authData.signCount != 0 || credential.signCount != 0, authData.signCount <= credential.signCount {
            throw .counterRegression(stored: credential.signCount, received: authData.signCount)
        }
        return VerifiedAssertion(
            signCount: authData.signCount, userVerified: authData.userVerified, backupEligible: authData.backupEligible, backedUp: authData.backedUp
        )
    }
}
