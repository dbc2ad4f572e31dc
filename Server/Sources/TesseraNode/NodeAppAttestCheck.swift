import Foundation
import TesseraCore
import TesseraWebAuthn
import X509

/// The node's own check of the App Attest evidence a device record carries: the attestation (Apple's nine steps)
/// against the node's trusted roots at the node's time, for the client's app, with a challenge bound to the record's
/// device key. No I/O: ``NodeService`` runs it before the store's transaction.
struct NodeAppAttestCheck: Sendable {
    /// The roots an attestation's chain must lead to: Apple's App Attestation Root CA unless the node was started
    /// with others (tests only).
    var trustedRoots: [Certificate]
    /// The intermediates chains were validated through (one signature check per attestation instead of two).
    let anchors = AppAttestAnchorCache()

    /// A check trusting `trustedRoots`, or Apple's root when nil.
    init(trustedRoots: [Certificate]? = nil) throws {
        self.trustedRoots = try trustedRoots ?? [AppAttestRoot.certificate()]
    }

    /// The outcome for `record`'s evidence at `now` (milliseconds since 1970); nil when the record carries none.
    func outcome(for record: NodeDeviceRecord, now: Int64) async -> NodeAppAttestOutcome? {
        guard let evidence = record.appAttest else { return nil }
        func outcome(_ failure: String?) -> NodeAppAttestOutcome {
            NodeAppAttestOutcome(
                status: failure == nil ? NodeAppAttestOutcome.verified : NodeAppAttestOutcome.failed, failure: failure,
                keyId: evidence.keyId, verifiedAt: now
            )
        }
        guard let environment = AppAttestEnvironment(rawValue: evidence.environment) else { return outcome("unknown_environment") }
        guard let object = Data(base64Encoded: evidence.attestationObject), let keyId = Data(base64Encoded: evidence.keyId),
              let challenge = Base64URL.decode(evidence.challenge),
              let deviceKey = Data(base64Encoded: record.deviceKey)
        else { return outcome("malformed") }
        guard AppAttestDeviceBinding.binds(challenge, deviceKey: Array(deviceKey)) else { return outcome("not_bound") }
        let verifier = AppAttestVerifier(
            app: AppAttestApp(teamID: evidence.teamId, bundleID: evidence.bundleId, environment: environment), trustedRoots: trustedRoots,
            anchorCache: anchors
        )
        do {
            _ = try await verifier.verifyAttestation(
                Array(object), keyId: Array(keyId), challenge: challenge, time: Date(timeIntervalSince1970: Double(now) / 1000)
            )
            return outcome(nil)
        } catch {
            return outcome(error.code)
        }
    }
}
