import Foundation
import TesseraCore

extension AppAttestService {
    /// The App Attest state of the device `deviceId`: attested (with its key ID, environment, time and counter) or not.
    package func state(deviceId: String) async throws -> AppAttestDeviceState {
        try await states(deviceIds: [deviceId])[deviceId] ?? .notAttested
    }

    /// The App Attest state of each of `deviceIds` (one read): ``AppAttestDeviceState/notAttested`` for those without a key.
    package func states(deviceIds: [String]) async throws -> [String: AppAttestDeviceState] {
        let repository = self.repository
        let keys = try await database.read { sql in try await repository.keys(deviceIds: deviceIds, in: sql) }
        var states: [String: AppAttestDeviceState] = [:]
        for deviceId in deviceIds {
            states[deviceId] = keys[deviceId].map(Self.state(of:)) ?? .notAttested
        }
        return states
    }

    /// The state a stored key gives.
    static func state(of key: AppAttestKeyRecord) -> AppAttestDeviceState {
        AppAttestDeviceState(
            attested: true, keyId: Data(key.keyId).base64EncodedString(), environment: key.environment.rawValue, attestedAt: key.attestedAt,
            counter: Int64(key.counter)
        )
    }
}
