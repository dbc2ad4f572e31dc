import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies App Attest attestations and assertions for one app, following Apple's "Validating apps that
/// connect to your server": the nine steps of an attestation (``verifyAttestation(_:keyId:challenge:time:)``)
/// and the checks of an assertion (``verifyAssertion(_:clientData:publicKey:storedCounter:)``).
///
/// No I/O: the caller issues and remembers challenges, stores the returned credential per device and the
/// counter per assertion (see ``AppAttestAssertion/verify(clientData:publicKey:rpIdHash:storedCounter:)``).
public struct AppAttestVerifier: Sendable {
    /// The client's app: App ID and environment.
    public var app: AppAttestApp
    /// The roots an attestation's `x5c` chain must lead to: ``AppAttestRoot`` unless configured otherwise.
    public var trustedRoots: [Certificate]
    /// Intermediates validated before (nil: every chain is validated in full). Share one per set of roots.
    public var anchorCache: AppAttestAnchorCache?

    /// The OID of the credential certificate's nonce extension.
    public static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 8, 2]

    /// The format identifier of App Attest attestation objects.
    public static let format = "apple-appattest"

    /// A verifier trusting `trustedRoots` (a test's root, or another configured one).
    public init(app: AppAttestApp, trustedRoots: [Certificate], anchorCache: AppAttestAnchorCache? = nil) {
        self.app = app
        self.trustedRoots = trustedRoots
        self.anchorCache = anchorCache
    }

    /// A verifier trusting Apple's App Attestation Root CA (``AppAttestRoot``) only.
    public init(app: AppAttestApp) throws {
        self.init(app: app, trustedRoots: [try AppAttestRoot.certificate()])
    }

    /// Verifies an attestation object (Apple's steps 1 to 9) and returns the device's credential.
    ///
    /// - Parameters:
    ///   - attestationObject: The CBOR bytes `attestKey` returned, `{fmt, attStmt: {x5c, receipt}, authData}`.
    ///   - keyId: The key identifier the app sent with it, decoded from base64 (32 bytes).
    ///   - challenge: The one-time challenge the server issued for this attestation; the app hashed it into
    ///     `clientDataHash`.
    ///   - time: The time at which the certificates must be valid (now, or a pinned time in tests).
    public func verifyAttestation(
        _ attestationObject: [UInt8], keyId: [UInt8], challenge: [UInt8], time: Date
    ) async throws(AppAttestError) -> AppAttestCredential {
        let object: AttestationObject
        do { object = try AttestationObject(attestationObject) } catch { throw .malformed("attestation object: \(error)") }
        guard object.format == Self.format else { throw .unsupportedFormat(object.format) }
        let authData = object.authenticatorData
        guard let attested = authData.attestedCredential else { throw .malformed("authData has no attested credential data") }
        guard let receipt = object.statement[text: "receipt"]?.bytes else { throw .malformed("attStmt.receipt") }

        // Step 1: the chain, credential certificate first, to a trusted root at `time`.
        let chain = try Self.certificates(object.statement[text: "x5c"], known: anchorCache)
        try await validate(chain, at: time)
        let credentialCertificate = chain[0]

        // Steps 2 to 4: nonce = SHA-256(authData ‖ SHA-256(challenge)), as the certificate's extension says.
        let clientDataHash = Array(SHA256.hash(data: challenge))
        let nonce = Array(SHA256.hash(data: authData.raw + clientDataHash))
        guard try Self.certifiedNonce(credentialCertificate) == nonce else { throw .nonceMismatch }

        // Step 5: the key ID is SHA-256 of the credential certificate's public key (uncompressed point).
        guard let key = P256.Signing.PublicKey(credentialCertificate.publicKey) else {
            throw .malformed("the credential certificate's key is not a P-256 key")
        }
        let publicKey = Array(key.x963Representation)
        let keyHash = Array(SHA256.hash(data: publicKey))
        guard keyId == keyHash else { throw .keyIdMismatch }

        // Step 6: rpIdHash is SHA-256 of the App ID.
        guard authData.rpIdHash == app.rpIdHash else { throw .rpIdMismatch }
        // Step 7: counter 0.
        guard authData.signCount == 0 else { throw .counterNotZero(authData.signCount) }
        // Step 8: the AAGUID of the client's environment.
        guard attested.aaguid == app.environment.aaguid else { throw .aaguidMismatch }
        // Step 9: the credential ID is the key ID.
        guard attested.credentialId == keyHash else { throw .credentialIdMismatch }

        return AppAttestCredential(keyId: keyHash, publicKey: publicKey, receipt: receipt, environment: app.environment)
    }

    /// The attestation object as evidence for others to verify (the verifier nodes): the same object with an empty
    /// `receipt`. Nothing verified covers the receipt (Apple's PKCS #7 message for its fraud metric, 70 % of a real
    /// object's bytes), so every check of ``verifyAttestation(_:keyId:challenge:time:)`` gives the same answer on it.
    public static func evidence(_ attestationObject: [UInt8]) throws(AppAttestError) -> [UInt8] {
        guard let pairs = try? CBORDecoder().decode(attestationObject).map else { throw .malformed("attestation object") }
        let rewritten = pairs.map { pair -> CBORPair in
            guard pair.key == .text("attStmt"), let statement = pair.value.map else { return pair }
            return CBORPair(pair.key, .map(statement.map { $0.key == .text("receipt") ? CBORPair($0.key, .bytes([])) : $0 }))
        }
        return CBOREncoder.encode(.map(rewritten))
    }

    /// Verifies an assertion for this app with the device's stored key and counter; returns the assertion's
    /// counter, for the caller to store with a compare-and-set (see
    /// ``AppAttestAssertion/verify(clientData:publicKey:rpIdHash:storedCounter:)``).
    ///
    /// - Parameters:
    ///   - assertion: The CBOR bytes `generateAssertion` returned, `{signature, authenticatorData}`.
    ///   - clientData: The request the app signed (its hash is the `clientDataHash` the app passed); the caller
    ///     checks the challenge inside it (Apple's assertion step 6).
    ///   - publicKey: ``AppAttestCredential/publicKey`` of the device.
    ///   - storedCounter: The counter stored for the device (0 after the attestation).
    public func verifyAssertion(
        _ assertion: [UInt8], clientData: [UInt8], publicKey: [UInt8], storedCounter: UInt32
    ) throws(AppAttestError) -> UInt32 {
        try AppAttestAssertion(assertion).verify(
            clientData: clientData, publicKey: publicKey, rpIdHash: app.rpIdHash, storedCounter: storedCounter
        )
    }

    /// The `x5c` certificates, DER-decoded, credential certificate first; an intermediate that `known` remembers by its
    /// bytes is taken from there instead of being decoded again.
    private static func certificates(_ x5c: CBORValue?, known: AppAttestAnchorCache?) throws(AppAttestError) -> [Certificate] {
        guard let items = x5c?.array, !items.isEmpty, items.count <= 5 else {
            throw .malformed("attStmt.x5c must hold 1 to 5 certificates")
        }
        var chain: [Certificate] = []
        for (index, item) in items.enumerated() {
            if index > 0, let der = item.bytes, let remembered = known?.certificate(der: der) {
                chain.append(remembered)
                continue
            }
            guard let der = item.bytes, let certificate = try? Certificate(derEncoded: der) else {
                throw .malformed("attStmt.x5c[\(index)] is not a DER certificate")
            }
            chain.append(certificate)
        }
        return chain
    }

    /// Step 1: every certificate of `chain` valid at `time`, and a path from the first to a trusted root
    /// (RFC 5280 path validation by swift-certificates).
    private func validate(_ chain: [Certificate], at time: Date) async throws(AppAttestError) {
        for (index, certificate) in chain.enumerated() where time < certificate.notValidBefore || time > certificate.notValidAfter {
            throw .certificateExpired(index == 0 ? "the credential certificate" : "attStmt.x5c[\(index)]")
        }
        guard !trustedRoots.isEmpty else { throw .wrongChain("no trusted root is configured") }
        let known = anchorCache?.anchors(among: chain.dropFirst(), at: time) ?? []
        var verifier = Verifier(rootCertificates: CertificateStore(trustedRoots + known)) { RFC5280Policy(fixedExpiryValidationTime: time) }
        let result = await verifier.validate(leaf: chain[0], intermediates: CertificateStore(chain.dropFirst()))
        guard case .validCertificate(let path) = result else {
            throw .wrongChain("no valid path from the credential certificate to a trusted root")
        }
        if known.isEmpty { anchorCache?.remember(path: Array(path)) }
    }

    /// Step 4: the nonce the credential certificate carries: extension 1.2.840.113635.100.8.2, whose value is
    /// `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    private static func certifiedNonce(_ certificate: Certificate) throws(AppAttestError) -> [UInt8] {
        guard let found = certificate.extensions[oid: nonceExtension] else {
            throw .malformed("the credential certificate has no nonce extension (1.2.840.113635.100.8.2)")
        }
        do {
            let node = try DER.parse(found.value)
            return try DER.sequence(node, identifier: .sequence) { nodes in
                try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    Array(try ASN1OctetString(derEncoded: node).bytes)
                }
            }
        } catch {
            throw .malformed("the nonce extension is not SEQUENCE { [1] EXPLICIT OCTET STRING }")
        }
    }
}
