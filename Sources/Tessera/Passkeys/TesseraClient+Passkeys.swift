import Foundation
import TesseraCore

extension TesseraClient {
    /// The passkeys of this device's user at this app (`GET /v1/devices/passkeys`, signed by the device key),
    /// oldest first: the ones the user added on the hosted sign-in page or anywhere else for this client.
    /// - Throws: ``TesseraError`` (``ErrorCode/deviceUnknown`` when the device is not registered).
    public func listPasskeys() async throws -> [PasskeyInfo] {
        let list: PasskeyList = try await call("GET", "/v1/devices/passkeys", signedBy: try signingDeviceId())
        return list.passkeys
    }

    /// Renames one of the user's passkeys (`PATCH /v1/devices/passkeys/{id}`, signed).
    /// - Parameters:
    ///   - id: The passkey's ID (`pk_…`), from ``listPasskeys()``.
    ///   - name: The new name: 1 to 64 characters, no control characters (``ErrorCode/fieldInvalid`` otherwise).
    /// - Returns: The passkey as it is now.
    /// - Throws: ``TesseraError`` (``ErrorCode/passkeyUnknown`` for a passkey that is not the user's or is revoked).
    public func renamePasskey(id: String, name: String) async throws -> PasskeyInfo {
        try await call("PATCH", "/v1/devices/passkeys/\(try Self.passkeyPath(id))", body: ["name": name], signedBy: try signingDeviceId())
    }

    /// Deletes (revokes) one of the user's passkeys (`DELETE /v1/devices/passkeys/{id}`, signed): it signs in no
    /// more, and the verifier nodes are told. The credential stays in the authenticator until the user removes it there.
    /// - Parameter id: The passkey's ID (`pk_…`), from ``listPasskeys()``.
    /// - Throws: ``TesseraError`` (``ErrorCode/passkeyUnknown`` for a passkey that is not the user's or is revoked already).
    public func deletePasskey(id: String) async throws {
        let _: NoContent = try await call("DELETE", "/v1/devices/passkeys/\(try Self.passkeyPath(id))", signedBy: try signingDeviceId())
    }

    /// The ID as a path segment: letters, digits, `_` and `-` only.
    static func passkeyPath(_ id: String) throws -> String {
        guard !id.isEmpty, id.count <= 100, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw TesseraError(code: .passkeyUnknown, message: "No passkey \(id)")
        }
        return id
    }
}

extension TesseraClient {
    /// Creates a passkey for this device's user with the platform's passkey API and registers it
    /// (`POST /v1/devices/passkeys/registration/options`, then `…/registration/verify`, both signed by the device key).
    /// The user's passkeys already registered are excluded. The passkey then signs in on the hosted sign-in
    /// page and with ``signInWithPasskey(using:)``, on this device and, when it syncs, on the user's others.
    /// - Parameters:
    ///   - name: A name for it (1 to 64 characters); "Passkey" when nil.
    ///   - provider: The platform's passkey API: `ApplePasskeyProvider` on Apple platforms.
    /// - Returns: The passkey as the server stored it.
    /// - Throws: ``TesseraError``: ``ErrorCode/passkeyCanceled`` (the user closed the sheet),
    ///   ``ErrorCode/passkeyExists`` (the authenticator already holds one of the user's passkeys),
    ///   ``ErrorCode/passkeysUnavailable`` (the server's issuer cannot be a passkey domain),
    ///   ``ErrorCode/passkeyInvalid`` (the server refused the response; the message names the WebAuthn step).
    public func registerPasskey(name: String? = nil, using provider: some PasskeyProvider) async throws -> PasskeyInfo {
        let deviceId = try signingDeviceId()
        let options: PasskeyCreationChallenge = try await call(
            "POST", "/v1/devices/passkeys/registration/options", body: [String: String](), signedBy: deviceId
        )
        let created = try await provider.createPasskey(try PasskeyCeremony.creationRequest(options.publicKey))
        let body = PasskeyRegistrationBody(challengeId: options.challengeId, credential: PasskeyCeremony.registrationResponse(created), name: name)
        return try await call("POST", "/v1/devices/passkeys/registration/verify", body: body, signedBy: deviceId)
    }

    /// Signs a user in with one of their passkeys, no registered device needed (a new phone, a reinstalled
    /// app): usernameless, the system offers the passkeys it holds for the server's domain
    /// (`POST /v1/passkeys/authentication/options`, then `…/authentication/verify`).
    /// - Parameter provider: The platform's passkey API: `ApplePasskeyProvider` on Apple platforms.
    /// - Returns: Who signed in, and a result token for the app's backend (its `device_id` is the passkey's ID).
    /// - Throws: ``TesseraError``: ``ErrorCode/passkeyCanceled``, ``ErrorCode/passkeyUnknown`` (a passkey the
    ///   server does not know or revoked), ``ErrorCode/passkeyInvalid``, ``ErrorCode/passkeyCounterRegression``.
    public func signInWithPasskey(using provider: some PasskeyProvider) async throws -> PasskeySignInResult {
        let options: PasskeyRequestChallenge = try await call("POST", "/v1/passkeys/authentication/options", body: [String: String]())
        let assertion = try await provider.assertPasskey(try PasskeyCeremony.assertionRequest(options.publicKey))
        let body = PasskeyAuthenticationBody(challengeId: options.challengeId, credential: PasskeyCeremony.authenticationResponse(assertion))
        return try await call("POST", "/v1/passkeys/authentication/verify", body: body)
    }
}
