import Foundation
import Tessera
import TesseraCore

/// A **mock** ``BiometricUserVerifier`` for tests and demos on Linux, where Apple's LocalAuthentication
/// cannot run. It verifies nothing: it succeeds (or throws ``failure``) and reports ``domainState``,
/// which a test changes (``enrollNewBiometrics()``) to play the user adding a finger or face in the
/// OS settings. Do not ship it in an app.
public final class MockBiometricUserVerifier: BiometricUserVerifier, @unchecked Sendable {
    private let lock = NSLock()
    private var state: Data?
    private var error: (any Error)?
    private var contexts: [BiometricUserVerificationContext] = []

    /// Creates a mock with an initial domain state (random by default; nil plays "no biometrics enrolled").
    public init(domainState: Data? = MockBiometricUserVerifier.randomDomainState()) {
        self.state = domainState
    }

    /// A fresh random domain state.
    public static func randomDomainState() -> Data { Data((0..<16).map { _ in UInt8.random(in: 0...255) }) }

    /// The domain state reported now; set it to play a change of the OS biometrics.
    public var domainState: Data? {
        get { lock.withLock { state } }
        set { lock.withLock { state = newValue } }
    }

    /// What ``verifyBiometric(context:)`` throws; nil makes it succeed.
    public var failure: (any Error)? {
        get { lock.withLock { error } }
        set { lock.withLock { error = newValue } }
    }

    /// The contexts of the verifications asked so far.
    public var verifications: [BiometricUserVerificationContext] { lock.withLock { contexts } }

    /// Plays the user adding a finger or face in the OS settings: the domain state changes.
    public func enrollNewBiometrics() { domainState = Self.randomDomainState() }

    /// Records the context, then succeeds or throws ``failure``.
    public func verifyBiometric(context: BiometricUserVerificationContext) async throws {
        let failure: (any Error)? = lock.withLock {
            contexts.append(context)
            return error
        }
        if let failure { throw failure }
    }
}
