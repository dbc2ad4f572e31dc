import Foundation
import Tessera
import TesseraCore

/// A **mock** ``DevicePasscodeUserVerifier`` for tests and demos on Linux, where Apple's
/// LocalAuthentication cannot run: it succeeds (or throws ``failure``) without asking anyone.
/// Do not ship it in an app.
public final class MockDevicePasscodeUserVerifier: DevicePasscodeUserVerifier, @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?
    private var contexts: [DevicePasscodeUserVerificationContext] = []

    /// Creates a mock that succeeds.
    public init() {}

    /// What ``verifyDevicePasscode(context:)`` throws; nil makes it succeed.
    public var failure: (any Error)? {
        get { lock.withLock { error } }
        set { lock.withLock { error = newValue } }
    }

    /// The contexts of the verifications asked so far.
    public var verifications: [DevicePasscodeUserVerificationContext] { lock.withLock { contexts } }

    /// Records the context, then succeeds or throws ``failure``.
    public func verifyDevicePasscode(context: DevicePasscodeUserVerificationContext) async throws {
        let failure: (any Error)? = lock.withLock {
            contexts.append(context)
            return error
        }
        if let failure { throw failure }
    }
}
