import Foundation
import TesseraCore

/// The plain-Swift half of a passkey ceremony in an app: the server's WebAuthn options decoded for a
/// ``PasskeyProvider``, and the provider's result encoded as the JSON the server verifies
/// (`RegistrationResponseJSON`, `AuthenticationResponseJSON`).
enum PasskeyCeremony {
    static func creationRequest(_ options: PasskeyJSON.CreationOptions) throws -> PasskeyCreationRequest {
        PasskeyCreationRequest(
            relyingPartyId: options.rp.id, challenge: try bytes(options.challenge, "challenge"), userId: try bytes(options.user.id, "user.id"),
            userName: options.user.name, excludedCredentialIds: try options.excludeCredentials.map { try bytes($0.id, "excludeCredentials") },
            requiresUserVerification: options.authenticatorSelection.userVerification == "required"
        )
    }

    static func assertionRequest(_ options: PasskeyJSON.RequestOptions) throws -> PasskeyAssertionRequest {
        PasskeyAssertionRequest(
            relyingPartyId: options.rpId, challenge: try bytes(options.challenge, "challenge"),
            allowedCredentialIds: try options.allowCredentials.map { try bytes($0.id, "allowCredentials") },
            requiresUserVerification: options.userVerification == "required"
        )
    }

    static func registrationResponse(_ created: PasskeyCreation) -> PasskeyJSON.RegistrationResponse {
        let id = MessageSignature.base64URL(created.credentialId)
        return PasskeyJSON.RegistrationResponse(
            id: id, rawId: id, type: "public-key",
            response: .init(
                clientDataJSON: MessageSignature.base64URL(created.clientDataJSON), attestationObject: MessageSignature.base64URL(created.attestationObject),
                transports: created.transports.isEmpty ? nil : created.transports
            )
        )
    }

    static func authenticationResponse(_ assertion: PasskeyAssertion) -> PasskeyJSON.AuthenticationResponse {
        let id = MessageSignature.base64URL(assertion.credentialId)
        return PasskeyJSON.AuthenticationResponse(
            id: id, rawId: id, type: "public-key",
            response: .init(
                clientDataJSON: MessageSignature.base64URL(assertion.clientDataJSON),
                authenticatorData: MessageSignature.base64URL(assertion.authenticatorData), signature: MessageSignature.base64URL(assertion.signature),
                userHandle: assertion.userHandle.map(MessageSignature.base64URL)
            )
        )
    }

    /// base64url (no padding) to bytes; ``ErrorCode/invalidResponse`` naming the member otherwise.
    static func bytes(_ text: String, _ member: String) throws -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard !text.contains("="), !text.contains("+"), !text.contains("/"), let data = Data(base64Encoded: base64) else {
            throw TesseraError(code: .invalidResponse, message: "The server's passkey options hold a \(member) that is not base64url")
        }
        return data
    }

    /// The failure a platform's passkey sheet reported, by `ASAuthorizationError`'s code: 1001 (canceled) is
    /// ``ErrorCode/passkeyCanceled``, 1006 (matchedExcludedCredential) ``ErrorCode/passkeyExists``, others
    /// ``ErrorCode/localFailure`` naming the code.
    static func platformFailure(code: Int, description: String) -> TesseraError {
        switch code {
        case 1001: TesseraError(code: .passkeyCanceled, message: "The passkey sheet was closed")
        case 1006: TesseraError(code: .passkeyExists, message: "This device already holds a passkey of this account")
        default: TesseraError(code: .localFailure, message: "The passkey sheet failed (ASAuthorizationError \(code)): \(description)")
        }
    }
}
