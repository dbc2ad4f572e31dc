import Foundation
import Synchronization
import Tessera
import TesseraCore
import TesseraWebAuthn

/// The SDK's `PasskeyProvider` seam over the software authenticator (a test double of Apple's platform
/// authenticator, named so; for the tests and the benchmark's load generator): it answers the decoded requests as
/// `ASAuthorizationController` would, refuses an excluded credential with 7304 as the system sheet does, and records
/// what it was asked (unless told not to: the benchmark).
package final class SoftwarePasskeyProvider: PasskeyProvider {
    private let state: Mutex<(authenticator: SoftwareAuthenticator, creations: [PasskeyCreationRequest], assertions: [PasskeyAssertionRequest])>
    /// The origin the client data names (an Android app's `android:apk-key-hash:…`, or nil for the authenticator's own).
    package let origin: String?

    /// Whether the requests are kept (``creations``, ``assertions``).
    let recording: Bool

    package init(_ authenticator: SoftwareAuthenticator, origin: String? = nil, recording: Bool = true) {
        state = Mutex((authenticator, [], []))
        self.origin = origin
        self.recording = recording
    }

    package var creations: [PasskeyCreationRequest] { state.withLock { $0.creations } }
    package var assertions: [PasskeyAssertionRequest] { state.withLock { $0.assertions } }
    package var authenticator: SoftwareAuthenticator { state.withLock { $0.authenticator } }

    package func createPasskey(_ request: PasskeyCreationRequest) async throws -> PasskeyCreation {
        let origin = self.origin, recording = self.recording
        let response: PasskeyJSON.RegistrationResponse = try state.withLock { state in
            if recording { state.creations.append(request) }
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

    package func assertPasskey(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
        let origin = self.origin, recording = self.recording
        let response: PasskeyJSON.AuthenticationResponse = try state.withLock { state in
            if recording { state.assertions.append(request) }
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

    package static func data(_ text: String) throws -> Data {
        guard let bytes = Base64URL.decode(text) else { throw TesseraError(code: .invalidResponse, message: "not base64url") }
        return Data(bytes)
    }
}
