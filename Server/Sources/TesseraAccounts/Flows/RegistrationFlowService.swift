import Foundation
import Logging
import SQLKit
import TesseraCore

/// The flow-based sign-up (SPEC capability 6, the Vipaso side): create a flow, send a code to the
/// phone, verify it, finish with the profile and an optional password. A stored state machine:
/// a step out of order (7003), an expired flow (7002), a finished flow used again (7004) and a phone
/// that differs from the verified one (7005) each have their code. It shares the identity, OTP and
/// session code with the BSA-style sign-up: the phone check is an OTP with purpose `signup` whose
/// dispose token is consumed in the transaction that creates the identity.
package struct RegistrationFlowService: Sendable {
    package let database: any Database
    package let repository: any RegistrationFlowRepository
    package let users: any UserRepository
    package let audit: any AuditLog
    package let otp: OTPService
    package let sessions: SessionService
    package let passwords: PasswordHasher
    package let policies: ClientPolicyRepository
    package let random: RandomSource
    package let clock: WallClock
    package var lifetime: Duration = .seconds(900)
    /// Flows started per IP address per hour.
    package var perIPHourlyLimit = 100

    package init(
        database: any Database,
        repository: any RegistrationFlowRepository,
        users: any UserRepository,
        audit: any AuditLog,
        otp: OTPService,
        sessions: SessionService,
        passwords: PasswordHasher,
        policies: ClientPolicyRepository,
        random: RandomSource,
        clock: WallClock,
        lifetime: Duration = .seconds(900),
        perIPHourlyLimit: Int = 100
    ) {
        self.database = database
        self.repository = repository
        self.users = users
        self.audit = audit
        self.otp = otp
        self.sessions = sessions
        self.passwords = passwords
        self.policies = policies
        self.random = random
        self.clock = clock
        self.lifetime = lifetime
        self.perIPHourlyLimit = perIPHourlyLimit
    }

    private func answer(_ record: RegistrationFlowRecord, now: Int64) -> RegistrationFlow {
        RegistrationFlow(
            id: record.id, state: record.flowState, phoneNumber: record.phone, expiresIn: Int(max(0, (record.expires_at - now) / 1000))
        )
    }

    package func create(client: Client, ip: String? = nil) async throws -> RegistrationFlow {
        let id = random.identifier(prefix: "flw_"), now = clock.now(), expires = now + lifetime.millis, repository = self.repository
        let limit = perIPHourlyLimit
        try await database.transaction { sql in
            if let ip, try await RateCounters().increment("flow-ip|\(ip)", shared: true, now: now, window: .seconds(3600), in: sql) > limit {
                throw AppError.flowRateLimited(retryAfter: Int(3600 - (now / 1000) % 3600))
            }
            try await repository.insert(id: id, clientId: client.id, now: now, expiresAt: expires, in: sql)
        }
        return RegistrationFlow(id: id, state: .created, phoneNumber: nil, expiresIn: Int(lifetime.components.seconds))
    }

    package func get(client: Client, flowId: String) async throws -> RegistrationFlow {
        let now = clock.now()
        return answer(try await load(client: client, flowId: flowId, now: now), now: now)
    }

    /// The flow, or the code for an unknown (7001) or expired (7002) one.
    private func load(client: Client, flowId: String, now: Int64) async throws -> RegistrationFlowRecord {
        let repository = self.repository
        guard let record = try await database.withSQL({ try await repository.find(id: flowId, clientId: client.id, in: $0) }) else {
            throw AppError.flowUnknown()
        }
        if record.flowState == .finished { throw Self.alreadyUsed }
        guard record.expires_at > now else { throw AppError.flowExpired() }
        return record
    }

    package static let alreadyUsed = AppError.flowAlreadyUsed()

    package static func outOfOrder(_ step: String, _ state: RegistrationFlowState) -> AppError {
        AppError.flowStepOutOfOrder(detail: "\(step) is not possible while the flow is \(state.rawValue)")
    }

    /// After a conditional update found nothing to move: says why from the flow's state now.
    private func refusal(client: Client, flowId: String, step: String) async throws -> AppError {
        let record = try await load(client: client, flowId: flowId, now: clock.now())
        return Self.outOfOrder(step, record.flowState)
    }

    /// Sends the code to `phoneNumber` (again, while not verified: the cooldown applies).
    package func sendPhoneCode(client: Client, flowId: String, phoneNumber: String, ip: String?) async throws -> RegistrationFlow {
        let now = clock.now()
        let record = try await load(client: client, flowId: flowId, now: now)
        guard record.flowState == .created || record.flowState == .otpSent else { throw Self.outOfOrder("sending a code", record.flowState) }
        let phone = try TargetNormalizer.normalize(phoneNumber, channel: .sms, field: "phoneNumber")
        _ = try await otp.send(client: client, channel: .sms, target: phone, purpose: .signup, ip: ip)
        let repository = self.repository
        guard try await database.withSQL({ try await repository.markOTPSent(id: flowId, phone: phone, now: now, in: $0) }) else {
            throw try await refusal(client: client, flowId: flowId, step: "sending a code")
        }
        return RegistrationFlow(id: flowId, state: .otpSent, phoneNumber: phone, expiresIn: Int((record.expires_at - now) / 1000))
    }

    /// Checks the code; a wrong one is 2020 with the tries left, as for any OTP.
    package func verifyPhone(client: Client, flowId: String, code: String) async throws -> FlowVerifyResponse {
        let now = clock.now()
        let record = try await load(client: client, flowId: flowId, now: now)
        guard record.flowState == .otpSent, let phone = record.phone else { throw Self.outOfOrder("verifying the phone", record.flowState) }
        switch try await otp.verify(client: client, channel: .sms, target: phone, code: code, purpose: .signup, codeField: "otp") {
        case .invalid(let remaining):
            throw OTPService.invalidCode(remaining: remaining)
        case .valid(let token):
            let hash = otp.disposeTokenHash(token), repository = self.repository
            guard try await database.withSQL({ try await repository.markVerified(id: flowId, phone: phone, disposeHash: hash, now: now, in: $0) })
            else { throw try await refusal(client: client, flowId: flowId, step: "verifying the phone") }
            return FlowVerifyResponse(id: flowId, state: .verified, message: "Phone verified successfully")
        }
    }

    /// Creates the identity and a session (without a device: the SDK registers its key next).
    package func finish(client: Client, flowId: String, request: FlowFinishRequest) async throws -> SessionGrant {
        let now = clock.now()
        let record = try await load(client: client, flowId: flowId, now: now)
        guard record.flowState == .verified, let verifiedPhone = record.phone else { throw Self.outOfOrder("finishing", record.flowState) }
        let phone = try TargetNormalizer.normalize(request.phoneNumber, channel: .sms, field: "phoneNumber")
        guard phone == verifiedPhone else {
            throw AppError.flowPhoneMismatch(field: "phoneNumber")
        }
        let email = try TargetNormalizer.normalize(request.email, channel: .email, field: "email")
        let first = request.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = request.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...50).contains(first.count) else { throw AppError.invalidField("firstName", "firstName must be 1–50 characters") }
        guard (1...50).contains(last.count) else { throw AppError.invalidField("lastName", "lastName must be 1–50 characters") }
        var passwordHash: String?
        if let password = request.password {
            try await policies.policy(clientId: client.id).enforce(password: password)
            passwordHash = try await passwords.hash(password)
        }
        let userId = random.identifier(prefix: "usr_")
        let user = UserRecord(
            id: userId, clientId: client.id, userKey: userId, name: "\(first) \(last)", email: email, phone: phone,
            localAuthType: passwordHash == nil ? "NONE" : "PASSWORD", createdAt: now, passwordHash: passwordHash
        )
        let repository = self.repository, users = self.users, otp = self.otp, sessions = self.sessions, audit = self.audit
        let session: SessionService.Created
        do {
            session = try await database.transaction { sql in
                guard let disposeHash = try await repository.markFinished(id: flowId, userId: userId, now: now, in: sql) else {
                    throw AppError.flowStepOutOfOrder(detail: "the flow moved on while finishing")
                }
                let verified = try await otp.consumeDisposeToken(hash: disposeHash, client: client, purpose: .signup, now: now, in: sql)
                guard verified.channel == .sms, verified.target == phone else {
                    throw AppError.flowPhoneMismatch()
                }
                try await users.insert(user, in: sql)
                let session = try await sessions.create(userId: userId, deviceId: nil, now: now, in: sql)
                let actor = "session:\(session.id)"
                try await audit.append([
                    AuditEvent("user.signed_up", actor: actor, clientId: client.id, userId: userId, details: ["verified": "sms", "flow": flowId]),
                    AuditEvent("session.created", actor: actor, clientId: client.id, userId: userId, sessionId: session.id, details: ["method": "flow"]),
                ], in: sql)
                return session
            }
        } catch let error as AppError where error.code == .flowStepOutOfOrder {
            throw try await refusal(client: client, flowId: flowId, step: "finishing")
        } catch {
            throw SignUpService.duplicateError(for: error)
        }
        return SessionGrant(
            sessionToken: session.token, sessionExpiresIn: session.expiresIn,
            identity: IdentityInfo(id: userId, email: email, phoneNumber: phone, name: user.name, hasPassword: passwordHash != nil)
        )
    }
}
