import Foundation
import TesseraCore

/// What the verifier nodes are told of App Attest with each device's record (issue 41): the device's attestation
/// (object, key ID, challenge, and the client's app), for each node to verify itself, and whether the client requires
/// one (the node then attests the device's logins only with an attestation it verified). Nothing is added for a client
/// whose policy is off.
package struct AppAttestNodeEvidence: Sendable {
    /// Where the settings and the evidence are read.
    package let database: any Database
    /// The clients' settings.
    package let settings: any AppAttestSettingsRepository
    /// The attested keys' evidence.
    package let enrolment: any AppAttestEnrolmentRepository

    /// A source reading `database`.
    package init(
        database: any Database, settings: any AppAttestSettingsRepository = SQLAppAttestSettingsRepository(),
        enrolment: any AppAttestEnrolmentRepository = SQLAppAttestEnrolmentRepository()
    ) {
        self.database = database
        self.settings = settings
        self.enrolment = enrolment
    }

    /// Adds the evidence and the requirement to `records` (by device ID): one read of the settings per client, one
    /// read of the evidence when a client's policy is on.
    package func attach(to records: inout [String: NodeDeviceRecord]) async throws {
        guard !records.isEmpty else { return }
        let clientIds = Set(records.values.map(\.clientId)), settings = self.settings, enrolment = self.enrolment
        let deviceIds = Array(records.keys)
        let (byClient, evidence) = try await database.read { sql in
            var byClient: [String: AppAttestSettings] = [:]
            for clientId in clientIds {
                let current = try await settings.settings(clientId: clientId, in: sql)
                if current.policy != "off" { byClient[clientId] = current }
            }
            let evidence = byClient.isEmpty ? [:] : try await enrolment.evidence(deviceIds: deviceIds, in: sql)
            return (byClient, evidence)
        }
        guard !byClient.isEmpty else { return }
        for (deviceId, record) in records {
            guard let client = byClient[record.clientId] else { continue }
            var record = record
            record.appAttestRequired = client.policy == "required" ? true : nil
            record.appAttest = evidence[deviceId].map { found in
                NodeAppAttestEvidence(
                    attestationObject: Data(found.attestationObject).base64EncodedString(), keyId: Data(found.keyId).base64EncodedString(),
                    challenge: Data(found.challenge).base64URLEncodedString(), teamId: client.teamId, bundleId: client.bundleId,
                    environment: client.environment
                )
            }
            records[deviceId] = record
        }
    }
}
