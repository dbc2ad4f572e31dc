import Crypto
import Foundation
import TesseraCore

extension TesseraClient {
    /// A new authenticator registration for this device (the seed's `client.operations.registration`).
    ///
    /// ```swift
    /// let info = try await tessera.registration()
    ///     .username("alice")
    ///     .authenticatorSelector(ClosureAuthenticatorSelector.fixed(.pin))
    ///     .pinEnroller(myPinScreen)
    ///     .execute()
    /// ```
    public func registration() -> Registration { Registration(client: self) }

    /// The seed's `client.operations`: ``Operations/registration`` and ``Operations/authentication``.
    public var operations: Operations { Operations(client: self) }

    /// The key store of this device's authenticator keys: the one the device key store provides
    /// (``AuthenticatorKeyStoreProviding``), or a memory store tied to it when it is an object.
    /// - Throws: ``FidoErrorCode/noSuitableAuthenticator`` for a value-type device key store that provides none.
    public var authenticatorKeyStore: any AuthenticatorKeyStore {
        get throws {
            if let providing = keyStore as? any AuthenticatorKeyStoreProviding { return providing.authenticatorKeyStore }
            if let object = keyStore as? any DeviceKeyStore & AnyObject { return AuthenticatorKeyStoreRegistry.store(for: object) }
            throw FidoErrorCode.noSuitableAuthenticator
        }
    }

    /// The client's policy (`GET /v1/policy`): the authenticators it allows, its PIN and password rules
    /// and whether biometrics may fall back to the device passcode.
    /// - Throws: ``TesseraError``.
    public func fetchPolicy() async throws -> ClientPolicy {
        try await call("GET", "/v1/policy")
    }

    /// The authenticators registered for this device (`GET /v1/devices/authenticators`, signed by the device key).
    /// - Throws: ``TesseraError`` (``ErrorCode/deviceUnknown`` when the device is not registered).
    public func listAuthenticators() async throws -> [AuthenticatorInfo] {
        let list: AuthenticatorList = try await call("GET", "/v1/devices/authenticators", signedBy: try signingDeviceId())
        return list.authenticators
    }

    /// Deletes an authenticator of this device (`DELETE /v1/devices/authenticators/{id}`, signed) and the
    /// local key of its type.
    /// - Parameter id: The authenticator id (`atr_…`), from ``listAuthenticators()`` or the registration.
    /// - Throws: ``TesseraError`` (``ErrorCode/authenticatorUnknown`` for an id the server does not know).
    public func deleteAuthenticator(id: String) async throws {
        let deviceId = try signingDeviceId()
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw TesseraError(code: .authenticatorUnknown, message: "No authenticator \(id)")
        }
        let type = try await listAuthenticators().first(where: { $0.id == id })?.type
        let _: NoContent = try await call("DELETE", "/v1/devices/authenticators/\(id)", signedBy: deviceId)
        if let type { try authenticatorKeyStore.delete(type) }
    }

    /// Signs `data` with the local key of an authenticator (for instance a challenge).
    /// - Parameters:
    ///   - type: The authenticator type.
    ///   - data: The bytes to sign.
    ///   - unlockSecret: The PIN or password, for those types.
    ///   - currentBiometricDomainState: The OS biometric domain state now (``BiometricUserVerifier/domainState``),
    ///     for a biometric authenticator registered with `invalidateOnNewOsBiometrics`.
    /// - Throws: ``FidoErrorCode``: ``FidoErrorCode/keyDisappearedPermanently`` once the OS biometrics changed
    ///   (the key is deleted), ``FidoErrorCode/authenticatorAccessDenied`` for a wrong secret,
    ///   ``FidoErrorCode/noSuitableAuthenticator`` without key.
    public func signWithAuthenticator(
        _ type: AuthenticatorType, data: Data, unlockSecret: String? = nil, currentBiometricDomainState: Data? = nil
    ) throws -> P256.Signing.ECDSASignature {
        try authenticatorKeyStore.sign(type, data: data, unlockSecret: unlockSecret, currentBiometricDomainState: currentBiometricDomainState)
    }
}
