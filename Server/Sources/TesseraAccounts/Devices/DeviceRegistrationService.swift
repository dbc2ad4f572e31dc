import Crypto
import Foundation
import Logging
import TesseraCore

/// Device re-registration (SPEC capability 4): an identity check that never says which part was
/// wrong, an OTP for purpose `recovery`, then the new device is registered and the old one revoked
/// in one transaction.
public struct DeviceRegistrationService: Sendable {
    package let database: any Database
    package let users: any UserRepository
    package let audit: any AuditLog
    package let issuer: DeviceIssuer
    package let otp: OTPService
    package let clock: WallClock
    /// Devices per user come from the client's policy (default: the server's `devices.maxPerUser`).
    package let policies: ClientPolicyRepository
    /// Identity checks allowed per IP address and per user key per hour (matching or not), so
    /// user keys and names cannot be guessed at speed.
    package var identityChecksPerHour = 20
    /// Tells the verifier nodes about the new device and the revoked ones right after the commit.
    package var nodeSync: (any DeviceChangeFeed)?

    package init(
        database: any Database,
        users: any UserRepository,
        audit: any AuditLog,
        issuer: DeviceIssuer,
        otp: OTPService,
        clock: WallClock,
        policies: ClientPolicyRepository,
        identityChecksPerHour: Int = 20,
        nodeSync: (any DeviceChangeFeed)? = nil
    ) {
        self.database = database
        self.users = users
        self.audit = audit
        self.issuer = issuer
        self.otp = otp
        self.clock = clock
        self.policies = policies
        self.identityChecksPerHour = identityChecksPerHour
        self.nodeSync = nodeSync
    }

    /// Sends a recovery code when user key, name and the registered address all match; answers the
    /// same ``ErrorCode/identityNotMatched`` whichever part is wrong.
    package func sendRecoveryOTP(_ request: RecoveryOTPRequest, client: Client, ip: String?) async throws -> RecoveryOTPResponse {
        let notMatched = Self.identityNotMatched
        let now = clock.now()
        let userKey = "recovery-user|\(client.id)|\(request.userKey)", ipKey = ip.map { "recovery-ip|\($0)" }
        let counts = try await database.transaction { sql in
            try await RateCounters().increment([userKey], shared: ipKey.map { [$0] } ?? [], now: now, window: .seconds(3600), in: sql)
        }
        if counts.values.contains(where: { $0 > identityChecksPerHour }) {
            throw AppError.identityCheckRateLimited(retryAfter: Int(3600 - (now / 1000) % 3600))
        }
        guard let target = try? TargetNormalizer.normalize(request.sendTarget, channel: request.sendType) else { throw notMatched }
        let users = self.users
        let user = try await database.withSQL { try await users.find(clientId: client.id, userKey: request.userKey, in: $0) }
        guard let user, Self.matches(name: request.name, of: user), target == Self.address(of: user, channel: request.sendType)
        else { throw notMatched }
        _ = try await otp.send(client: client, channel: request.sendType, target: target, purpose: .recovery, ip: ip)
        return RecoveryOTPResponse(lastLocalAuthType: user.localAuthType)
    }

