import Foundation
import Synchronization
import TesseraCore

extension TesseraClient {
    /// Uses Apple's App Attest in this client's enrolments and sign-in approvals (issue 41). Every enrolment — sign-up,
    /// re-registration and a session's device key — then carries Apple's attestation of a new App Attest key, over a
    /// challenge bound to the new device key that the SDK derives from the secret the enrolment uses up (the dispose
    /// token of a sign-up or re-registration, the session's token for its device key:
    /// `AppAttestDeviceBinding.enrolmentChallenge(secret:deviceKey:)`), so no challenge call is made. `provider`
    /// generates and attests a key over SHA-256 of the challenge's bytes, and the attestation goes with the enrolment
    /// as its `appAttest`.
    /// The server verifies it under the client's policy (a client whose policy is `required` refuses an enrolment
    /// without one, `ErrorCode.appAttestRequired`), and so does every verifier node. On success the key ID is stored
    /// with the device state (``appAttestKeyId()``). An approval of a sign-in
    /// (``requestAuthRequest(channel:matchNumber:onProcess:)``) whose channel asks for an assertion, or accepts one,
    /// carries an assertion of that key over client data with the channel's challenge (`action` `sign-in` and the
    /// `channelId`), in the same call.
    ///
    /// A device without App Attest (``AppAttestProvider/isSupported`` false: the Simulator, an old device) enrols
    /// without an attestation, and so does every device while the client's policy is `off`: the server refuses the
    /// attestation with `ErrorCode.appAttestOff` before anything is written, and the SDK enrols again without one
    /// (so set no provider for such a client: each enrolment would ask Apple for an attestation in vain).
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

    /// The attestation for the enrolment of the device key `devicePublicKey` (X9.63 base64) that uses up
    /// `enrolmentSecret`; nil when no provider is set or the device has no App Attest.
    func attestEnrolment(devicePublicKey: String, enrolmentSecret: String) async throws -> AppAttestAttestationRequest? {
        guard let provider = enrolmentAttestation.withLock({ $0 }) else { return nil }
        guard provider.isSupported else {
            log?("App Attest: not supported on this device, enrolling without an attestation")
            return nil
        }
        guard let key = Data(base64Encoded: devicePublicKey) else {
            throw TesseraError(code: .fieldInvalid, message: "devicePublicKey is not base64")
        }
        let challenge = MessageSignature.base64URL(Data(AppAttestDeviceBinding.enrolmentChallenge(secret: enrolmentSecret, deviceKey: Array(key))))
        let attestation = try await Self.attestNewKey(challenge: challenge, using: provider)
        log?("App Attest: key attested by Apple, enrolling with the attestation")
        return attestation
    }

    /// Sends an enrolment with `attestation` through `send` and returns its answer with the attestation that went
    /// through. When the client's policy is off the server refuses the attestation (7406) before anything is written
    /// (the dispose token or the session is still unused), so the same enrolment is sent again without it.
    func sendEnrolment<Answer>(
        attested attestation: AppAttestAttestationRequest?, _ send: (AppAttestAttestationRequest?) async throws -> Answer
    ) async throws -> (answer: Answer, attestation: AppAttestAttestationRequest?) {
        do {
            return (try await send(attestation), attestation)
        } catch let error as TesseraError where error.code == .appAttestOff && attestation != nil {
            log?("App Attest: off for this client, enrolling without an attestation")
            return (try await send(nil), nil)
        }
    }
}
