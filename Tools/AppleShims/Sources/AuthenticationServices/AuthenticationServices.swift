// Transcribed from Apple's AuthenticationServices documentation (ASAuthorizationController.h,
// ASAuthorizationPlatformPublicKeyCredentialProvider.h and the request, descriptor, registration and assertion
// headers, ASAuthorizationError.h): only the symbols Sources/Tessera/Apple/Platform uses. Bodies are
// fatalError(): this module exists to type-check the adapters on Linux, never to run them.
import Foundation

/// Stands for `UIWindow` (iOS) or `NSWindow` (macOS), which `ASPresentationAnchor` is on Apple platforms.
@MainActor open class ShimWindow: NSObject {}

/// `ASPresentationAnchor`: the window the system's sheet is shown over.
public typealias ASPresentationAnchor = ShimWindow

/// `ASAuthorizationErrorDomain`.
public let ASAuthorizationErrorDomain: String = "com.apple.AuthenticationServices.AuthorizationError"

/// `ASAuthorizationError.Code` (NS_ERROR_ENUM(ASAuthorizationErrorDomain)).
public struct ASAuthorizationError: Error {
    public enum Code: Int, @unchecked Sendable {
        case unknown = 1000
        case canceled = 1001
        case invalidResponse = 1002
        case notHandled = 1003
        case failed = 1004
        case notInteractive = 1005
        case matchedExcludedCredential = 1006
    }
    public var code: Code { fatalError() }
}

/// `ASAuthorizationCredential`.
public protocol ASAuthorizationCredential: NSObjectProtocol {}

/// `ASAuthorizationRequest`.
open class ASAuthorizationRequest: NSObject {}

/// `ASAuthorization`.
open class ASAuthorization: NSObject {
    open var credential: any ASAuthorizationCredential { fatalError() }
}

/// `ASAuthorizationPublicKeyCredentialUserVerificationPreference` (NS_TYPED_EXTENSIBLE_ENUM of NSString).
public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: RawRepresentable, Hashable, Sendable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public static let preferred = Self(rawValue: "preferred")
    public static let required = Self(rawValue: "required")
    public static let discouraged = Self(rawValue: "discouraged")
}

/// `ASAuthorizationPlatformPublicKeyCredentialDescriptor`.
open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    public init(credentialID: Data) { fatalError() }
    open var credentialID: Data { fatalError() }
}

/// `ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest`.
open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        get { fatalError() }
        set { fatalError() }
    }
    /// iOS 17.4, macOS 14.4.
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] {
        get { fatalError() }
        set { fatalError() }
    }
}

/// `ASAuthorizationPlatformPublicKeyCredentialAssertionRequest`.
open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    open var userVerificationPreference: ASAuthorizationPublicKeyCredentialUserVerificationPreference {
        get { fatalError() }
        set { fatalError() }
    }
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] {
        get { fatalError() }
        set { fatalError() }
    }
}

/// `ASAuthorizationPlatformPublicKeyCredentialProvider`.
open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    public init(relyingPartyIdentifier: String) { fatalError() }
    open func createCredentialRegistrationRequest(challenge: Data, name: String, userID: Data)
        -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest { fatalError() }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest { fatalError() }
}

/// `ASAuthorizationPlatformPublicKeyCredentialRegistration`.
open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { fatalError() }
    open var rawClientDataJSON: Data { fatalError() }
    open var rawAttestationObject: Data? { fatalError() }
}

/// `ASAuthorizationPlatformPublicKeyCredentialAssertion`.
open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { fatalError() }
    open var rawClientDataJSON: Data { fatalError() }
    open var rawAuthenticatorData: Data! { fatalError() }
    open var signature: Data! { fatalError() }
    open var userID: Data! { fatalError() }
}

/// `ASAuthorizationControllerDelegate` (both methods optional in Objective-C).
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

extension ASAuthorizationControllerDelegate {
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {}
    public func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {}
}

/// `ASAuthorizationControllerPresentationContextProviding`.
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

/// `ASAuthorizationController`.
open class ASAuthorizationController: NSObject {
    public init(authorizationRequests: [ASAuthorizationRequest]) { fatalError() }
    weak open var delegate: (any ASAuthorizationControllerDelegate)?
    weak open var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    open func performRequests() { fatalError() }
}
