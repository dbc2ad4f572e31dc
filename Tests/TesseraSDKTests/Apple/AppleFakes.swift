import Crypto
import Foundation
import Synchronization
import Tessera

/// What a ``FakeLAContext`` answers: per policy, whether it can be evaluated (nil) or the `LAError`
/// code why not, and the outcomes of successive evaluations (nil = success).
struct FakeLAScript: Sendable {
    var biometry: BiometryKind = .faceID
    var domainState: Data? = Data([1, 2, 3])
    var cannotEvaluate: [LocalAuthenticationPolicy: Int] = [:]
    var evaluations: [LocalAuthenticationPolicy: [Int?]] = [:]
}

/// What the fake contexts saw, shared by all contexts of one factory.
final class FakeLALog: Sendable {
    struct Entries {
        var script: FakeLAScript
        var contextsMade = 0
        var evaluated: [LocalAuthenticationPolicy] = []
        var fallbackTitles: [String?] = []
    }

    let entries: Mutex<Entries>
    init(_ script: FakeLAScript) { entries = Mutex(Entries(script: script)) }

    var evaluated: [LocalAuthenticationPolicy] { entries.withLock { $0.evaluated } }
    var contextsMade: Int { entries.withLock { $0.contextsMade } }
    var fallbackTitles: [String?] { entries.withLock { $0.fallbackTitles } }
    func setDomainState(_ state: Data?) { entries.withLock { $0.script.domainState = state } }

    func engine() -> LocalAuthenticationEngine<FakeLAContext> {
        LocalAuthenticationEngine { [self] in
            entries.withLock { $0.contextsMade += 1 }
            return FakeLAContext(log: self)
        }
    }
}

/// A fake `LAContext`, scripted by a ``FakeLALog``.
final class FakeLAContext: LocalAuthenticationContext {
    let log: FakeLALog
    var localizedFallbackTitle: String? {
        didSet { log.entries.withLock { $0.fallbackTitles.append(localizedFallbackTitle) } }
    }

    init(log: FakeLALog) { self.log = log }

    var biometryType: BiometryKind { log.entries.withLock { $0.script.biometry } }
    var biometricDomainState: Data? { log.entries.withLock { $0.script.domainState } }

    func canEvaluatePolicy(_ policy: LocalAuthenticationPolicy, error: LocalAuthenticationErrorPointer) -> Bool {
        guard let code = log.entries.withLock({ $0.script.cannotEvaluate[policy] }) else { return true }
        error?.pointee = NSError(domain: localAuthenticationErrorDomain, code: code)
        return false
    }

    func evaluatePolicy(_ policy: LocalAuthenticationPolicy, localizedReason: String) async throws -> Bool {
        let outcome: Int? = log.entries.withLock { entries in
            entries.evaluated.append(policy)
            guard var queue = entries.script.evaluations[policy], !queue.isEmpty else { return nil }
            let next = queue.removeFirst()
            entries.script.evaluations[policy] = queue
            return next
        }
        if let outcome { throw NSError(domain: localAuthenticationErrorDomain, code: outcome) }
        return true
    }
}

/// An in-memory keychain with `SecItem…` semantics (duplicate on a second add, not found), that
/// records every call and can be told to fail with a status.
final class FakeKeychain: KeychainCalls {
    struct State {
        var items: [KeychainQuery: Data] = [:]
        var calls: [(String, KeychainQuery)] = []
        var failing: [String: Int32] = [:]
    }

    let state = Mutex(State())

    var calls: [(String, KeychainQuery)] { state.withLock { $0.calls } }
    /// Makes the next call of `operation` (`add`, `copyMatching`, `update`, `delete`) return `status`.
    func fail(_ operation: String, with status: KeychainStatus) { state.withLock { $0.failing[operation] = status.rawValue } }

    /// The identity of an item: class, service, account.
    private static func identity(_ query: KeychainQuery) -> KeychainQuery {
        query.filter { [.itemClass, .service, .account].contains($0.key) }
    }

    private func record(_ name: String, _ query: KeychainQuery) -> Int32? {
        state.withLock { state in
            state.calls.append((name, query))
            return state.failing.removeValue(forKey: name)
        }
    }

    func add(_ attributes: KeychainQuery) -> Int32 {
        if let status = record("add", attributes) { return status }
        return state.withLock { state in
            let id = Self.identity(attributes)
            if state.items[id] != nil { return KeychainStatus.duplicateItem.rawValue }
            guard case .data(let data)? = attributes[.valueData] else { return KeychainStatus.param.rawValue }
            state.items[id] = data
            return KeychainStatus.success.rawValue
        }
    }

    func copyMatching(_ query: KeychainQuery) -> (status: Int32, data: Data?) {
        if let status = record("copyMatching", query) { return (status, nil) }
        return state.withLock { state in
            guard let data = state.items[Self.identity(query)] else { return (KeychainStatus.itemNotFound.rawValue, nil) }
            return (KeychainStatus.success.rawValue, data)
        }
    }

    func update(_ query: KeychainQuery, _ changes: KeychainQuery) -> Int32 {
        if let status = record("update", query.merging(changes) { $1 }) { return status }
        return state.withLock { state in
            let id = Self.identity(query)
            guard state.items[id] != nil else { return KeychainStatus.itemNotFound.rawValue }
            guard case .data(let data)? = changes[.valueData] else { return KeychainStatus.param.rawValue }
            state.items[id] = data
            return KeychainStatus.success.rawValue
        }
    }

    func delete(_ query: KeychainQuery) -> Int32 {
        if let status = record("delete", query) { return status }
        return state.withLock { $0.items.removeValue(forKey: Self.identity(query)) == nil ? KeychainStatus.itemNotFound.rawValue : KeychainStatus.success.rawValue }
    }
}

/// Software keys that play Secure Enclave keys: they record the access control of each key made.
final class RecordingSigningKeys: SigningKeyFactory {
    let made = Mutex<[AccessControlFlags]>([])
    var kind: KeyStoreKind { .secureEnclave }

    func makeKey(accessControl: AccessControlFlags) throws -> Data {
        made.withLock { $0.append(accessControl) }
        return try SoftwareSigningKeys().makeKey(accessControl: accessControl)
    }

    func publicKey(blob: Data) throws -> P256.Signing.PublicKey { try SoftwareSigningKeys().publicKey(blob: blob) }

    func signature(for data: Data, blob: Data) throws -> P256.Signing.ECDSASignature {
        try SoftwareSigningKeys().signature(for: data, blob: blob)
    }
}
