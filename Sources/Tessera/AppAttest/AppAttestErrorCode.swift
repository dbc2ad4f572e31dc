import TesseraCore

/// The codes of Apple's `DCError.Code` (DeviceCheck's `DCError.h`, domain `com.apple.devicecheck.error`), so that
/// their mapping to ``TesseraError`` is plain Swift that the Linux tests cover.
enum AppAttestErrorCode: Int, Sendable, CaseIterable {
    /// `DCError.unknownSystemFailure`: a failure the system does not explain.
    case unknownSystemFailure = 0
    /// `DCError.featureUnsupported`: App Attest is not available on this device.
    case featureUnsupported = 1
    /// `DCError.invalidInput`: the key ID or the client data hash is not what the service takes.
    case invalidInput = 2
    /// `DCError.invalidKey`: the key is gone or cannot be used (attested already, the app reinstalled, the device restored).
    case invalidKey = 3
    /// `DCError.serverUnavailable`: Apple's App Attest service could not be reached; the same key can be attested later.
    case serverUnavailable = 4

    /// `DCErrorDomain`.
    static let domain = "com.apple.devicecheck.error"

    /// The failure `DCAppAttestService` reported during `step` (`generateKey`, `attestKey`, `generateAssertion`), by
    /// its code: `invalidKey` is `ErrorCode.appAttestDeviceNotAttested` (attest a new key), `serverUnavailable`
    /// `ErrorCode.networkError` (try again), others `ErrorCode.localFailure`; the message names step and code.
    static func failure(code: Int, step: String, description: String) -> TesseraError {
        let name = Self(rawValue: code).map { "DCError.\($0)" } ?? "DCError \(code)"
        switch Self(rawValue: code) {
        case .invalidKey:
            return TesseraError(
                code: .appAttestDeviceNotAttested,
                message: "App Attest \(step): the key is not valid on this device any more (\(name)); attest a new key"
            )
        case .serverUnavailable:
            return TesseraError(code: .networkError, message: "App Attest \(step): Apple's service could not be reached (\(name)); try again later")
        default:
            return TesseraError(code: .localFailure, message: "App Attest \(step) failed (\(name)): \(description)")
        }
    }
}
