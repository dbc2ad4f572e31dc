import TesseraCore
import TesseraWebAuthn

/// App Attest at enrolment under each client's policy (issue 41), the ``DeviceAttestationCheck`` the runtime gives
/// the device issuer: `off` refuses an attestation sent (7406) and needs none; `reported` verifies one when sent
/// (a device without one still enrols: a simulator, an old device); `required` refuses an enrolment without one
/// (7407, audited as `device.app_attest.failed`, step `enrolment`). A sent attestation that does not verify is
/// refused under either policy.
package struct AppAttestEnrolmentCheck: DeviceAttestationCheck {
    /// Challenges and verification.
    package let service: AppAttestService
    /// The clients' policies and apps.
    package let settings: AppAttestSettingsService

    /// A check with `service` and `settings`.
    package init(service: AppAttestService, settings: AppAttestSettingsService) {
        self.service = service
        self.settings = settings
    }

    package func admit(
        _ attestation: AppAttestAttestationRequest?, clientId: String, devicePublicKey: String, enrolmentSecret: String?
    ) async throws -> AdmittedDeviceAttestation? {
        let current = try await settings.settings(clientId: clientId)
        guard current.policy != "off" else {
            if attestation != nil { throw AppError.appAttestOff() }
            return nil
        }
        guard let attestation else {
            guard current.policy == "required" else { return nil }
            let problem = AppError.appAttestRequired()
            try await service.auditEnrolmentFailure(problem, clientId: clientId)
            throw problem
        }
        let app = try AppAttestSettingsService.app(of: current)
        return try await service.admitEnrolment(
            attestation, clientId: clientId, devicePublicKey: devicePublicKey, enrolmentSecret: enrolmentSecret, app: app
        )
    }
}
