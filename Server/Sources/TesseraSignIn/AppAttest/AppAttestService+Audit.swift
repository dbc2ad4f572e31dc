import Foundation
import SQLKit
import TesseraCore
import TesseraWebAuthn

/// The audit entries of App Attest (issue 41): a verified attestation (``AppAttestAuditEvent/attested``), appended
/// in the transaction that stores the key, and a refused attestation or assertion (``AppAttestAuditEvent/failed``),
/// appended in a transaction of its own so that the problem answered does not roll it back. They name the device,
/// its user and its client (the actor is `device:<id>`), so they are sent to the client's webhooks; they never carry
/// the attestation object, the assertion, the client data or the challenge.
extension AppAttestService {
    /// Appends ``AppAttestAuditEvent/attested`` for `credential` of `deviceId` to the audit log, in `sql` (its user and
    /// client read).
    func appendAttested(_ credential: AppAttestCredential, deviceId: String, in sql: any SQLDatabase) async throws {
        let owner = try await devices.owner(deviceId: deviceId, in: sql)
        try await audit.append([Self.attestedEvent(credential, deviceId: deviceId, userId: owner?.userId, clientId: owner?.clientId)], in: sql)
    }

    /// ``AppAttestAuditEvent/attested`` for `credential` of `deviceId` (of `userId` and `clientId`): the key ID and the
    /// environment.
    static func attestedEvent(_ credential: AppAttestCredential, deviceId: String, userId: String?, clientId: String?) -> AuditEvent {
        AuditEvent(
            AppAttestAuditEvent.attested, actor: "device:\(deviceId)", clientId: clientId, userId: userId, deviceId: deviceId,
            details: ["keyId": Data(credential.keyId).base64EncodedString(), "environment": credential.environment.rawValue]
        )
    }

    /// Runs `body`; when it throws a problem, appends ``AppAttestAuditEvent/failed`` with the problem's code and `step`
    /// (in a transaction of its own) and throws the problem again.
    func audited<T: Sendable>(_ step: AppAttestAuditEvent.Step, deviceId: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let problem as AppError {
            let devices = self.devices, audit = self.audit
            try await database.transaction { sql in
                let owner = try await devices.owner(deviceId: deviceId, in: sql)
                try await audit.append([AuditEvent(
                    AppAttestAuditEvent.failed, actor: "device:\(deviceId)", clientId: owner?.clientId, userId: owner?.userId, deviceId: deviceId,
                    details: ["step": step.rawValue, "code": String(problem.code.rawValue)]
                )], in: sql)
            }
            throw problem
        }
    }
}

/// The names of App Attest's audit events (and webhook event types).
package enum AppAttestAuditEvent {
    /// A device's App Attest key was attested (details `keyId`, base64, and `environment`).
    package static let attested = "device.app_attest.attested"
    /// A device's attestation or assertion was refused (details `step` and `code`, the problem code).
    package static let failed = "device.app_attest.failed"

    /// Which call was refused.
    package enum Step: String, Sendable {
        /// `POST /v1/devices/app-attest/attestation`.
        case attestation
        /// `POST /v1/devices/app-attest/assertion`.
        case assertion
        /// The assertion sent with a sign-in approval (`POST /v1/auth/channels/{channelId}/start`).
        case signIn = "sign-in"
        /// The attestation sent with an enrolment (sign-up, re-registration, a session's device key): no device yet.
        case enrolment
    }
}
