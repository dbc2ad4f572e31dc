import Crypto
import Foundation
import Logging
import Testing
import TesseraCore
@testable import TesseraServer
@testable import TesseraNode
import TesseraServerTestSupport
import TesseraWebAuthn

/// A verifier node's passkeys (issue 38): receipts that verify, no key swap, revocation that sticks, and
/// assertions verified against the node's own record: signature, origin, RP ID, its own counter, a challenge
/// that is fresh on the node's clock and used once.
@Suite("Verifier node: passkeys")
struct NodePasskeyTests {
    static let origin = "https://login.example.com"

    static func node(_ clock: ManualClock) async throws -> NodeService {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("node-pk-\(UUID().uuidString)").path
        return try await NodeService.open(directory: directory, inMemory: true, clock: clock.clock, logger: Logger(label: "node-test"))
    }

    static func record(_ authenticator: SoftwareAuthenticator, status: String = "active", origins: [String] = [origin]) -> NodePasskeyRecord {
        NodePasskeyRecord(
            passkeyId: "pk_1", clientId: "cl_1", userId: "usr_1", credentialId: Base64URL.encode(authenticator.credentialId),
            publicKey: Base64URL.encode(authenticator.coseKey), userHandle: Base64URL.encode(authenticator.userHandle), rpId: "login.example.com",
            origins: origins, status: status
        )
    }

    /// An assertion by `authenticator` over a challenge made at `time`, as the server forwards it.
    static func request(_ authenticator: inout SoftwareAuthenticator, time: Int64, origin: String = origin) throws -> NodePasskeyAttestRequest {
        let challenge = Base64URL.encode(PasskeyService.timed(time) + (0..<24).map { _ in UInt8.random(in: 0...255) })
        let options = PasskeyJSON.RequestOptions(challenge: challenge, timeout: 300_000, rpId: "login.example.com", allowCredentials: [], userVerification: "required")
        let response = try authenticator.get(options, origin: origin)
        return NodePasskeyAttestRequest(
            passkeyId: "pk_1", challenge: challenge, clientDataJSON: response.response.clientDataJSON, authenticatorData: response.response.authenticatorData,
            signature: response.response.signature, userHandle: response.response.userHandle, requireUserVerification: true
        )
    }

    static func refused(_ node: NodeService, _ request: NodePasskeyAttestRequest, _ code: ErrorCode) async {
        await #expect { _ = try await node.attestPasskey(request) } throws: { ($0 as? AppError)?.code == code }
    }

    @Test("a receipt over the passkey's digest; an attestation that verifies with the node's key and names the new counter; another key for the passkey 5105; a COSE key that is not one 1005")
    func receiptAndAttestation() async throws {
        let clock = ManualClock(start: 1_800_000_000_000)
        let node = try await Self.node(clock)
        var authenticator = SoftwareAuthenticator(origin: Self.origin)
        authenticator.userHandle = Array(repeating: 7, count: 32)
        let record = Self.record(authenticator)
        let receipt = try #require(try await node.storeAllPasskeys([record]).first?.get())
        let statement = AuthStatement.passkeyReceipt(nodeId: receipt.nodeId, passkeyId: "pk_1", status: "active", keysDigest: record.keysDigest, signedAt: receipt.signedAt)
        let receiptSignature = try #require(Data(base64Encoded: receipt.signature))
        #expect(receipt.deviceId == "pk_1")
        #expect(node.identity.publicKey.isValidSignature(receiptSignature, for: statement))

        let request = try Self.request(&authenticator, time: clock.clock.now())
        let attestation = try await node.attestPasskey(request)
        #expect(attestation.signCount == 1)
        let attested = AuthStatement.passkeyAttestation(
            nodeId: node.identity.nodeId, passkeyId: "pk_1", challenge: request.challenge, signCount: 1, signedAt: attestation.signedAt)
        #expect(node.identity.publicKey.isValidSignature(try #require(Data(base64Encoded: attestation.signature)), for: attested))

        var other = SoftwareAuthenticator(origin: Self.origin)
        other.credentialId = authenticator.credentialId
        other.userHandle = authenticator.userHandle
        let swapped = try await node.storeAllPasskeys([Self.record(other)])
        let swapConflict = if case .failure(let error) = swapped[0] { error.code == .nodeKeyConflict } else { false }
        #expect(swapConflict, "another key for a known passkey")
        var garbage = record
        garbage.publicKey = Base64URL.encode([0xa1, 0x01, 0x02])
        garbage.passkeyId = "pk_2"
        let refused = try await node.storeAllPasskeys([garbage])
        let invalid = if case .failure(let error) = refused[0] { error.code == .fieldInvalid } else { false }
        #expect(invalid, "a COSE key that is not one")
        await node.close()
    }

    @Test("refused with 5103: a replay, a counter that did not grow, another origin, a challenge older than 10 minutes or from the future; unknown 5101; revoked 5102, and a replayed enrolment does not bring it back")
    func refusals() async throws {
        let clock = ManualClock(start: 1_800_000_000_000)
        let node = try await Self.node(clock)
        var authenticator = SoftwareAuthenticator(origin: Self.origin)
        authenticator.userHandle = Array(repeating: 9, count: 32)
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now()), .nodeDeviceUnknown)
        _ = try await node.storeAllPasskeys([Self.record(authenticator)])

        let request = try Self.request(&authenticator, time: clock.clock.now())
        _ = try await node.attestPasskey(request)
        await Self.refused(node, request, .nodeSignatureInvalid)   // the same assertion again
        authenticator.counter = 0
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now()), .nodeSignatureInvalid)   // counter 1 again
        authenticator.counter = 10
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now(), origin: "https://evil.example"), .nodeSignatureInvalid)
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now() - 600_001), .nodeSignatureInvalid)
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now() + 60_001), .nodeSignatureInvalid)
        _ = try await node.attestPasskey(try Self.request(&authenticator, time: clock.clock.now() - 590_000))   // within the window

        _ = try await node.storeAllPasskeys([Self.record(authenticator, status: "revoked")])
        _ = try await node.storeAllPasskeys([Self.record(authenticator)])
        await Self.refused(node, try Self.request(&authenticator, time: clock.clock.now()), .nodeDeviceRevoked)
        await node.close()
    }
}