    /// Registers the new device: consumes the recovery dispose token, checks it was verified for the
    /// account's address, revokes the old device(s) beyond the per-user limit, issues the new device.
    package func register(_ request: RegisterDeviceRequest, client: Client) async throws -> SignUpResponse {
        guard SignUpService.knownAuthTypes.contains(request.authType) else {
            throw AppError.invalidField("authType", "authType must be one of \(SignUpService.knownAuthTypes.sorted().joined(separator: ", "))")
        }
        _ = try P256.Signing.PublicKey(x963Base64: request.userVerificationPublicKey, field: "userVerificationPublicKey")
        let policy = try await policies.policy(clientId: client.id)
        try policy.enforceLocalSecret(authType: request.authType, pin: request.pin, password: request.password)
        let now = clock.now()
        let keep = policy.devicesPerUser - 1
        let users = self.users, issuer = self.issuer, otp = self.otp, audit = self.audit
        let device = try await issuer.admit(DeviceIssuer.NewDevice(
            devicePublicKey: request.devicePublicKey, userVerificationPublicKey: request.userVerificationPublicKey, os: request.os,
            appVersion: request.appVersion, pushToken: request.token, appAttest: request.appAttest,
            enrolmentSecret: request.disposeToken
        ), clientId: client.id)
        let issued = try await database.transaction { sql in
            let verified = try await otp.consumeDisposeToken(request.disposeToken, client: client, purpose: .recovery, now: now, in: sql)
            guard let user = try await users.find(clientId: client.id, userKey: request.userKey, in: sql),
                  verified.matches(email: user.email, phone: user.phone), request.otpType.map({ $0 == verified.channel }) ?? true
            else {
                throw AppError.disposeTokenTargetMismatch(detail: "The dispose token was verified for another account")
            }
            try Self.checkIdentity(request, of: user)
            // The seed: the local-auth type the recovery send returned "must be authenticated before Register New Device".
            guard request.authType == user.localAuthType else {
                throw AppError.localAuthTypeMismatch(
                    detail: "This account's devices use \(user.localAuthType); the new device must authenticate with it"
                )
            }
            let revoked = try await issuer.devices.revokeActive(userId: user.id, keepNewest: keep, now: now, in: sql)
            let issued = try await issuer.issue(device, userId: user.id, clientId: client.id, now: now, in: sql)
            try await audit.append(DeviceIssuer.auditEvents(issued, revoked: revoked, userId: user.id, clientId: client.id), in: sql)
            return (issued, revoked)
        }
        await nodeSync?.flush(deviceIds: [issued.0.deviceId] + issued.1)
        return SignUpResponse(
            userKey: request.userKey, deviceId: issued.0.deviceId, totpSecret: issued.0.totpSecret, sessionToken: issued.0.sessionToken,
            sessionExpiresIn: issued.0.sessionExpiresIn
        )
    }

    /// The seed's `ExistingUserData` carries name, e-mail and phone too: whichever the device sends
    /// must be the account's (answered like the identity check, without saying which part is wrong).
    package static func checkIdentity(_ request: RegisterDeviceRequest, of user: UserRecord) throws {
        if let name = request.name, !matches(name: name, of: user) { throw identityNotMatched }
        if let email = request.email, !email.isEmpty, !matches(email, channel: .email, of: user) { throw identityNotMatched }
        if let phone = request.phoneNumber, !phone.isEmpty, !matches(phone, channel: .sms, of: user) { throw identityNotMatched }
    }

    package static let identityNotMatched = AppError.identityNotMatched()

    /// Whether `name` (trimmed) is the account's, compared in constant time.
    package static func matches(name: String, of user: UserRecord) -> Bool {
        constantTimeEquals(Array(user.name.utf8), Array(name.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
    }

    /// Whether `target`, normalised, is the account's e-mail address (e-mail) or phone number (SMS).
    package static func matches(_ target: String, channel: OTPChannel, of user: UserRecord) -> Bool {
        (try? TargetNormalizer.normalize(target, channel: channel)) == address(of: user, channel: channel)
    }

    /// The account's e-mail address or phone number, by channel.
    package static func address(of user: UserRecord, channel: OTPChannel) -> String { channel == .email ? user.email : user.phone }

    /// What `GET /v1/devices/me` answers for a verified device.
    package func info(deviceId: String) async throws -> DeviceInfoResponse {
        let devices = issuer.devices
        guard let userKey = try await database.withSQL({ try await devices.userKey(ofDevice: deviceId, in: $0) }) else {
            throw AppError.deviceUnknown()
        }
        return DeviceInfoResponse(deviceId: deviceId, userKey: userKey)
    }
}
