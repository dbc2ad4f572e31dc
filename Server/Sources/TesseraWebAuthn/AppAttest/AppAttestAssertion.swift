import Crypto

/// An App Attest assertion: the CBOR map `{signature, authenticatorData}` that `generateAssertion` returns.
public struct AppAttestAssertion: Sendable, Hashable {
    /// The ECDSA P-256 signature, DER.
    public let signature: [UInt8]
    /// The authenticator data, as signed.
    public let authenticatorData: [UInt8]
    /// The authenticator data's `rpIdHash` (its first 32 bytes).
    public let rpIdHash: [UInt8]
    /// The authenticator data's counter (bytes 33 to 36, big-endian).
    public let counter: UInt32

    /// Parses the CBOR map. The authenticator data must hold at least `rpIdHash`, flags and counter (37 bytes,
    /// all Apple sends); bytes after them are covered by the signature and not read.
    public init(_ bytes: [UInt8]) throws(AppAttestError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(bytes) } catch { throw .malformed("assertion: \(error)") }
        guard value.map != nil else { throw .malformed("the assertion is not a CBOR map") }
        guard let signature = value[text: "signature"]?.bytes else { throw .malformed("assertion.signature") }
        guard let authenticatorData = value[text: "authenticatorData"]?.bytes else { throw .malformed("assertion.authenticatorData") }
        guard authenticatorData.count >= 37 else {
            throw .malformed("assertion.authenticatorData is \(authenticatorData.count) bytes, less than 37")
        }
        self.signature = signature
        self.authenticatorData = authenticatorData
        rpIdHash = Array(authenticatorData[0..<32])
        counter = authenticatorData[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Verifies the assertion (Apple's assertion steps 1 to 5) and returns its counter.
    ///
    /// 1–3. The signature verifies with `publicKey` over nonce = SHA-256(authenticatorData ‖ SHA-256(clientData))
    /// (ECDSA with SHA-256, so the key signs the nonce's SHA-256 in turn, as the Secure Enclave does).
    /// 4. `rpIdHash` is the app's.
    /// 5. The counter is greater than `storedCounter`.
    /// 6. (The challenge inside `clientData` is the one issued: the caller's check, since the app defines the
    ///    client data's layout.)
    ///
    /// The caller then stores the returned counter for the device with a compare-and-set — for example
    /// `UPDATE … SET counter = :new WHERE key_id = :id AND counter = :stored` — and when no row changed
    /// (another assertion of the same device was stored first) reads the counter again and verifies again,
    /// so two concurrent assertions cannot both pass on one stored value and no update is lost.
    ///
    /// - Parameters:
    ///   - clientData: The request the app signed.
    ///   - publicKey: The device's key, uncompressed X9.62 (``AppAttestCredential/publicKey``).
    ///   - rpIdHash: SHA-256 of the App ID (``AppAttestApp/rpIdHash``).
    ///   - storedCounter: The device's stored counter (0 right after the attestation).
    public func verify(clientData: [UInt8], publicKey: [UInt8], rpIdHash expectedRpIdHash: [UInt8], storedCounter: UInt32) throws(AppAttestError) -> UInt32 {
        guard let key = try? P256.Signing.PublicKey(x963Representation: publicKey) else {
            throw .malformed("the stored public key is not an uncompressed P-256 point")
        }
        return try verify(clientData: clientData, key: key, rpIdHash: expectedRpIdHash, storedCounter: storedCounter)
    }

    /// ``verify(clientData:publicKey:rpIdHash:storedCounter:)`` with the device's key already parsed (a caller that
    /// keeps parsed keys saves the point's check at each call).
    public func verify(clientData: [UInt8], key: P256.Signing.PublicKey, rpIdHash expectedRpIdHash: [UInt8], storedCounter: UInt32) throws(AppAttestError) -> UInt32 {
        let clientDataHash = Array(SHA256.hash(data: clientData))
        let nonce = Array(SHA256.hash(data: authenticatorData + clientDataHash))
        guard let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature), key.isValidSignature(ecdsa, for: nonce) else {
            throw .badSignature
        }
        guard rpIdHash == expectedRpIdHash else { throw .rpIdMismatch }
        guard counter > storedCounter else { throw .counterNotGrown(stored: storedCounter, received: counter) }
        return counter
    }
}
