import Foundation

/// Authenticator data (W3C WebAuthn Level 3, §6.1): the RP ID hash, flags, signature counter,
/// and, at registration, the attested credential data.
public struct AuthenticatorData: Sendable, Equatable {
    /// The raw bytes, as signed.
    public let raw: [UInt8]
    /// SHA-256 of the RP ID.
    public let rpIdHash: [UInt8]
    /// The flags byte.
    public let flags: UInt8
    /// The signature counter (0 when the authenticator keeps none).
    public let signCount: UInt32
    /// The attested credential data (AT flag).
    public let attestedCredential: AttestedCredential?
    /// The extension outputs (ED flag), a CBOR map.
    public let extensions: CBORValue?

    /// The credential created at registration (§6.5.2).
    public struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's AAGUID (16 bytes).
        public let aaguid: [UInt8]
        /// The credential ID.
        public let credentialId: [UInt8]
        /// The credential public key.
        public let publicKey: COSEKey
        /// The COSE key's bytes as the authenticator encoded them.
        public let publicKeyBytes: [UInt8]
    }

    /// User present.
    public var userPresent: Bool { flags & 0x01 != 0 }
    /// User verified.
    public var userVerified: Bool { flags & 0x04 != 0 }
    /// Backup eligible: the credential may be synced (a multi-device passkey).
    public var backupEligible: Bool { flags & 0x08 != 0 }
    /// Backed up: the credential is synced now.
    public var backedUp: Bool { flags & 0x10 != 0 }

    /// Parses `bytes`; every byte must belong to a field.
    public init(_ bytes: [UInt8]) throws(WebAuthnError) {
        raw = bytes
        guard bytes.count >= 37 else { throw .malformed("authenticator data is \(bytes.count) bytes, less than 37") }
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var rest = bytes[37...]
        if flags & 0x40 != 0 {
            guard rest.count >= 18 else { throw .malformed("attested credential data is truncated") }
            let aaguid = Array(rest.prefix(16))
            let length = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
            rest = rest.dropFirst(18)
            guard length <= 1023 else { throw .credentialIdTooLong(length) }
            guard rest.count >= length else { throw .malformed("the credential ID is truncated") }
            let credentialId = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            let key: (value: CBORValue, length: Int)
            do { key = try CBORDecoder().decodePrefix(rest) } catch { throw .malformed("credential public key: \(error)") }
            let keyBytes = Array(rest.prefix(key.length))
            rest = rest.dropFirst(key.length)
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialId: credentialId, publicKey: try COSEKey(key.value), publicKeyBytes: keyBytes)
        } else {
            attestedCredential = nil
        }
        if flags & 0x80 != 0 {
            let decoded: (value: CBORValue, length: Int)
            do { decoded = try CBORDecoder().decodePrefix(rest) } catch { throw .malformed("extensions: \(error)") }
            guard decoded.value.map != nil else { throw .malformed("extensions are not a map") }
            extensions = decoded.value
            rest = rest.dropFirst(decoded.length)
        } else {
            extensions = nil
        }
        guard rest.isEmpty else { throw .malformed("\(rest.count) bytes after the authenticator data's fields") }
    }
}
