import Foundation
import Synchronization
import TesseraCore

extension TesseraClient {
    /// Makes every enrolment of this client — sign-up, re-registration and a session's device key — carry Apple's
    /// App Attest attestation of a new App Attest key (issue 41): before the enrolment is sent, the SDK asks the server
    /// for a challenge bound to the new device key (`POST /v1/app-attest/challenge`), has `provider` generate and
    /// attest a key over SHA-256 of the challenge's bytes, and sends the attestation as the enrolment's `appAttest`.
    /// The server verifies it under the client's policy (a client whose policy is `required` refuses an enrolment
    /// without one, `ErrorCode.appAttestRequired`), and so does every verifier node. On success the key ID is stored
    /// with the device state (``appAttestKeyId()``), ready for ``requestAppAttestAssertion(clientData:using:)``.
    ///
    /// A device without App Attest (``AppAttestProvider/isSupported`` false: the Simulator, an old device) enrols
    /// without an attestation, and so does every device while the client's policy is `off` (the challenge is
    /// refused with `ErrorCode.appAttestOff`, nothing else is sent to Apple or the server).
    /// - Parameter provider: App Attest: `AppleAppAttestProvider` on Apple platforms; nil to stop attesting enrolments.
    public func attestEnrolments(using provider: (any AppAttestProvider)?) {
        enrolmentAttestation.withLock { $0 = provider }
    }

    /// The attestation for the enrolment of the device key `devicePublicKey` (X9.63 base64), nil when no provider is
    /// set, the device has no App Attest or the client's policy is off.
    func attestEnrolment(devicePublicKey: String) async throws -> (request: AppAttestAttestationRequest, keyId: String)? {
        guard let provider = enrolmentAttestation.withLock({ $0 }) else { return nil }
        guard provider.isSupported else {
            log?("App Attest: not supported on this device, enrolling without an attestation")
            return nil
        }
        let challenge: AppAttestChallengeAnswer
        do {
            challenge = try await call("POST", "/v1/app-attest/challenge", body: AppAttestEnrolmentChallengeRequest(devicePublicKey: devicePublicKey))
        } catch let error as TesseraError where error.code == .appAttestOff {
            log?("App Attest: off for this client, enrolling without an attestation")
            return nil
        }
        let hash = try AppAttestClientData.attestationHash(challenge: challenge.challenge)
        let keyId = try await Self.onDevice("generateKey") { try await provider.generateKey() }
        let attestation = try await Self.onDevice("attestKey") { try await provider.attestKey(keyId, clientDataHash: hash) }
        log?("App Attest: key attested by Apple, enrolling with the attestation")
        return (AppAttestAttestationRequest(keyId: keyId, attestationObject: attestation.base64EncodedString(), challenge: challenge.challenge), keyId)
    }
}
