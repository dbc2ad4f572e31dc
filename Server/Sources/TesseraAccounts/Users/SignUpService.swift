import Crypto
import Foundation
import Logging
import TesseraCore

/// Sign-up (SPEC capability 2): duplicate checks, user-key availability, and the account creation
/// itself — the dispose token is consumed in the same transaction that inserts the user, device
/// and session, and uniqueness is left to the database's constraints.
public struct SignUpService: Sendable {
    package let database: any Database
    package let users: any UserRepository
    package let audit: any AuditLog
    package let issuer: DeviceIssuer
    package let otp: OTPService
    /// The client's policy, which a PIN or password set at sign-up must keep.
    package let policies: ClientPolicyRepository
    package let random: RandomSource
    package let clock: WallClock
    /// Tells the verifier nodes about the new device right after the commit.
    package var nodeSync: (any DeviceChangeFeed)?

    package init(
        database: any Database,
        users: any UserRepository,
        audit: any AuditLog,
        issuer: DeviceIssuer,
        otp: OTPService,
        policies: ClientPolicyRepository,
        random: RandomSource,
        clock: WallClock,
        nodeSync: (any DeviceChangeFeed)? = nil
    ) {
        self.database = database
        self.users = users
        self.audit = audit
        self.issuer = issuer
        self.otp = otp
        self.policies = policies
        self.random = random
        self.clock = clock
        self.nodeSync = nodeSync
    }
    package static let knownAuthTypes: Set<String> = ["NONE", "BIOMETRIC", "PASSCODE", "PIN", "PASSWORD"]

    package func isDuplicate(client: Client, type: VerifyType, data: String) async throws -> Bool {
        let users = self.users
        switch type {
        case .email:
            let email = try TargetNormalizer.normalize(data, channel: .email, field: "verifyData")
            return try await database.withSQL { try await users.emailExists(clientId: client.id, email: email, in: $0) }
        case .phoneNumber:
            let phone = try TargetNormalizer.normalize(data, channel: .sms, field: "verifyData")
            return try await database.withSQL { try await users.phoneExists(clientId: client.id, phone: phone, in: $0) }
        }
    }

    package func isUserKeyAvailable(client: Client, userKey: String) async throws -> Bool {
        try Self.validateUserKey(userKey)
        let users = self.users
        return try await !database.withSQL { try await users.userKeyExists(clientId: client.id, userKey: userKey, in: $0) }
    }

    package static func validateUserKey(_ userKey: String) throws {
        guard (1...64).contains(userKey.count),
              userKey.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-@".unicodeScalars.contains($0)) })
        else { throw AppError.invalidField("userKey", "userKey must be 1–64 letters, digits, '.', '_', '-' or '@'") }
    }

    /// Checks the request apart from the signature (the controller verifies that first).
    package func validate(_ request: SignUpRequest, client: Client, bundleId: String?) throws -> (email: String, phone: String, deviceKey: P256.Signing.PublicKey) {
        guard request.agreeGccs, request.agreePerson, request.agreeDevice else {
            throw AppError.agreementsRequired()
        }
        guard request.clientKey == client.clientKey else { throw AppError.invalidField("clientKey", "clientKey differs from the client key header") }
        guard request.appPackage == bundleId else { throw AppError.invalidField("appPackage", "appPackage differs from the bundle identifier header") }
        try Self.validateUserKey(request.userKey)
        let name = request.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else { throw AppError.invalidField("name", "name must be 1–100 characters") }
        guard Self.knownAuthTypes.contains(request.authType) else {
            throw AppError.invalidField("authType", "authType must be one of \(Self.knownAuthTypes.sorted().joined(separator: ", "))")
        }
        try AppError.checkLengths([("appVersion", request.appVersion, 32), ("os", request.os, 32), ("token", request.token, 4096)])
        let email = try TargetNormalizer.normalize(request.email, channel: .email, field: "email")
        let phone = try TargetNormalizer.normalize(request.phoneNumber, channel: .sms, field: "phoneNumber")
        let deviceKey = try P256.Signing.PublicKey(x963Base64: request.devicePublicKey, field: "devicePublicKey")
        _ = try P256.Signing.PublicKey(x963Base64: request.userVerificationPublicKey, field: "userVerificationPublicKey")
        return (email, phone, deviceKey)
    }

    /// Creates the account. Throws the duplicate codes when a constraint refuses the user.
    package func signUp(_ request: SignUpRequest, client: Client, email: String, phone: String) async throws -> SignUpResponse {
        try await policies.policy(clientId: client.id).enforceLocalSecret(authType: request.authType, pin: request.pin, password: request.password)
        let now = clock.now()
        let userId = random.identifier(prefix: "usr_")
        let user = UserRecord(
            id: userId, clientId: client.id, userKey: request.userKey, name: request.name.trimmingCharacters(in: .whitespacesAndNewlines),
            email: email, phone: phone, localAuthType: request.authType, createdAt: now
        )
        let device = try await issuer.admit(DeviceIssuer.NewDevice(
            devicePublicKey: request.devicePublicKey, userVerificationPublicKey: request.userVerificationPublicKey, os: request.os,
            appVersion: request.appVersion, pushToken: request.token, appAttest: request.appAttest,
            enrolmentSecret: request.disposeToken
        ), clientId: client.id)
        let users = self.users, issuer = self.issuer, otp = self.otp, audit = self.audit
        let issued: DeviceIssuer.Issued
        do {
            issued = try await database.transaction { sql in
                let verified = try await otp.consumeDisposeToken(request.disposeToken, client: client, purpose: .signup, now: now, in: sql)
                guard verified.matches(email: email, phone: phone) else {
                    throw AppError.disposeTokenTargetMismatch()
                }
                try await users.insert(user, in: sql)
                let issued = try await issuer.issue(device, userId: userId, clientId: client.id, now: now, in: sql)
                let signedUp = AuditEvent(
                    "user.signed_up", actor: AuditEvent.device(issued.deviceId), clientId: client.id, userId: userId,
                    details: ["verified": verified.channel.rawValue]
                )
                try await audit.append([signedUp] + DeviceIssuer.auditEvents(issued, userId: userId, clientId: client.id), in: sql)
                return issued
            }
        } catch {
            throw Self.duplicateError(for: error)
        }
        await nodeSync?.flush(deviceIds: [issued.deviceId])
        return SignUpResponse(
            userKey: request.userKey, deviceId: issued.deviceId, totpSecret: issued.totpSecret, sessionToken: issued.sessionToken,
            sessionExpiresIn: issued.sessionExpiresIn
        )
    }
}

extension SignUpService {
    /// The duplicate code for a unique-constraint violation on `users` (sign-up and the registration
    /// flow alike); any other error is returned as it is.
    package static func duplicateError(for error: any Error) -> any Error {
        guard let detail = UniqueViolation.detail(of: error) else { return error }
        if detail.contains("email") { return AppError.duplicateEmail() }
        if detail.contains("phone") { return AppError.duplicatePhoneNumber() }
        if detail.contains("user_key") { return AppError.userKeyTaken() }
        return error
    }
}
