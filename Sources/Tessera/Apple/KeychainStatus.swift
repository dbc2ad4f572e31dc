/// The `OSStatus` values the Keychain and Secure Enclave calls of the SDK can return (raw values from
/// `SecBase.h` / `MacErrors.h`), and what each means for the SDK: the mapping is plain Swift so that
/// the Linux tests cover it.
public enum KeychainStatus: Int32, Sendable, CaseIterable {
    /// `errSecSuccess`.
    case success = 0
    /// `errSecItemNotFound`: no such item.
    case itemNotFound = -25300
    /// `errSecDuplicateItem`: the item exists (an add becomes an update).
    case duplicateItem = -25299
    /// `errSecInteractionNotAllowed`: the device is locked, or a prompt is not allowed now.
    case interactionNotAllowed = -25308
    /// `errSecAuthFailed`: the user could not be authenticated for the item.
    case authFailed = -25293
    /// `errSecUserCanceled`: the user cancelled the prompt for the item.
    case userCanceled = -128
    /// `errSecParam`: a bad parameter (a bug in the query).
    case param = -50
    /// `errSecMissingEntitlement`: the app lacks the keychain entitlement.
    case missingEntitlement = -34018
    /// `errSecNotAvailable`: no keychain is available.
    case notAvailable = -25291
    /// `errSecDecode`: the item could not be decoded.
    case decode = -26275
    /// `errSecAllocate`: out of memory.
    case allocate = -108
    /// `errSecUnimplemented`.
    case unimplemented = -4

    /// The FIDO error code the failure shows as (nil for ``success``): a missing item is
    /// ``FidoErrorCode/noSuitableAuthenticator``, a refused or locked item
    /// ``FidoErrorCode/authenticatorAccessDenied``, a cancelled prompt ``FidoErrorCode/userCancelled``.
    public var fidoErrorCode: FidoErrorCode? {
        switch self {
        case .success: nil
        case .itemNotFound, .notAvailable: .noSuitableAuthenticator
        case .interactionNotAllowed, .authFailed: .authenticatorAccessDenied
        case .userCanceled: .userCancelled
        case .duplicateItem, .param, .missingEntitlement, .decode, .allocate, .unimplemented: .unknown
        }
    }

    /// The FIDO error code of any `OSStatus` (an unknown non-zero status is ``FidoErrorCode/unknown``).
    public static func fidoErrorCode(forRawValue rawValue: Int32) -> FidoErrorCode? {
        guard let status = KeychainStatus(rawValue: rawValue) else { return .unknown }
        return status.fidoErrorCode
    }
}

/// A Keychain or Secure Enclave call failed with an `OSStatus`.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call that failed (`SecItemAdd`, …).
    public let operation: String
    /// The `OSStatus` it returned.
    public let status: Int32

    /// Creates an error.
    public init(operation: String, status: Int32) {
        self.operation = operation
        self.status = status
    }

    /// What the failure shows as to FIDO operations (see ``KeychainStatus/fidoErrorCode``).
    public var fidoErrorCode: FidoErrorCode { KeychainStatus.fidoErrorCode(forRawValue: status) ?? .unknown }

    /// `"<operation> failed: OSStatus <status>"`.
    public var description: String { "\(operation) failed: OSStatus \(status)" }
}
