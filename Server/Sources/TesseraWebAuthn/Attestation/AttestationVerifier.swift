import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies the attestation statements Tessera supports (W3C WebAuthn Level 3, §8): `none`,
/// `packed` (§8.2, self and x5c) and `fido-u2f` (§8.6). A certificate chain is checked against
/// `trustAnchors` at `time` (RFC 5280 path validation by swift-certificates).
struct AttestationVerifier: Sendable {
    var trustAnchors: [Certificate]
    var time: Date

    /// The OID of the FIDO AAGUID extension (id-fido-gen-ce-aaguid).
    static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    func verify(_ object: AttestationObject, clientDataHash: [UInt8]) async throws(WebAuthnError) -> AttestationType {
        guard let credential = object.authenticatorData.attestedCredential else { throw .malformed("no attested credential data") }
        switch object.format {
        case "none":
            guard object.statement.map?.isEmpty == true else { throw .invalidAttestation("a none statement must be empty") }
            return .none
        case "packed":
            return try await packed(object, credential, clientDataHash)
        case "fido-u2f":
            return try await fidoU2F(object, credential, clientDataHash)
        default:
            throw .unsupportedAttestationFormat(object.format)
        }
    }

    /// §8.2.
    private func packed(
        _ object: AttestationObject, _ credential: AuthenticatorData.AttestedCredential, _ clientDataHash: [UInt8]
    ) async throws(WebAuthnError) -> AttestationType {
        let statement = object.statement
        guard let alg = statement[text: "alg"]?.int, let sig = statement[text: "sig"]?.bytes else {
            throw .invalidAttestation("packed needs alg and sig")
        }
        let signed = object.authenticatorData.raw + clientDataHash
        guard let x5c = statement[text: "x5c"] else {
            // Self attestation: the credential key signs, with its own algorithm.
            guard alg == credential.publicKey.algorithm.rawValue else { throw .invalidAttestation("alg is not the credential's algorithm") }
            guard credential.publicKey.verify(signature: sig, over: signed) else { throw .invalidAttestation("the self-attestation signature does not verify") }
            return .selfAttestation
        }
        guard let algorithm = COSEKey.Algorithm(rawValue: alg) else { throw .unsupportedAlgorithm(alg) }
        let chain = try certificates(x5c)
        let leaf = chain[0]
        let key = try COSEKey(certificateKey: try Self.publicKeyDER(leaf), algorithm: algorithm)
        guard key.verify(signature: sig, over: signed) else { throw .invalidAttestation("the attestation signature does not verify") }
        try Self.checkPackedCertificate(leaf, aaguid: credential.aaguid)
        return .certificate(trusted: try await validate(chain))
    }

    /// §8.6.
    private func fidoU2F(
        _ object: AttestationObject, _ credential: AuthenticatorData.AttestedCredential, _ clientDataHash: [UInt8]
    ) async throws(WebAuthnError) -> AttestationType {
        guard let sig = object.statement[text: "sig"]?.bytes, let x5c = object.statement[text: "x5c"] else {
            throw .invalidAttestation("fido-u2f needs sig and x5c")
        }
        let chain = try certificates(x5c)
        guard chain.count == 1 else { throw .invalidAttestation("fido-u2f x5c must hold exactly one certificate") }
        let key = try COSEKey(certificateKey: try Self.publicKeyDER(chain[0]), algorithm: .es256)
        guard let point = credential.publicKey.uncompressedPoint else { throw .invalidAttestation("a fido-u2f credential key must be ES256") }
        let verificationData = [0x00] + object.authenticatorData.rpIdHash + clientDataHash + credential.credentialId + point
        guard key.verify(signature: sig, over: verificationData) else { throw .invalidAttestation("the fido-u2f signature does not verify") }
        return .certificate(trusted: try await validate(chain))
    }

    private func certificates(_ x5c: CBORValue) throws(WebAuthnError) -> [Certificate] {
        guard let items = x5c.array, !items.isEmpty, items.count <= 8 else { throw .invalidAttestation("x5c must hold 1 to 8 certificates") }
        var chain: [Certificate] = []
        for item in items {
            guard let der = item.bytes, let certificate = try? Certificate(derEncoded: der) else {
                throw .invalidAttestation("an x5c entry is not a DER certificate")
            }
            chain.append(certificate)
        }
        return chain
    }

    private static func publicKeyDER(_ certificate: Certificate) throws(WebAuthnError) -> [UInt8] {
        var serializer = DER.Serializer()
        do { try serializer.serialize(certificate.publicKey) } catch { throw .invalidAttestation("the certificate's key cannot be read") }
        return serializer.serializedBytes
    }

    /// §8.2.1: version 3, subject with C, O, OU "Authenticator Attestation" and CN, not a CA, and the
    /// AAGUID extension (when present, not critical) equal to the authenticator data's.
    private static func checkPackedCertificate(_ certificate: Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard certificate.version == .v3 else { throw .invalidAttestation("the attestation certificate is not version 3") }
        let subject = certificate.subject
        let has = { (oid: ASN1ObjectIdentifier) in subject.contains { $0.contains { $0.type == oid } } }
        let ou = subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.organizationalUnitName }.map { String(describing: $0.value) }
        guard has(.RDNAttributeType.countryName), has(.RDNAttributeType.organizationName), has(.RDNAttributeType.commonName),
              ou == "Authenticator Attestation"
        else { throw .invalidAttestation("the attestation certificate's subject lacks C, O, OU=Authenticator Attestation or CN") }
        if let constraints = try? certificate.extensions.basicConstraints, case .isCertificateAuthority = constraints {
            throw .invalidAttestation("the attestation certificate is a CA")
        }
        if let found = certificate.extensions[oid: aaguidExtension] {
            guard !found.critical else { throw .invalidAttestation("the AAGUID extension is critical") }
            // The extension's value is an OCTET STRING holding the 16 bytes.
            guard let node = try? DER.parse(found.value), let inner = try? ASN1OctetString(derEncoded: node),
                  Array(inner.bytes) == aaguid
            else { throw .invalidAttestation("the certificate's AAGUID is not the authenticator data's") }
        }
    }

    /// Whether the chain leads to a trust anchor (RFC 5280 at `time`); false when there are none to check against.
    private func validate(_ chain: [Certificate]) async throws(WebAuthnError) -> Bool {
        guard !trustAnchors.isEmpty else { return false }
        var verifier = Verifier(rootCertificates: CertificateStore(trustAnchors)) { RFC5280Policy(fixedExpiryValidationTime: time) }
        let result = await verifier.validate(leaf: chain[0], intermediates: CertificateStore(chain.dropFirst()))
        guard case .validCertificate = result else { throw .untrustedAttestation("the x5c chain does not lead to a trusted root") }
        return true
    }
}
