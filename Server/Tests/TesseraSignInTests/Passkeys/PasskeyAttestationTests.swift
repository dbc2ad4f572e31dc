import Crypto
import Foundation
import SwiftASN1
import Testing
import TesseraCore
@testable import TesseraServer
import TesseraServerTestSupport
import TesseraTestSupport
import TesseraWebAuthn
import X509

/// Which authenticators may register a client's passkeys (W3C WebAuthn Level 3 §7.1 steps 21–24), on SQLite and
/// PostgreSQL: by default any (options ask for `none`); with `required` the options ask for `direct` and only a
/// `packed` chain to the client's trust root registers (a `none` attestation is refused as `untrusted_attestation`);
/// allowed AAGUIDs restrict the models; wrong settings are 1005 naming the member. And a FIDO metadata BLOB given
/// to the server as an operator would (`passkeys.metadataBlob`, minted by mint_mds.py, its root through
/// `passkeys.metadataRoot`): a model it reports REVOKED cannot register.
@Suite("Passkeys: attestation and authenticator models")
struct PasskeyAttestationTests {
    /// A test attestation CA and an authenticator's attestation key and certificate (§8.2.1's subject) it issued.
    static func authority(at time: Date) throws -> (rootPEM: String, key: P256.Signing.PrivateKey, certificate: [UInt8]) {
        let caKey = P256.Signing.PrivateKey(), key = P256.Signing.PrivateKey()
        let caName = try DistinguishedName {
            CommonName("Test Attestation CA")
            OrganizationName("Tessera tests")
        }
        let from = time.addingTimeInterval(-86_400), until = time.addingTimeInterval(365 * 86_400)
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey), notValidBefore: from, notValidAfter: until, issuer: caName,
            subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(caKey)
        )
        let subject = try DistinguishedName {
            CountryName("CH")
            OrganizationName("Tessera tests")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("Test Authenticator")
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: from, notValidAfter: until, issuer: caName,
            subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }, issuerPrivateKey: .init(caKey)
        )
        var serializer = DER.Serializer()
        try serializer.serialize(leaf)
        return (try root.serializeAsPEM().pemString, key, serializer.serializedBytes)
    }

    static func register(_ runtime: TesseraRuntime, _ client: Client, _ authenticator: inout SoftwareAuthenticator) async throws -> (PasskeyJSON.CreationOptions, PasskeyCredential) {
        let alice = "usr_alice_\(client.id)"
        let options = try await runtime.passkeys.registrationOptions(client: client, userId: alice, userName: "alice", displayName: "Alice", binding: "a")
        let created = try await runtime.passkeys.finishRegistration(
            client: client, challengeId: options.challengeId, binding: "a", response: authenticator.create(options.options), name: nil
        )
        return (options.options, created)
    }

    @Test("none by default; required: options ask for direct, a none attestation is refused (untrusted_attestation, audited), a packed chain to the trust root registers; allowed AAGUIDs restrict models", arguments: TestDatabase.kinds)
    func required(_ kind: TestDatabase) async throws {
        try await PasskeyServiceTests.run(kind) { runtime, client, clock in
            var plain = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            let (options, _) = try await Self.register(runtime, client, &plain)
            #expect(options.attestation == "none")

            let authority = try Self.authority(at: Date(timeIntervalSince1970: Double(clock.clock.now()) / 1000))
            let service = runtime.signIn.passkeyAttestation
            let stored = try await service.set(PasskeyAttestationSettings(attestation: "required", trustRoots: [authority.rootPEM]), client: client)
            #expect(stored.attestation == "required" && stored.trustRoots.count == 1)
            var unattested = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            do {
                _ = try await Self.register(runtime, client, &unattested)
                Issue.record("a none attestation registered where attestation is required")
            } catch let error as AppError {
                #expect(error.code == .passkeyInvalid && "\(error)".contains("untrusted_attestation"), "\(error)")
            }
            var attested = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            attested.aaguid = Array(repeating: 0x5a, count: 16)
            attested.packedAttestation = (authority.key, authority.certificate)
            let (direct, created) = try await Self.register(runtime, client, &attested)
            #expect(direct.attestation == "direct" && created.attestationFormat == "packed" && created.attestationType == "basic-trusted")

            _ = try await service.set(
                PasskeyAttestationSettings(attestation: "required", trustRoots: [authority.rootPEM], allowedAAGUIDs: ["00000000-0000-0000-0000-000000000001"]),
                client: client
            )
            var other = attested
            other.credentialId = Array(repeating: 7, count: 32)
            await PasskeyServiceTests.expectProblem(.passkeyInvalid) { _ = try await Self.register(runtime, client, &other) }
            _ = try await service.set(PasskeyAttestationSettings(allowedAAGUIDs: [String(repeating: "5A", count: 16)]), client: client)
            var allowed = attested
            allowed.credentialId = Array(repeating: 8, count: 32)
            let (_, accepted) = try await Self.register(runtime, client, &allowed)
            #expect(accepted.aaguid == String(repeating: "5a", count: 16))

            struct Row: Decodable { var details: String }
            try await runtime.repositories.audit.sequencer?.settle()  // PostgreSQL chains appends in the background
            let rows = try await runtime.database.read { sql in
                try await sql.raw("SELECT details FROM audit_log WHERE type = 'passkey.failed' ORDER BY seq").all(decoding: Row.self)
            }
            #expect(rows.map(\.details).contains { $0.contains("untrusted_attestation") } && rows.map(\.details).contains { $0.contains("authenticator_not_allowed") })
        }
    }

    @Test("wrong settings are 1005 naming the member; AAGUIDs are stored as 32 lowercase hex digits, duplicates dropped", arguments: TestDatabase.kinds)
    func checks(_ kind: TestDatabase) async throws {
        try await PasskeyServiceTests.run(kind) { runtime, client, _ in
            let service = runtime.signIn.passkeyAttestation
            let wrong: [(PasskeyAttestationSettings, String)] = [
                (PasskeyAttestationSettings(attestation: "maybe"), "attestation"),
                (PasskeyAttestationSettings(attestation: "required", trustRoots: ["not a certificate"]), "trustRoots[0]"),
                (PasskeyAttestationSettings(allowedAAGUIDs: ["+0112233445566778899aabbccddeeff"]), "allowedAAGUIDs[0]"),
                (PasskeyAttestationSettings(allowedAAGUIDs: ["00112233"]), "allowedAAGUIDs[0]"),
            ]
            for (settings, member) in wrong {
                do {
                    _ = try await service.set(settings, client: client)
                    Issue.record("accepted \(settings)")
                } catch let error as AppError {
                    #expect(error.code == .fieldInvalid && "\(error)".contains(member), "\(error)")
                }
            }
            let stored = try await service.set(
                PasskeyAttestationSettings(allowedAAGUIDs: ["FBFC3007-154E-4ECC-8C0B-6E020557D7BD", "fbfc3007154e4ecc8c0b6e020557d7bd"]), client: client
            )
            #expect(stored.allowedAAGUIDs == ["fbfc3007154e4ecc8c0b6e020557d7bd"])
            #expect(try await service.settings(client: client) == stored)
        }
    }

    @Test("a FIDO metadata BLOB given as passkeys.metadataBlob (root passkeys.metadataRoot): the model it reports REVOKED cannot register (authenticator_not_allowed); a BLOB that does not verify stops the start naming the key and the file")
    func metadataBlob() async throws {
        let python = try TestRequirements.python(importing: ["fido2", "cryptography"], for: "minting a FIDO metadata BLOB")
        let revoked = [UInt8](repeating: 0x6b, count: 16)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/webauthn/mint_mds.py").path
        let run = try await ChildProcess.run(python, [script, String(repeating: "11", count: 16), revoked.map { String(format: "%02x", $0) }.joined(), "00"])
        try #require(run.status == 0, "\(run.output)")
        let line = try #require(run.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let blobs = try #require(object["blobs"] as? [String: [String: String]])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-mds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try Certificate(derEncoded: Array(Self.hex(object["root"] as? String ?? "")))
        let rootFile = directory.appendingPathComponent("root.pem"), good = directory.appendingPathComponent("good.jwt")
        let tampered = directory.appendingPathComponent("tampered.jwt")
        try root.serializeAsPEM().pemString.write(to: rootFile, atomically: true, encoding: .utf8)
        try (blobs["good"]?["jwt"] ?? "").write(to: good, atomically: true, encoding: .utf8)
        try (blobs["tampered"]?["jwt"] ?? "").write(to: tampered, atomically: true, encoding: .utf8)

        let manual = ManualClock()
        try await withTestRuntime(.sqlite, clock: manual.clock, configure: {
            $0.embeddedNodes = 0
            $0.issuer = PasskeyServiceTests.origin
            $0.passkeyMetadataBlob = good.path
            $0.passkeyMetadataRoot = rootFile.path
        }) { runtime in
            #expect(runtime.passkeys.settings.metadata?.number == 42)
            let client = try await runtime.clients.create(name: "Web", bundleIds: ["com.example.web"]).client
            try await OIDCRefreshServiceTests.addAlice(runtime, client: client)
            var bad = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            bad.aaguid = revoked
            do {
                _ = try await Self.register(runtime, client, &bad)
                Issue.record("a revoked model registered")
            } catch let error as AppError {
                #expect(error.code == .passkeyInvalid && "\(error)".contains("REVOKED"), "\(error)")
            }
            var fine = SoftwareAuthenticator(origin: PasskeyServiceTests.origin)
            _ = try await Self.register(runtime, client, &fine)
        }
        do {
            _ = try await withTestRuntime(.sqlite, configure: {
                $0.embeddedNodes = 0
                $0.passkeyMetadataBlob = tampered.path
                $0.passkeyMetadataRoot = rootFile.path
            }) { _ in Issue.record("started with a tampered BLOB") }
        } catch let error as ConfigurationError {
            #expect("\(error)".contains("passkeys.metadataBlob") && "\(error)".contains(tampered.path), "\(error)")
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [], index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), let byte = UInt8(text[index..<next], radix: 16) {
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
