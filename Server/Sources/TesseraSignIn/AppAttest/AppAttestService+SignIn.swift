import Foundation
import TesseraCore
import TesseraWebAuthn

/// App Attest on sign-in approvals (issue 41): an assertion of the device's attested key travels inside the approval
/// (`POST /v1/auth/channels/{channelId}/start`) over client data that carries the channel's challenge, so it needs no
/// challenge of its own and no call of its own. The key, its counter and the client's App ID come with the device
/// lookup the signed request made; what is left is the signature check and one compare-and-set of the counter.
extension AppAttestService {
    /// What the approval of `device` says of App Attest to the device: `required` when the client asks for an assertion
    /// with each approval (a device without an attested key cannot approve then), `accepted` when the policy is on and
    /// the device has an attested key, nil otherwise.
    package static func signInAssertion(for device: DeviceAuthTarget) -> String? {
        guard device.appAttestClaim != nil else { return nil }
        if device.appAttestAssertSignIn { return "required" }
        return device.appAttestKey == nil ? nil : "accepted"
    }

    /// Checks the assertion sent with the approval of `device` for the channel whose challenge is `challenge`: nil
    /// and none needed passes; 7422 when the client asks for one and none was sent; 7404 when one was sent and the
    /// device has no attested key; else the assertion's check (7405 client data without the challenge, 7410, 7416,
    /// 7420, 7421), the new counter stored with a compare-and-set. An assertion sent while the client's policy is off
    /// is not looked at (the app cannot know the policy). Refusals are audited (`device.app_attest.failed`, step
    /// `sign-in`).
    package func checkSignIn(_ sent: AppAttestSignInAssertion?, device: DeviceAuthTarget, challenge: String) async throws {
        guard device.appAttestClaim != nil else { return }
        guard let sent else {
            guard device.appAttestAssertSignIn else { return }
            try await audited(.signIn, deviceId: device.deviceId) { () async throws -> Void in throw AppError.appAttestAssertionRequired() }
            return
        }
        try await audited(.signIn, deviceId: device.deviceId) {
            guard let key = device.appAttestKey, let raw = Data(base64URLEncoded: key.publicKey), let appID = device.appAttestAppID else {
                throw AppError.appAttestDeviceNotAttested()
            }
            // Through the process's table of parsed keys (stored base64url; the table's keys are base64).
            guard let publicKey = P256KeyCache.shared.key(x963Base64: raw.base64EncodedString()) else {
                throw AppAttestError.malformed("the stored public key is not an uncompressed P-256 point").problem
            }
            let assertion = try Self.bytes(sent.assertion, field: "appAttestAssertion.assertion")
            let clientData = try Self.bytes(sent.clientData, field: "appAttestAssertion.clientData")
            guard AppAttestClientData.challenge(in: clientData) == challenge else { throw AppError.appAttestClientDataMismatch() }
            let counter: UInt32
            do throws(AppAttestError) {
                counter = try AppAttestAssertion(assertion).verify(
                    clientData: clientData, key: publicKey, rpIdHash: AppAttestApp.rpIdHash(appID: appID),
                    storedCounter: UInt32(clamping: key.counter)
                )
            } catch {
                throw error.problem
            }
            let repository = self.repository, deviceId = device.deviceId
            // One conditional UPDATE, atomic by itself: no transaction around it (on PostgreSQL a BEGIN and a COMMIT less).
            guard try await database.withSQL({ try await repository.advanceCounter(deviceId: deviceId, to: counter, in: $0) }) else {
                throw AppAttestError.counterNotGrown(stored: UInt32(clamping: key.counter), received: counter).problem
            }
        }
    }
}
