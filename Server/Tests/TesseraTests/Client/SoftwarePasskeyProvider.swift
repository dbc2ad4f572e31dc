import Foundation
import Synchronization
import Tessera
import TesseraCore
import TesseraServerTestSupport
import TesseraWebAuthn

/// The SDK's ``PasskeyProvider`` seam over the software authenticator (a test double of Apple's platform
/// authenticator, named so): it answers the decoded requests as `ASAuthorizationController` would, refuses
/// an excluded credential with 7304 as the system sheet does, and records what it was asked.
final class SoftwarePasskeyProvider: PasskeyProvider {
    private let state: Mutex<(authenticator: SoftwareAuthenticator, creations: [PasskeyCreationRequest], assertions: [PasskeyAssertionRequest])>
    /// The origin the client data names (an Android app's `android:apk-key-hash:…`, or nil for the authenticator's own).
    let origin: String?

    init(_ authenticator: SoftwareAuthenticator, origin: String? = nil) {
        state = Mutex((authenticator, [], []))
        self.origin = origin
    }

    var creations: [PasskeyCreationRequest] { state.withLock { $0.creations } }
    var assertions: [PasskeyAssertionRequest] { state.withLock { $0.assertions } }
    var authenticator: SoftwareAuthenticator { state.withLock { $0.authenticator } }

    func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        let origin = self.origin
        let response: PasskeyJSON.RegistrationResponse = try state.withLock { state in
            state.creations.append(request)
            guard !request.excludedCredentialIds.contains(Data(state.authenticator.credentialId)) else {
                throw TesseraError(code: .passkeyExists, message: "excluded")
            }
            let options = PasskeyJSON.CreationOptions(
                challenge: Base64URL.encode([UInt8](request.challenge)), rp: .init(id: request.relyingPartyId, name: ""),
                user: .init(id: Base64URL.encode([UInt8](request.userId)), name: request.userName, displayName: request.userName),
                pubKeyCredParams: [.init(alg: -7)], timeout: 1, excludeCredentials: [], authenticatorSelection: .init(userVerification: "required"),
                attestation: "none"
            )
            return state.authenticator.create(options, origin: origin)
        }
        return PasskeyCreation(
            credentialId: try Self.data(response.rawId), clientDataJSON: try Self.data(response.response.clientDataJSON),
            attestationObject: try Self.data(response.response.attestationObject), transports: response.response.transports ?? []
        )
    }

    func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
        let origin = self.origin
        let response: PasskeyJSON.AuthenticationResponse = try state.withLock { state in
            state.assertions.append(request)
            let options = PasskeyJSON.RequestOptions(
                challenge: Base64URL.encode([UInt8](request.challenge)), timeout: 1, rpId: request.relyingPartyId, allowCredentials: [], userVerification: "required"
            )
            return try state.authenticator.get(options, origin: origin)
        }
        return PasskeyAssertion(
            credentialId: try Self.data(response.rawId), clientDataJSON: try Self.data(response.response.clientDataJSON),
            authenticatorData: try Self.data(response.response.authenticatorData), signature: try Self.data(response.response.signature),
            userHandle: try response.response.userHandle.map(Self.data)
        )
    }

    static func data(_ text: String) throws -> Data {
        guard let bytes = Base64URL.decode(text) else { throw TesseraError(code: .invalidResponse, message: "not base64url") }
        return Data(bytes)
    }
}
