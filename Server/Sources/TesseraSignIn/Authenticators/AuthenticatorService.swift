import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Authenticator registration (SPEC capability 7, the Nevis side): each authenticator has its own
/// P-256 key, tied to the device that signed the registration, and the client's policy decides
/// which types may be registered, the PIN and password rules and passcode fallback. The server is
/// the one that refuses; the SDK only avoids asking for what would be refused.
package struct AuthenticatorService: Sendable {
    package let database: any Database
    package let repository: any AuthenticatorRepository
    package let devices: any DeviceRepository
    package let policies: ClientPolicyRepository
    package let random: RandomSource
    package let clock: WallClock

    package init(
        database: any Database,
        repository: any AuthenticatorRepository,
        devices: any DeviceRepository,
        policies: ClientPolicyRepository,
        random: RandomSource,
        clock: WallClock
    ) {
        self.database = database
        self.repository = repository
        self.devices = devices
        self.policies = policies
        self.random = random
        self.clock = clock
    }

    package func register(_ request: AuthenticatorRegistrationRequest, deviceId: String, client: Client) async throws -> AuthenticatorInfo {
        let type = try Self.type(aaid: request.aaid)
        let username = try Self.requiredUsername(request.username)
        let policy = try await policies.policy(clientId: client.id)
        guard policy.allowedAuthenticators.contains(type) else {
            throw AppError.authenticatorNotAllowed(detail: "This app does not allow \(type.rawValue) authenticators")
        }
        if request.allowDevicePasscodeAsFallback, !policy.allowDevicePasscodeFallback {
            throw AppError.passcodeFallbackNotAllowed()
        }
        switch type {
        case .pin:
            guard let pin = request.pin else { throw AppError.fieldMissing("pin", "A PIN authenticator needs pin") }
            try policy.enforce(pin: pin)
            guard request.password == nil else { throw AppError.invalidField("password", "only a password authenticator takes password") }
        case .password:
            guard let password = request.password else {
                throw AppError.fieldMissing("password", "A password authenticator needs password")
            }
            try policy.enforce(password: password)
            guard request.pin == nil else { throw AppError.invalidField("pin", "only a PIN authenticator takes pin") }
        default:
            guard request.pin == nil, request.password == nil else {
                throw AppError.invalidField(request.pin != nil ? "pin" : "password", "only PIN and password authenticators take a secret")
            }
        }
        guard let key = P256.Signing.PublicKey(x963Base64: request.publicKey) else {
            throw AppError.authenticatorKeyInvalid("publicKey must be a P-256 public key (X9.63, base64)", field: "publicKey")
        }
        guard let der = Data(base64Encoded: request.keySignature), let signature = try? P256.Signing.ECDSASignature(derRepresentation: der),
              key.isValidSignature(
                  signature, for: AuthenticatorRegistrationRequest.proofBytes(deviceId: deviceId, aaid: request.aaid, publicKey: request.publicKey)
              )
        else {
            throw AppError.authenticatorKeyInvalid("keySignature does not verify with publicKey", field: "keySignature")
        }
        try AppError.checkLengths([("deviceName", request.deviceName, 100), ("pushToken", request.pushToken, 4096)])
        let info = AuthenticatorInfo(
            id: random.identifier(prefix: "atr_"), deviceId: deviceId, aaid: type.aaid, type: type, publicKey: request.publicKey,
            allowDevicePasscodeAsFallback: request.allowDevicePasscodeAsFallback,
            invalidateOnNewOsBiometrics: type.isBiometric && request.invalidateOnNewOsBiometrics, createdAt: clock.now()
        )
        let repository = self.repository, devices = self.devices
        do {
            try await database.transaction { sql in
                guard let userId = try await devices.activeUserId(deviceId: deviceId, in: sql) else {
                    throw AppError.deviceRevoked()
                }
                try await Self.requireDeviceUser(username, deviceId: deviceId, devices: devices, in: sql)
                try await repository.insert(info, userId: userId, in: sql)
                // The seed's rule: device information given at an earlier registration is kept.
                try await devices.keepInformation(deviceId: deviceId, name: request.deviceName, pushToken: request.pushToken, in: sql)
            }
        } catch let error where UniqueViolation.detail(of: error) != nil {
            throw AppError.authenticatorExists(detail: "This device has an active \(type.rawValue) authenticator already; delete it first")
        }
        return info
    }

    /// The authenticator type `aaid` names; a problem naming the field otherwise.
    package static func type(aaid: String) throws -> AuthenticatorType {
        guard let type = AuthenticatorType(aaid: aaid) else {
            throw AppError.invalidField("aaid", "aaid must be one of \(AuthenticatorType.allCases.map(\.aaid).joined(separator: ", "))")
        }
        return type
    }

    /// The request's `username`, which registration and authentication both require (1004 when missing or empty).
    package static func requiredUsername(_ username: String?) throws -> String {
        guard let username, !username.isEmpty else {
            throw AppError.fieldMissing("username", "username is required: the user key of the device's user")
        }
        return username
    }

    /// Refuses (7208) a `username` that is not the user key of the device's user: the seed's username
    /// names the user the device holds, never another one.
    package static func requireDeviceUser(_ username: String, deviceId: String, devices: any DeviceRepository, in sql: any SQLDatabase) async throws {
        guard try await devices.userKey(ofDevice: deviceId, in: sql) == username else {
            throw AppError.authenticatorUsernameMismatch(
                detail: "Register authenticators for the user the device was signed up or re-registered for", field: "username"
            )
        }
    }

    package func list(deviceId: String) async throws -> AuthenticatorList {
        let repository = self.repository
        return AuthenticatorList(authenticators: try await database.read { try await repository.list(deviceId: deviceId, in: $0) })
    }

    /// The authenticators of a client's user (admin).
    package func list(userId: String) async throws -> AuthenticatorList {
        let repository = self.repository, devices = self.devices
        return AuthenticatorList(authenticators: try await database.read { sql in
            try await repository.list(userId: userId, deviceIds: try await devices.activeIds(userId: userId, in: sql), in: sql)
        })
    }

    /// Deletes one; `deviceId` limits it to that device's (7204 otherwise).
    package func delete(id: String, deviceId: String?) async throws {
        let repository = self.repository, now = clock.now()
        guard try await database.withSQL({ try await repository.delete(id: id, deviceId: deviceId, now: now, in: $0) }) else {
            throw AppError.authenticatorUnknown()
        }
    }
}
