import Foundation
import Tessera
import TesseraCore
import Synchronization

/// A **mock** ``DevicePasscodeUserVerifier`` for tests and demos on Linux, where Apple's
/// LocalAuthentication cannot run: it succeeds (or throws ``failure``) without asking anyone.
/// Do not ship it in an app.
public final class MockDevicePasscodeUserVerifier: DevicePasscodeUserVerifier, Sendable {
    private struct State {
        var error: (any Error)?
        var contexts: [DevicePasscodeUserVerificationContext] = []
    }

    private let state = Mutex(State())

    /// Creates a mock that succeeds.
    public init() {}

    /// What ``verifyDevicePasscode(context:)`` throws; nil makes it succeed.
    public var failure: (any Error)? {
        get { state.withLock { $0.error } }
        set { state.withLock { $0.error = newValue } }
    }

    /// The contexts of the verifications asked so far.
    public var verifications: [DevicePasscodeUserVerificationContext] { state.withLock { $0.contexts } }

    /// Records the context, then succeeds or throws ``failure``.
    public func verifyDevicePasscode(context: DevicePasscodeUserVerificationContext) async throws {
        let failure: (any Error)? = state.withLock { state in
            state.contexts.append(context)
            return state.error
        }
        if let failure { throw failure }
    }
}
