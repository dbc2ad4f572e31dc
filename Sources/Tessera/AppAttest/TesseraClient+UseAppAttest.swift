import Foundation
import Synchronization
import TesseraCore

extension TesseraClient {
    /// Uses Apple's App Attest in this client's enrolments and sign-in approvals (issue 41). Every enrolment — sign-up,
    /// re-registration and a session's device key — then carries Apple's attestation of a new App Attest key: before the enrolment is sent, the SDK asks the server
    /// for a challenge bound to the new device key (`POST /v1/app-attest/challenge`), has `provider` generate and
    /// attest a key over SHA-256 of the challenge's bytes, and sends the attestation as the enrolment's `appAttest`.
    /// The server verifies it under the client's policy (a client whose policy is `required` refuses an enrolment
    /// without one, `ErrorCode.appAttestRequired`), and so does every verifier node. On success the key ID is stored
    /// with the device state (``appAttestKeyId()``). An approval of a sign-in
    /// (``requestAuthRequest(channel:matchNumber:onProcess:)``) whose channel asks for an assertion, or accepts one,
    /// carries an assertion of that key over client data with the channel's challenge (`action` `sign-in` and the
    /// `channelId`), in the same call.
    ///
    /// A device without App Attest (``AppAttestProvider/isSupported`` false: the Simulator, an old device) enrols
    /// without an attestation, and so does every device while the client's policy is `off` (the challenge is
    /// refused with `ErrorCode.appAttestOff`, nothing else is sent to Apple or the server).
    /// - Parameter provider: App Attest: `AppleAppAttestProvider` on Apple platforms; nil to stop using App Attest.
    public func useAppAttest(_ provider: (any AppAttestProvider)?) {
        enrolmentAttestation.withLock { $0 = provider }
    }

    /// The assertion an approval of `channel` carries: nil when the channel asks for none, no provider is set, the
    /// device has no App Attest or no attested key (the server then answers 7422 if it requires one).
    func signInAssertion(for channel: AuthChannelResponse) async throws -> AppAttestSignInAssertion? {
        guard channel.appAttestAssertion != nil, let provider = enrolmentAttestation.withLock({ $0 }), provider.isSupported,
              let keyId = try appAttestKeyId()
        else { return nil }
        return try await Self.assert(
            keyId: keyId, challenge: channel.challenge, members: ["action": "sign-in", "channelId": channel.channelId], using: provider
        )
    }

    /// The attestation for the enrolment of the device key `devicePublicKey` (X9.63 base64), nil when no provider is
    /// set, the device has no App Attest or the client's policy is off.
    func attestEnrolment(devicePublicKey: String) async throws -> AppAttestAttestationRequest? {
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
        let attestation = try await Self.attestNewKey(challenge: challenge.challenge, using: provider)
        log?("App Attest: key attested by Apple, enrolling with the attestation")
        return attestation
    }
}
