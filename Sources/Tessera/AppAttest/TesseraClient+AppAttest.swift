import Foundation
import TesseraCore

extension TesseraClient {
    /// The key ID (base64) of this device's attested App Attest key, nil before ``requestAppAttestation(using:)``
    /// succeeded (and after a new enrolment, or when the key stopped being valid).
    /// - Throws: What the key store throws when it cannot read the device state.
    public func appAttestKeyId() throws -> String? {
        try keyStore.loadState()?.appAttestKeyId
    }

    /// Attests this device with Apple's App Attest (issue 41): a challenge from the server
    /// (`POST /v1/devices/app-attest/challenge`), a new App Attest key, Apple's attestation of it over SHA-256 of the
    /// challenge's bytes, and the attestation to the server (`POST /v1/devices/app-attest/attestation`), all signed by
    /// the device key. On success the key ID is stored with the device state (``appAttestKeyId()``) for
    /// ``requestAppAttestAssertion(clientData:using:)``. Each call attests a new key, replacing the stored one.
    /// - Parameter provider: App Attest: `AppleAppAttestProvider` on Apple platforms.
    /// - Returns: ``AppAttestation/attested(_:)`` with the device's state as the server stored it, or
    ///   ``AppAttestation/unsupported`` (nothing sent) on a device without App Attest: what the app then does is the
    ///   client's policy on the server.
    /// - Throws: ``TesseraError``: `ErrorCode.deviceUnknown` (not enrolled), `ErrorCode.appAttestOff` (the client's
    ///   policy is `off`), the server's verification codes (7401–7403 for the challenge, 7410–7419 for the attestation:
    ///   `ErrorCode.appAttestRpIdMismatch` when the server's team ID or bundle ID is not the app's,
    ///   `ErrorCode.appAttestAaguidMismatch` when its environment is not the entitlement's), `ErrorCode.conflict`
    ///   (the key is attested already), or the provider's failures (``AppAttestProvider``).
    @discardableResult
    public func requestAppAttestation(using provider: some AppAttestProvider) async throws -> AppAttestation {
        let deviceId = try signingDeviceId()
        guard provider.isSupported else {
            log?("App Attest: not supported on this device, nothing sent")
            return .unsupported
        }
        let challenge: AppAttestChallengeAnswer = try await call("POST", "/v1/devices/app-attest/challenge", signedBy: deviceId)
        let body = try await Self.attestNewKey(challenge: challenge.challenge, using: provider)
        log?("App Attest: key attested by Apple, sending the attestation")
        let state: AppAttestDeviceState = try await call("POST", "/v1/devices/app-attest/attestation", body: body, signedBy: deviceId)
        try storeAppAttestKeyId(body.keyId)
        return .attested(state)
    }

    /// Proves to the server that a call comes from this genuine app on this device: a challenge from the server, the
    /// client data (`clientData` and the challenge, as JSON), an assertion of the attested App Attest key over its
    /// SHA-256, and both to the server (`POST /v1/devices/app-attest/assertion`), all signed by the device key.
    /// - Parameters:
    ///   - clientData: What the assertion is for (e.g. `["action": "approve", "channelId": …]`): members of the client
    ///     data beside `challenge`, which the SDK sets (a `challenge` here is `ErrorCode.fieldInvalid`, nothing sent).
    ///   - provider: App Attest: `AppleAppAttestProvider` on Apple platforms.
    /// - Returns: ``AppAttestAssertion/asserted(_:)`` with the counter the server stored, or
    ///   ``AppAttestAssertion/unsupported`` (nothing sent) on a device without App Attest.
    /// - Throws: ``TesseraError``: `ErrorCode.deviceUnknown` (not enrolled), `ErrorCode.appAttestDeviceNotAttested`
    ///   (no attested key here or on the server, or the key is not valid any more: the stored key ID is forgotten, call
    ///   ``requestAppAttestation(using:)``), `ErrorCode.appAttestOff`, the server's verification codes (7401–7405,
    ///   `ErrorCode.appAttestBadSignature`, `ErrorCode.appAttestCounterNotGrown`), or the provider's failures.
    public func requestAppAttestAssertion(
        clientData: [String: String] = [:], using provider: some AppAttestProvider
    ) async throws -> AppAttestAssertion {
        let deviceId = try signingDeviceId()
        guard provider.isSupported else {
            log?("App Attest: not supported on this device, nothing sent")
            return .unsupported
        }
        guard let keyId = try appAttestKeyId() else {
            throw TesseraError(
                code: .appAttestDeviceNotAttested, message: "This device has no attested App Attest key: call requestAppAttestation(using:) first"
            )
        }
        try AppAttestClientData.check(clientData)  // before anything is sent
        do {
            let challenge: AppAttestChallengeAnswer = try await call("POST", "/v1/devices/app-attest/challenge", signedBy: deviceId)
            let signed = try await Self.assert(keyId: keyId, challenge: challenge.challenge, members: clientData, using: provider)
            let body = AppAttestAssertionRequest(assertion: signed.assertion, clientData: signed.clientData, challenge: challenge.challenge)
            let result: AppAttestAssertionResult = try await call("POST", "/v1/devices/app-attest/assertion", body: body, signedBy: deviceId)
            return .asserted(result)
        } catch let error as TesseraError where error.code == .appAttestDeviceNotAttested {
            log?("App Attest: the key is not attested (any more), forgetting it")
            try? storeAppAttestKeyId(nil)
            throw error
        }
    }

    /// A new App Attest key attested by `provider` over SHA-256 of the bytes of `challenge` (base64url, as the server
    /// issued it): the attestation, as the server takes it.
    static func attestNewKey(challenge: String, using provider: some AppAttestProvider) async throws -> AppAttestAttestationRequest {
        let hash = try AppAttestClientData.attestationHash(challenge: challenge)
        let keyId = try await onDevice("generateKey") { try await provider.generateKey() }
        let attestation = try await onDevice("attestKey") { try await provider.attestKey(keyId, clientDataHash: hash) }
        return AppAttestAttestationRequest(keyId: keyId, attestationObject: attestation.base64EncodedString(), challenge: challenge)
    }

    /// An assertion of the key `keyId` over the client data `members` and `challenge` (JSON), both base64.
    static func assert(
        keyId: String, challenge: String, members: [String: String], using provider: some AppAttestProvider
    ) async throws -> AppAttestSignInAssertion {
        let data = try AppAttestClientData.assertion(challenge: challenge, members: members)
        let hash = AppAttestClientData.assertionHash(data)
        let assertion = try await onDevice("generateAssertion") { try await provider.generateAssertion(keyId, clientDataHash: hash) }
        return AppAttestSignInAssertion(assertion: assertion.base64EncodedString(), clientData: data.base64EncodedString())
    }

    /// Stores `keyId` as the device's App Attest key ID in the device state (nil: forgets it).
    func storeAppAttestKeyId(_ keyId: String?) throws {
        guard var state = try keyStore.loadState() else { throw TesseraError(code: .deviceUnknown, message: "This device is not enrolled") }
        state.appAttestKeyId = keyId
        try keyStore.saveState(state)
    }

    /// Runs one `DCAppAttestService` step: a ``TesseraError`` passes as it is, any other error becomes
    /// `ErrorCode.localFailure` naming the step.
    static func onDevice<Value>(_ step: String, _ body: () async throws -> Value) async throws -> Value {
        do {
            return try await body()
        } catch let error as TesseraError {
            throw error
        } catch {
            throw TesseraError(code: .localFailure, message: "App Attest \(step) failed: \(error)")
        }
    }
}
