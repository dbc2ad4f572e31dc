import Foundation
import Tessera
import TesseraCore
import Synchronization

/// A **mock** ``BiometricUserVerifier`` for tests and demos on Linux, where Apple's LocalAuthentication
/// cannot run. It verifies nothing: it succeeds (or throws ``failure``) and reports ``domainState``,
/// which a test changes (``enrollNewBiometrics()``) to play the user adding a finger or face in the
/// OS settings. Do not ship it in an app.
public final class MockBiometricUserVerifier: BiometricUserVerifier, Sendable {
    private struct State {
        var domainState: Data?
        var error: (any Error)?
        var contexts: [BiometricUserVerificationContext] = []
    }

    private let state: Mutex<State>

    /// Creates a mock with an initial domain state (random by default; nil plays "no biometrics enrolled").
    public init(domainState: Data? = MockBiometricUserVerifier.randomDomainState()) {
        state = Mutex(State(domainState: domainState))
    }

    /// A fresh random domain state.
    public static func randomDomainState() -> Data { Data((0..<16).map { _ in UInt8.random(in: 0...255) }) }

    /// The domain state reported now; set it to play a change of the OS biometrics.
    public var domainState: Data? {
        get { state.withLock { $0.domainState } }
        set { state.withLock { $0.domainState = newValue } }
    }

    /// What ``verifyBiometric(context:)`` throws; nil makes it succeed.
    public var failure: (any Error)? {
        get { state.withLock { $0.error } }
        set { state.withLock { $0.error = newValue } }
    }

    /// The contexts of the verifications asked so far.
    public var verifications: [BiometricUserVerificationContext] { state.withLock { $0.contexts } }

    /// Plays the user adding a finger or face in the OS settings: the domain state changes.
    public func enrollNewBiometrics() { domainState = Self.randomDomainState() }

    /// Records the context, then succeeds or throws ``failure``.
    public func verifyBiometric(context: BiometricUserVerificationContext) async throws {
        let failure: (any Error)? = state.withLock { state in
            state.contexts.append(context)
            return state.error
        }
        if let failure { throw failure }
    }
}
