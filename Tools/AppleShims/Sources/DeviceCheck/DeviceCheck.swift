// Transcribed from Apple's DeviceCheck documentation (DCAppAttestService.h, DCError.h): only the symbols
// Sources/Tessera/Apple/Platform uses. Bodies are fatalError(): this module exists to type-check the adapters on
// Linux, never to run them.
import Foundation

/// `DCErrorDomain`.
public let DCErrorDomain: String = "com.apple.devicecheck.error"

/// `DCError` and its codes (NS_ERROR_ENUM(DCErrorDomain), DCError.h).
public struct DCError: Error {
    public enum Code: Int, @unchecked Sendable {
        case unknownSystemFailure = 0
        case featureUnsupported = 1
        case invalidInput = 2
        case invalidKey = 3
        case serverUnavailable = 4
    }
    public var code: Code { fatalError() }
}

/// `DCAppAttestService` (iOS 14, macOS 11, tvOS 15, watchOS 9). The Objective-C completion-handler methods
/// (`generateKeyWithCompletionHandler:`, `attestKey:clientDataHash:completionHandler:`,
/// `generateAssertion:clientDataHash:completionHandler:`) as Swift imports them, async.
open class DCAppAttestService: NSObject {
    /// `sharedService`.
    open class var shared: DCAppAttestService { fatalError() }
    /// `supported` (getter `isSupported`).
    open var isSupported: Bool { fatalError() }
    open func generateKey() async throws -> String { fatalError() }
    open func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { fatalError() }
    open func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { fatalError() }
}
