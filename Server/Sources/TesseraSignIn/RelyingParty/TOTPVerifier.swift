import Crypto
import Foundation
import SQLKit
import TesseraCore

/// Verifies a user's TOTP code for the relying party (SPEC capability 8): ±1 step around the
/// server's clock, a step once used is refused, and after `maxFailures` failures the user is
/// locked until an admin resets it.
///
/// Every answer comes from one conditional write: a wrong code increments the failure count only
/// while it is under the limit (else the answer is 6003), and a right code is accepted only while
/// the user is not locked and its step is later than the last one used. So however many guesses
/// arrive at once, no more than `maxFailures` wrong ones are answered before the lock, and a
/// success resets the count.
///
/// Its state (`totp_state`) is kept by ``TOTPStateRepository``; the devices' secrets come from their
/// owner (``DeviceRepository``).
package struct TOTPVerifier: Sendable {
    package let database: any Database
    package let devices: any DeviceRepository
    package let users: any UserRepository
    package let clients: any ClientRepository
    /// Failures and locks are audited (successes are not: that is the relying party's hot path).
    package let audit: any AuditLog
    package let totpKey: SymmetricKey
    package let clock: WallClock
    package let maxFailures: Int
    /// The users' last accepted steps and failure counts.
    package var state: any TOTPStateRepository = SQLTOTPStateRepository()
    /// The devices' secrets, read together for concurrent verifications on PostgreSQL.
    private let lookups: DeviceLookups
    /// On PostgreSQL, the matches of concurrent verifications accepted in one statement; nil on SQLite.
    private let accepts: StatementBatcher<TOTPAcceptance, Bool>?

    package init(
        database: any Database,
        devices: any DeviceRepository,
        users: any UserRepository,
        clients: any ClientRepository,
        audit: any AuditLog,
        totpKey: SymmetricKey,
        clock: WallClock,
        maxFailures: Int,
        state: any TOTPStateRepository = SQLTOTPStateRepository()
    ) {
        self.database = database
        self.devices = devices
        self.users = users
        self.clients = clients
        self.audit = audit
        self.totpKey = totpKey
        self.clock = clock
        self.maxFailures = maxFailures
        self.state = state
        let lookups = DeviceLookups(database: database, devices: devices)
        self.lookups = lookups
        accepts = lookups.batches ? StatementBatcher { acceptances in
            try await database.withSQL { try await state.accept(acceptances, maxFailures: maxFailures, in: $0) }
        } : nil
    }

    package func verify(client: Client, request: TOTPVerifyRequest) async throws -> TOTPVerifyResponse {
        // Bytes, not Characters: six ASCII digits are six bytes (walking Characters broke grapheme clusters).
        guard request.code.utf8.count == 6, request.code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw AppError.invalidField("code", "code must be 6 digits")
        }
        guard request.userKey.utf8.count <= 100 || request.userKey.count <= 100 else {
            throw AppError.totpUserUnknown(detail: "No such user")
        }
        let devices = self.devices, state = self.state, totpKey = self.totpKey, code = request.code, userKey = request.userKey
        let now = clock.now(), max = maxFailures
        let window = (now / 1000 / 30 - 1)...(now / 1000 / 30 + 1)
        let outcome: Outcome
        if let accepts {
            // PostgreSQL: the secrets of concurrent verifications are read in one statement, and their matches
            // accepted in another (each conditional as below).
            let rows = try await lookups.activeTOTPSecrets(clientId: client.id, userKey: userKey)
            outcome = try await Self.decide(code, rows: rows, window: window, key: totpKey) { userId, step in
                try await accepts.answer(TOTPAcceptance(userId: userId, step: step, now: now))
            }
        } else {
            // SQLite: the secrets are read, the code matched and a match accepted in one job of the writer's
            // batch: one wait for the database instead of two (each wait is a suspension, a wake-up and
            // a place in a batch). The accepting write is conditional: only a step later than the last
            // one used, only while the user is not locked.
            outcome = try await database.withSQL { sql -> Outcome in
                let rows = try await devices.activeTOTPSecrets(clientId: client.id, userKey: userKey, in: sql)
                return try await Self.decide(code, rows: rows, window: window, key: totpKey) { userId, step in
                    try await state.accept(userId: userId, step: step, now: now, maxFailures: max, in: sql)
                }
            }
        }
        let userId: String
        switch outcome {
        case .accepted(let deviceId): return TOTPVerifyResponse(deviceId: deviceId)
        case .unknownUser: throw AppError.totpUserUnknown()
        case .refused(let refused):
            let failures = try await database.withSQL { sql in try await state.failures(userId: refused, in: sql) }
            if let failures, failures >= max { throw Self.locked }
            throw AppError.totpStepReused(detail: "Wait for the next code")
        case .noMatch(let unmatched): userId = unmatched
        }
        // One conditional write counts the failure; none is counted (or answered) past the limit.
        let audit = self.audit
        let failures = try await database.transaction { sql in
            let failures = try await state.recordFailure(userId: userId, now: now, maxFailures: max, in: sql)
            if let failures {
                let failed = AuditEvent(
                    "totp.failed", actor: AuditEvent.client(client.clientKey), clientId: client.id, userId: userId,
                    details: ["remaining": String(max - failures)]
                )
                let locked = AuditEvent("totp.locked", actor: "system", clientId: client.id, userId: userId)
                try await audit.append(failures < max ? [failed] : [failed, locked], in: sql)
            }
            return failures
        }
        guard let failures else { throw Self.locked }
        throw AppError.totpInvalid(remainingAttempts: max - failures)
    }

    /// What `code` is against the user's devices `rows`: unknown user (no rows), no match, or a match that `accept`
    /// (the conditional write of the user's step) accepted or refused.
    private static func decide(
        _ code: String, rows: [DeviceTOTPSecret], window: ClosedRange<Int64>, key: SymmetricKey,
        accept: (_ userId: String, _ step: Int64) async throws -> Bool
    ) async throws -> Outcome {
        guard let first = rows.first else { return .unknownUser }
        guard let matched = match(code, rows: rows, window: window, key: key) else { return .noMatch(userId: first.userId) }
        return try await accept(first.userId, matched.step) ? .accepted(deviceId: matched.deviceId) : .refused(userId: first.userId)
    }

    /// What the database job found.
    private enum Outcome: Sendable {
        case unknownUser
        case noMatch(userId: String)
        case accepted(deviceId: String)
        /// The code matched but the conditional write refused it: a reused step, or a locked user.
        case refused(userId: String)
    }

    /// The step and device whose code is `code` (the last device's if several match); rows whose
    /// secret does not open are passed over.
    private static func match(
        _ code: String, rows: [DeviceTOTPSecret], window: ClosedRange<Int64>, key: SymmetricKey
    ) -> (step: Int64, deviceId: String)? {
        var matched: (step: Int64, deviceId: String)?
        for row in rows {
            guard let combined = Data(base64Encoded: row.totpSecretSealed),
                  let box = try? AES.GCM.SealedBox(combined: combined),
                  let secret = try? AES.GCM.open(box, using: key, authenticating: Data(row.deviceId.utf8))
            else { continue }
            if let step = TOTP(secret: Array(secret)).matchingStep(code, in: window) { matched = (step, row.deviceId) }
        }
        return matched
    }

    package static let locked = AppError.totpLocked(detail: "An admin must reset this user (tessera admin totp reset)")

    /// Clears a user's failure count (admin).
    package func reset(clientKey: String, userKey: String) async throws {
        let users = self.users, state = self.state, now = clock.now()
        let client = try await clients.find(clientKey: clientKey)?.client
        let done = try await database.withSQL { sql -> Bool in
            guard let client, let user = try await users.find(clientId: client.id, userKey: userKey, in: sql) else { return false }
            return try await state.resetFailures(userId: user.id, now: now, in: sql)
        }
        guard done else { throw AppError.totpUserUnknown(detail: "No such user, or it never failed a TOTP verification") }
    }
}

extension TOTPVerifyResponse: JSONObjectWritable {
    public func write(to writer: inout JSONObjectWriter) {
        writer.add("deviceId", deviceId)
        writer.add("rtCode", rtCode)
        writer.add("valid", valid)
    }
}

extension TOTPVerifyRequest: FlatJSONDecodable {
    public init?(flatStrings members: [String: String]) {
        guard let userKey = members["userKey"], let code = members["code"] else { return nil }
        self.init(userKey: userKey, code: code)
    }
}
