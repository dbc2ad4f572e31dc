import Configuration
import Foundation
import Synchronization

/// Collects the values a ``ConfigReader`` could not convert (`--otp-code-lifetime abc`,
/// `TESSERA_PORT=x`, `"port": "x"` in the file), which swift-configuration's non-throwing accessors
/// would silently replace by the default. Give it to the reader as its access reporter, read the
/// configuration, then call ``check()``.
public final class ConfigurationValueCheck: AccessReporter, Sendable {
    private struct State {
        var problems: [String] = []
        var read: Set<String> = []
    }

    private let state = Mutex(State())

    /// Every key read, in dotted form (the tests compare it with ``ConfigurationKeys/all``).
    public var keysRead: Set<String> { state.withLock { $0.read } }

    /// Creates an empty check.
    public init() {}

    public func report(_ event: AccessEvent) {
        let key = event.metadata.key.components.joined(separator: ".")
        var problem: String?
        for result in event.providerResults {
            if case .failure = result.result {
                problem = "invalid value for \(ConfigurationKeys.source(of: key, provider: result.providerName)): expected \(Self.describe(event.metadata.valueType))"
                break
            }
        }
        if problem == nil, let error = event.conversionError {
            problem = "invalid value for \(key): \(error)"
        }
        state.withLock { state in
            state.read.insert(key)
            if let problem, !state.problems.contains(problem) { state.problems.append(problem) }
        }
    }

    /// Throws ``ConfigurationError`` naming the first value that could not be read.
    public func check() throws {
        if let first = state.withLock({ $0.problems.first }) { throw ConfigurationError(first) }
    }

    private static func describe(_ type: ConfigType) -> String {
        switch type {
        case .int: "a whole number"
        case .bool: "true or false"
        case .double: "a number"
        case .string: "one text value"
        default: "a value of type \(type)"
        }
    }
}
