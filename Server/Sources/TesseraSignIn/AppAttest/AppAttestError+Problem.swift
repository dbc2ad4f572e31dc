import TesseraCore
import TesseraWebAuthn

extension AppAttestError {
    /// The stable problem code of this refusal (7410–7421, one per ``code``).
    package var errorCode: ErrorCode {
        switch self {
        case .malformed: .appAttestMalformed
        case .unsupportedFormat: .appAttestUnsupportedFormat
        case .wrongChain: .appAttestWrongChain
        case .certificateExpired: .appAttestCertificateExpired
        case .nonceMismatch: .appAttestNonceMismatch
        case .keyIdMismatch: .appAttestKeyIdMismatch
        case .rpIdMismatch: .appAttestRpIdMismatch
        case .counterNotZero: .appAttestCounterNotZero
        case .aaguidMismatch: .appAttestAaguidMismatch
        case .credentialIdMismatch: .appAttestCredentialIdMismatch
        case .badSignature: .appAttestBadSignature
        case .counterNotGrown: .appAttestCounterNotGrown
        }
    }

    /// The problem answer: ``errorCode``, with the verifier's sentence as the detail.
    package var problem: AppError { AppError.appAttestRefused(errorCode, detail: description) }
}
