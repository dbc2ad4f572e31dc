import Foundation
import X509

/// What a relying party accepts (one Tessera client's passkey settings).
public struct RelyingPartyPolicy: Sendable {
    /// The RP ID: a registrable domain suffix of the origins (§5.1.2's "effective domain").
    public var rpId: String
    /// The origins ceremonies may run on (`https://login.example.com`); exact matches.
    public var origins: Set<String>
    /// Whether a ceremony in a cross-origin iframe (`crossOrigin: true`) is accepted.
    public var allowCrossOrigin: Bool
    /// The top-level origins a cross-origin ceremony's `topOrigin` may name.
    public var topOrigins: Set<String>
    /// The credential algorithms accepted.
    public var algorithms: Set<COSEKey.Algorithm>
    /// Whether the UV flag is required (passwordless sign-in: yes).
    public var requireUserVerification: Bool
    /// Attestation roots: when set, a registration must carry a chain to one of them (self and none refused).
    public var attestationRoots: [Certificate]?
    /// Whether formats Tessera cannot verify (tpm, android-key, apple, …) are accepted as `none`
    /// when no attestation is required; otherwise they are refused.
    public var acceptUnverifiedFormatsAsNone: Bool
    /// The authenticator models (16-byte AAGUIDs) accepted at registration; nil: any.
    public var allowedAAGUIDs: Set<[UInt8]>?
    /// The FIDO metadata: models it reports compromised or revoked are refused, and, where attestation is required,
    /// a model's own attestation roots are trusted for it.
    public var metadata: AuthenticatorMetadata?

    /// A policy; by default every supported algorithm, UV required, no attestation required and
    /// unverifiable formats refused.
    public init(
        rpId: String, origins: Set<String>, allowCrossOrigin: Bool = false, topOrigins: Set<String> = [], algorithms: Set<COSEKey.Algorithm> = Set(COSEKey.Algorithm.allCases),
        requireUserVerification: Bool = true, attestationRoots: [Certificate]? = nil, acceptUnverifiedFormatsAsNone: Bool = false,
        allowedAAGUIDs: Set<[UInt8]>? = nil, metadata: AuthenticatorMetadata? = nil
    ) {
        self.rpId = rpId
        self.origins = origins
        self.allowCrossOrigin = allowCrossOrigin
        self.topOrigins = topOrigins
        self.algorithms = algorithms
        self.requireUserVerification = requireUserVerification
        self.attestationRoots = attestationRoots
        self.acceptUnverifiedFormatsAsNone = acceptUnverifiedFormatsAsNone
        self.allowedAAGUIDs = allowedAAGUIDs
        self.metadata = metadata
    }
}
