import SQLKit
import Synchronization
import TesseraCore
// The memberwise initializers of `ChallengeState` and `DisposeTokenRecord` are internal to TesseraAccounts.
@testable import TesseraAccounts

/// An ``OTPRepository`` in memory: challenges, send gates and dispose tokens in dictionaries behind one
/// `Mutex`, so each method is atomic as the SQL implementation's single conditional statement is. It
/// keeps the same observable rules as ``SQLOTPRepository`` (cooldown gate, supersede, newest open
/// challenge, counted tries up to the limit before expiry, consume-once, single-use dispose tokens bound
/// to client and purpose, purge by cutoff); `OTPRepositoryConformanceTests` holds both to that contract.
///
/// It ignores the `in sql:` handle, and with it the caller's transaction: a change is kept even if the
/// transaction it was made in rolls back (the SQL implementation's would be undone), and it does not
/// check that the client exists (the SQL tables reference `clients`). Use it where a test checks a
/// service's rules, not its atomicity across repositories.
package final class InMemoryOTPRepository: OTPRepository, Sendable {
    /// A second row with the same key (challenge ID, dispose token hash), as a primary key refuses it.
    package struct DuplicateKey: Error, Equatable {
        package var table: String
        package var key: String
    }

    private struct Challenge {
        var binding: OTPBinding
        var codeHash: String
        var attempts: Int
        var createdAt: Int64
        var expiresAt: Int64
        var consumedAt: Int64?
        /// Insertion order: of two challenges created in the same millisecond, the later one is newer.
        var sequence: Int
    }

    private struct DisposeToken {
        var binding: OTPBinding
        var createdAt: Int64
        var expiresAt: Int64
        var consumedAt: Int64?
    }

    private struct State {
        var gates: [String: Int64] = [:]
        var challenges: [String: Challenge] = [:]
        var tokens: [String: DisposeToken] = [:]
        var sequence = 0
    }

    private let store = Mutex(State())

    package init() {}

    package func passCooldownGate(_ key: String, now: Int64, cooldown: Duration, in sql: any SQLDatabase) async throws -> Int64? {
        store.withLock { state in
            if let next = state.gates[key], next > now { return next }
            state.gates[key] = now + cooldown.millis
            return nil
        }
    }

    package func supersede(_ binding: OTPBinding, now: Int64, in sql: any SQLDatabase) async throws {
        store.withLock { state in
            for (id, challenge) in state.challenges where challenge.binding == binding && challenge.consumedAt == nil {
                state.challenges[id]?.consumedAt = now
            }
        }
    }

    package func insertChallenge(
        id: String, binding: OTPBinding, codeHash: String, now: Int64, expiresAt: Int64, in sql: any SQLDatabase
    ) async throws {
        try store.withLock { state throws(DuplicateKey) in
            guard state.challenges[id] == nil else { throw DuplicateKey(table: "otp_challenges", key: id) }
            state.sequence += 1
            state.challenges[id] = Challenge(
                binding: binding, codeHash: codeHash, attempts: 0, createdAt: now, expiresAt: expiresAt, consumedAt: nil, sequence: state.sequence
            )
        }
    }

    package func latestOpenChallenge(_ binding: OTPBinding, in sql: any SQLDatabase) async throws -> String? {
        store.withLock { state in
            state.challenges
                .filter { $0.value.binding == binding && $0.value.consumedAt == nil }
                .max { ($0.value.createdAt, $0.value.sequence) < ($1.value.createdAt, $1.value.sequence) }?
                .key
        }
    }

    package func claimAttempt(id: String, now: Int64, maxAttempts: Int, in sql: any SQLDatabase) async throws -> (codeHash: String, attempts: Int)? {
        store.withLock { state in
            guard var challenge = state.challenges[id], challenge.consumedAt == nil, challenge.attempts < maxAttempts, challenge.expiresAt > now
            else { return nil }
            challenge.attempts += 1
            state.challenges[id] = challenge
            return (challenge.codeHash, challenge.attempts)
        }
    }

    package func state(id: String, in sql: any SQLDatabase) async throws -> ChallengeState? {
        store.withLock { state in
            state.challenges[id].map { ChallengeState(attempts: $0.attempts, expires_at: $0.expiresAt, consumed_at: $0.consumedAt) }
        }
    }

    package func consume(id: String, now: Int64, in sql: any SQLDatabase) async throws -> Bool {
        store.withLock { state in
            guard let challenge = state.challenges[id], challenge.consumedAt == nil else { return false }
            state.challenges[id]?.consumedAt = now
            return true
        }
    }

    package func insertDisposeToken(hash: String, binding: OTPBinding, now: Int64, expiresAt: Int64, in sql: any SQLDatabase) async throws {
        try store.withLock { state throws(DuplicateKey) in
            guard state.tokens[hash] == nil else { throw DuplicateKey(table: "dispose_tokens", key: hash) }
            state.tokens[hash] = DisposeToken(binding: binding, createdAt: now, expiresAt: expiresAt, consumedAt: nil)
        }
    }

    package func consumeDisposeToken(
        hash: String, clientId: String, purpose: OTPPurpose, now: Int64, in sql: any SQLDatabase
    ) async throws -> DisposeTokenRecord? {
        store.withLock { state in
            guard let token = state.tokens[hash], token.binding.clientId == clientId, token.binding.purpose == purpose,
                  token.consumedAt == nil, token.expiresAt > now
            else { return nil }
            state.tokens[hash]?.consumedAt = now
            return DisposeTokenRecord(
                client_id: token.binding.clientId, channel: token.binding.channel.rawValue, target: token.binding.target,
                purpose: token.binding.purpose.rawValue, expires_at: token.expiresAt
            )
        }
    }

    package func purge(before cutoff: Int64, in sql: any SQLDatabase) async throws {
        store.withLock { state in
            state.challenges = state.challenges.filter { $0.value.expiresAt >= cutoff }
            state.gates = state.gates.filter { $0.value >= cutoff }
            state.tokens = state.tokens.filter { $0.value.expiresAt >= cutoff }
        }
    }

    /// Every stored challenge's state by ID, read without a database handle: what a service test checks
    /// the service left behind.
    package func challengeStates() -> [String: ChallengeState] {
        store.withLock { state in
            state.challenges.mapValues { ChallengeState(attempts: $0.attempts, expires_at: $0.expiresAt, consumed_at: $0.consumedAt) }
        }
    }
}
