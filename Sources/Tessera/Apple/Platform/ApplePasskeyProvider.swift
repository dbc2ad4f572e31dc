#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

/// Passkeys through Apple's `ASAuthorizationController` and `ASAuthorizationPlatformPublicKeyCredentialProvider`:
/// the ``PasskeyProvider`` to pass to ``TesseraClient/registerPasskey(name:using:)`` and
/// ``TesseraClient/signInWithPasskey(using:)``.
///
/// The app needs the Associated Domains entitlement with `webcredentials:<the server's domain>`, and the
/// server lists the app (`tessera admin passkeys app-links --client … --apple-app-id TEAMID.bundle.id`),
/// which it then serves in `/.well-known/apple-app-site-association`.
public struct ApplePasskeyProvider: PasskeyProvider {
    let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    /// A provider that shows the system's sheet over the window `anchor` returns (called on the main actor).
    public init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
        self.anchor = anchor
    }

    /// Creates a passkey with the platform authenticator (iCloud Keychain or the user's passkey manager).
    public func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        guard case .created(let created) = try await Self.create(request, anchor: anchor) else {
            throw TesseraError(code: .localFailure, message: "The passkey sheet answered a registration with something else")
        }
        return created
    }

    /// Signs the challenge with one of the user's passkeys for the relying party.
    public func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
        guard case .asserted(let assertion) = try await Self.assert(request, anchor: anchor) else {
            throw TesseraError(code: .localFailure, message: "The passkey sheet answered a sign-in with something else")
        }
        return assertion
    }

    @MainActor static func create(_ request: PasskeyCreationRequest, anchor: @MainActor () -> ASPresentationAnchor) async throws -> PasskeySheet.Outcome {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyId)
        let registration = provider.createCredentialRegistrationRequest(challenge: request.challenge, name: request.userName, userID: request.userId)
        registration.userVerificationPreference = request.requiresUserVerification ? .required : .preferred
        registration.excludedCredentials = request.excludedCredentialIds.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        return try await PasskeySheet.perform(registration, anchor: anchor())
    }

    @MainActor static func assert(_ request: PasskeyAssertionRequest, anchor: @MainActor () -> ASPresentationAnchor) async throws -> PasskeySheet.Outcome {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyId)
        let assertion = provider.createCredentialAssertionRequest(challenge: request.challenge)
        assertion.userVerificationPreference = request.requiresUserVerification ? .required : .preferred
        assertion.allowedCredentials = request.allowedCredentialIds.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        return try await PasskeySheet.perform(assertion, anchor: anchor())
    }
}

/// One run of the system's passkey sheet: the controller's delegate and presentation context, resuming the
/// caller once with what the sheet gave (copied out as plain values) or the failure, mapped to ``TesseraError``.
final class PasskeySheet: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding, @unchecked Sendable {
    /// What the sheet gave.
    enum Outcome: Sendable {
        case created(PasskeyCreation)
        case asserted(PasskeyAssertion)
    }

    private let anchor: ASPresentationAnchor
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Outcome, any Error>?

    init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    @MainActor static func perform(_ request: ASAuthorizationRequest, anchor: ASPresentationAnchor) async throws -> Outcome {
        let sheet = PasskeySheet(anchor: anchor)
        let controller = ASAuthorizationController(authorizationRequests: [request])
        controller.delegate = sheet
        controller.presentationContextProvider = sheet
        // The controller holds its delegate weakly: both live until the sheet answered.
        defer { withExtendedLifetime((sheet, controller)) {} }
        return try await withCheckedThrowingContinuation { continuation in
            sheet.lock.withLock { sheet.continuation = continuation }
            controller.performRequests()
        }
    }

    private func finish(_ result: Result<Outcome, any Error>) {
        let continuation = lock.withLock { () -> CheckedContinuation<Outcome, any Error>? in
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(with: result)
    }

    nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        if let created = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration, let attestation = created.rawAttestationObject {
            finish(.success(.created(PasskeyCreation(
                credentialId: created.credentialID, clientDataJSON: created.rawClientDataJSON, attestationObject: attestation, transports: ["internal", "hybrid"]
            ))))
        } else if let asserted = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion,
                  let authenticatorData = asserted.rawAuthenticatorData, let signature = asserted.signature {
            finish(.success(.asserted(PasskeyAssertion(
                credentialId: asserted.credentialID, clientDataJSON: asserted.rawClientDataJSON, authenticatorData: authenticatorData,
                signature: signature, userHandle: asserted.userID
            ))))
        } else {
            finish(.failure(TesseraError(code: .localFailure, message: "The passkey sheet gave a credential that is not a platform passkey")))
        }
    }

    nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        let failure = error as NSError
        finish(.failure(
            failure.domain == ASAuthorizationErrorDomain
                ? PasskeyCeremony.platformFailure(code: failure.code, description: failure.localizedDescription)
                : TesseraError(code: .localFailure, message: "The passkey sheet failed: \(failure.localizedDescription)")
        ))
    }
}
#endif
