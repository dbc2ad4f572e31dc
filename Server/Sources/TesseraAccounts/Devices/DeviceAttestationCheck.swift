import SQLKit
import TesseraCore

/// The check of an app attestation sent with the enrolment of a device key (sign-up, re-registration, a session's
/// device key): App Attest under the client's policy (issue 41). Devices/ cannot see the domain that verifies it
/// (SignIn's AppAttest/), so the runtime injects it into ``DeviceIssuer``.
package protocol DeviceAttestationCheck: Sendable {
    /// Verifies `attestation` for the enrolment of `devicePublicKey` (X9.63 base64) of `clientId`, before the
    /// enrolment's transaction: nil when none is needed and none was sent; a problem when the client requires one and
    /// none was sent (7407), when one was sent while the policy is off (7406), or when it does not verify (its code).
    /// `enrolmentSecret`: the secret the enrolment uses up (a dispose token, or the token of the session registering
    /// its device key), whose derived challenge (``AppAttestDeviceBinding/enrolmentChallenge(secret:deviceKey:)``)
    /// the attestation may use instead of an issued one.
    func admit(
        _ attestation: AppAttestAttestationRequest?, clientId: String, devicePublicKey: String, enrolmentSecret: String?
    ) async throws -> AdmittedDeviceAttestation?
}

/// A verified attestation of an enrolment, recorded for the new device inside the enrolment's transaction.
package struct AdmittedDeviceAttestation: Sendable {
    /// Stores the attested key for the device `deviceId` of `userId` in `sql`; returns the audit events the
    /// enrolment appends with its own (one append, so one turn of the audit head).
    package var record: @Sendable (_ deviceId: String, _ userId: String, _ sql: any SQLDatabase) async throws -> [AuditEvent]

    /// An admitted attestation recorded by `record`.
    package init(record: @escaping @Sendable (_ deviceId: String, _ userId: String, _ sql: any SQLDatabase) async throws -> [AuditEvent]) {
        self.record = record
    }
}
