import Crypto
import Foundation
import _CryptoExtras
import Synchronization
import TesseraCore

/// Where a software verifier keeps its enrolment (scrypt hash, salt, failure count). The file store
/// writes one JSON file with mode 0600; the memory store serves tests.
public protocol SecretVerifierStore: Sendable {
    /// The saved state, or nil before enrolment.
    func load() throws -> SoftwareSecretAuthenticator.State?
    /// Saves the state.
    func save(_ state: SoftwareSecretAuthenticator.State) throws
}

/// A ``SecretVerifierStore`` in memory.
public final class MemorySecretVerifierStore: SecretVerifierStore, Sendable {
    private let state = Mutex<SoftwareSecretAuthenticator.State?>(nil)
    /// Creates an empty store.
    public init() {}
    public func load() throws -> SoftwareSecretAuthenticator.State? { state.withLock { $0 } }
    public func save(_ state: SoftwareSecretAuthenticator.State) throws { self.state.withLock { $0 = state } }
}

/// A ``SecretVerifierStore`` in a file readable only by its owner (0600).
public struct FileSecretVerifierStore: SecretVerifierStore {
    /// The file's path.
    public let path: String
    /// Creates a store at `path`.
    public init(path: String) { self.path = path }

    public func load() throws -> SoftwareSecretAuthenticator.State? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(SoftwareSecretAuthenticator.State.self, from: data)
    }

    public func save(_ state: SoftwareSecretAuthenticator.State) throws {
        try LocalSecrets.writePrivately(try JSONEncoder().encode(state), to: path)
    }
}

/// PIN or password verification in software, usable on every platform: the secret is stored only as
/// an scrypt hash, compared in constant time, and after `maxFailures` wrong entries in a row the
/// verifier locks for `lockout` (doubling with each further lock-out).
public struct SoftwareSecretAuthenticator: LocalAuthenticator {
    /// The persisted state.
    public struct State: Codable, Sendable, Equatable {
        /// `PIN` or `PASSWORD`.
        public var type: LocalAuthType
        /// Random salt.
        public var salt: Data
        /// scrypt(secret, salt).
        public var hash: Data
        /// Wrong entries since the last success.
        public var failures: Int
        /// Lock-outs since the last success.
        public var lockouts: Int
        /// When the current lock-out ends.
        public var lockedUntil: Date?
    }

    /// Asks the user for the secret; nil means the user cancelled.
    public typealias Prompt = @Sendable (LocalAuthRequest) async -> String?

    let type: LocalAuthType
    let store: any SecretVerifierStore
    let prompt: Prompt
    let maxFailures: Int
    let lockout: TimeInterval
    let now: @Sendable () -> Date

    /// scrypt parameters: N = 2^14, r = 8, p = 1 (about 16 MiB and tens of milliseconds).
    static let rounds = 1 << 14

    /// Creates a verifier for `type` (`.pin` or `.password`).
    public init(
        type: LocalAuthType, store: any SecretVerifierStore, maxFailures: Int = 5, lockout: TimeInterval = 300,
        now: @escaping @Sendable () -> Date = { Date() }, prompt: @escaping Prompt
    ) {
        precondition(type == .pin || type == .password, "software verification is for PIN and password")
        self.type = type
        self.store = store
        self.maxFailures = maxFailures
        self.lockout = lockout
        self.now = now
        self.prompt = prompt
    }

    /// Whether a secret has been set up.
    public var isEnrolled: Bool { (try? store.load()) != nil }

    /// Sets (or replaces) the secret.
    public func enroll(secret: String) throws {
        let salt = LocalSecrets.randomSalt()
        try store.save(State(type: type, salt: salt, hash: try Self.hash(secret, salt: salt), failures: 0, lockouts: 0, lockedUntil: nil))
    }

    public func authenticate(_ request: LocalAuthRequest) async throws -> LocalAuthResult {
        guard var state = try store.load(), state.type == type else { throw LocalAuthError(.notEnrolled) }
        if let until = state.lockedUntil, until > now() { throw LocalAuthError(.lockedOut, retryAfter: until) }
        guard let entered = await prompt(request) else { throw LocalAuthError(.userCancel) }
        let candidate = try Self.hash(entered, salt: state.salt)
        if Self.constantTimeEquals(candidate, state.hash) {
            state.failures = 0
            state.lockouts = 0
            state.lockedUntil = nil
            try store.save(state)
            return LocalAuthResult(enteredSecret: entered)
        }
        state.failures += 1
        if state.failures >= maxFailures {
            state.failures = 0
            state.lockouts += 1
            let until = now().addingTimeInterval(lockout * pow(2, Double(state.lockouts - 1)))
            state.lockedUntil = until
            try store.save(state)
            throw LocalAuthError(.lockedOut, retryAfter: until)
        }
        try store.save(state)
        throw LocalAuthError(.authFailed, remainingAttempts: maxFailures - state.failures)
    }

    static func hash(_ secret: String, salt: Data) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(secret.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: 8, parallelism: 1
        )
        return key.withUnsafeBytes { Data($0) }
    }

    static func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }
}
