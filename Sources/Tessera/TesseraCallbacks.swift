import Foundation
import Synchronization
import TesseraCore

/// A handle on a call made through ``TesseraCallbacks``: the seed's `Disposable`, without RxSwift.
/// Cancelling stops the call and suppresses its remaining callbacks.
public final class TesseraCancellable: Sendable {
    private let task: Task<Void, Never>

    /// A handle on `task`, handed to `bag` when one is given.
    init(_ task: Task<Void, Never>, in bag: DisposeBag? = nil) {
        self.task = task
        bag?.insert(self)
    }

    /// Cancels the call; no callback runs after this returns, except one already running.
    public func cancel() { task.cancel() }

    /// Waits until the call and its callbacks have finished.
    public func wait() async { await task.value }

    /// Whether the call was cancelled (by ``cancel()`` or by its ``DisposeBag``).
    public var isCancelled: Bool { task.isCancelled }

    /// Hands the call to `bag`, which cancels it when the bag goes away (RxSwift's `disposed(by:)`).
    @discardableResult
    public func disposed(by bag: DisposeBag) -> TesseraCancellable {
        bag.insert(self)
        return self
    }
}

/// The seed's `DisposeBag`: keeps the calls of its owner (a view controller, a view model) and cancels
/// every one still running when the owner lets it go, so no callback reaches an owner that is gone.
public final class DisposeBag: Sendable {
    private let calls = Mutex([TesseraCancellable]())

    /// Creates an empty bag.
    public init() {}

    /// Adds a call; the bag cancels it at the latest when it is released.
    public func insert(_ call: TesseraCancellable) { calls.withLock { $0.append(call) } }

    deinit {
        for call in calls.withLock({ $0 }) { call.cancel() }
    }
}

/// The callback facade for apps migrating from the BSA SDK (`BSA.APICaller`): the same call names
/// and callbacks (`onSuccess`, `onFailed(rtCode, message)`, `onError`, `onTotalLog`, `onCompleted`),
/// over the `async` API of ``TesseraClient``. Server refusals go to `onFailed` with their code, and so do
/// network (9101) and decoding (9102) failures, which also go to `onError`; other local failures (local
/// authentication, key store) go to `onError`. `onTotalLog` gets every step of the call. `onCompleted`
/// runs last, unless the call was cancelled. Every call takes `disposeBag:` last, as the seeds write it:
/// the call is cancelled when that ``DisposeBag`` is released.
public struct TesseraCallbacks: Sendable {
    /// `(rtCode, resultMessage)`.
    public typealias OnFailed = @Sendable (Int, String) -> Void
    /// An invocation error.
    public typealias OnError = @Sendable (any Error) -> Void
    /// A log line.
    public typealias OnTotalLog = @Sendable (String) -> Void
    /// Called at the end.
    public typealias OnCompleted = @Sendable () -> Void

    /// The client calls go through.
    public let client: TesseraClient

    /// What `onProcess` of ``requestAuthRequest(channel:matchNumber:onSuccess:onProcess:onFailed:onError:onTotalLog:onCompleted:disposeBag:)``
    /// gets after the statuses it received when the progress stream lost some (``AuthSession/missedStatuses``).
    public static let progressLost = "ProgressLost"

    /// Creates a facade over `client`.
    public init(client: TesseraClient) { self.client = client }

    /// Runs `body` as one call: logs its steps to `onTotalLog`, delivers its outcome, and puts the call in
    /// `disposeBag` (when given) so that the bag's release cancels it.
    private func run(
        _ name: String, onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog?,
        onCompleted: OnCompleted?, disposeBag: DisposeBag?, _ body: @escaping @Sendable () async throws -> (@Sendable () -> Void)
    ) -> TesseraCancellable {
        TesseraCancellable(Task {
            onTotalLog?("\(name) started")
            // Every step the client logs during this call reaches this call's onTotalLog too.
            await TesseraClient.$callLog.withValue(onTotalLog) {
                do {
                    let deliver = try await body()
                    guard !Task.isCancelled else { return }
                    onTotalLog?("\(name) succeeded")
                    deliver()
                } catch let error as TesseraError {
                    guard !Task.isCancelled else { return }
                    onTotalLog?("\(name) failed: \(error.code.rawValue)")
                    onFailed(error.code.rawValue, error.message)
                    // Network and decoding failures (9101, 9102) reach onError as well, as before.
                    if error.code == .networkError || error.code == .invalidResponse { onError(error) }
                } catch {
                    guard !Task.isCancelled else { return }
                    onTotalLog?("\(name) error: \(error)")
                    onError(error)
                }
            }
            guard !Task.isCancelled else { return }
            onCompleted?()
        }, in: disposeBag)
    }

    /// The seed's `requestSendOTPNumber`.
    @discardableResult
    public func requestSendOTPNumber(
        sendType: OTPChannel, sendTarget: String, purpose: OTPPurpose = .signup, onSuccess: @escaping @Sendable () -> Void,
        onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestSendOTPNumber", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestSendOTPNumber(sendType: sendType, sendTarget: sendTarget, purpose: purpose)
            return onSuccess
        }
    }

    /// The seed's `verifyOTPNumber`: `onValidOTPNumber(disposeToken)` or `onInvalidOTPNumber`.
    @discardableResult
    public func verifyOTPNumber(
        sendType: OTPChannel, sendTarget: String, otpNumber: String, purpose: OTPPurpose? = nil,
        onValidOTPNumber: @escaping @Sendable (String) -> Void, onInvalidOTPNumber: @escaping @Sendable () -> Void,
        onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("verifyOTPNumber", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            switch try await client.verifyOTPNumber(sendType: sendType, sendTarget: sendTarget, otpNumber: otpNumber, purpose: purpose) {
            case .valid(let token): return { onValidOTPNumber(token) }
            case .invalid: return onInvalidOTPNumber
            }
        }
    }

    /// The seed's `checkDuplicateUserData`.
    @discardableResult
    public func checkDuplicateUserData(
        verifyData: String, verifyType: VerifyType, onNotDuplicateUser: @escaping @Sendable () -> Void,
        onDuplicateUser: @escaping @Sendable () -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("checkDuplicateUserData", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.checkDuplicateUserData(verifyData: verifyData, verifyType: verifyType) ? onDuplicateUser : onNotDuplicateUser
        }
    }

    /// The seed's `checkUserKeyAvailable`.
    @discardableResult
    public func checkUserKeyAvailable(
        userKey: String, onUserKeyAvailable: @escaping @Sendable () -> Void, onUserKeyNotAvailable: @escaping @Sendable () -> Void,
        onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("checkUserKeyAvailable", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.checkUserKeyAvailable(userKey: userKey) ? onUserKeyAvailable : onUserKeyNotAvailable
        }
    }

    /// The seed's `requestSignUp` (local authentication happens first, as in the seed).
    @discardableResult
    public func requestSignUp(
        userData: UserData, localAuthenticator: any LocalAuthenticator, reason: String, onSuccess: @escaping @Sendable () -> Void,
        onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestSignUp", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestSignUp(userData: userData, localAuthenticator: localAuthenticator, reason: reason)
            return onSuccess
        }
    }

    /// The seed's `BSA.LocalAuth.startSimpleAuth`: `onSuccess()` or `onError(code)`. Its success is what
    /// ``requestSignUp(userData:onSuccess:onFailed:onError:onTotalLog:onCompleted:disposeBag:)`` and
    /// ``requestRegisterDevice(existingUserData:onSuccess:onFailed:onError:onTotalLog:onCompleted:disposeBag:)`` use next.
    @discardableResult
    public func startSimpleAuth(
        localAuthType: LocalAuthType, reason: String, checkDomainStateChanged: Bool, usePasscodeWhenFailed: Bool,
        localAuthenticator: any LocalAuthenticator, onSuccess: @escaping @Sendable () -> Void,
        onError: @escaping @Sendable (LocalAuthErrorCode?) -> Void, disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        TesseraCancellable(Task {
            do {
                try await client.startSimpleAuth(
                    localAuthType: localAuthType, reason: reason, checkDomainStateChanged: checkDomainStateChanged,
                    usePasscodeWhenFailed: usePasscodeWhenFailed, localAuthenticator: localAuthenticator
                )
                guard !Task.isCancelled else { return }
                onSuccess()
            } catch {
                guard !Task.isCancelled else { return }
                onError((error as? LocalAuthError)?.code)
            }
        }, in: disposeBag)
    }

    /// The seed's `requestSignUp(userData:…)` after ``startSimpleAuth(localAuthType:reason:checkDomainStateChanged:usePasscodeWhenFailed:localAuthenticator:onSuccess:onError:disposeBag:)``
    /// succeeded: no second prompt. Without it, `onFailed` gets 9103 and nothing is sent.
    @discardableResult
    public func requestSignUp(
        userData: UserData, onSuccess: @escaping @Sendable () -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestSignUp", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestSignUp(userData: userData)
            return onSuccess
        }
    }

    /// The seed's `requestRegisterDevice(existingUserData:…)` after a successful `startSimpleAuth` of the
    /// account's local-auth type: no second prompt.
    @discardableResult
    public func requestRegisterDevice(
        existingUserData: ExistingUserData, onSuccess: @escaping @Sendable () -> Void, onFailed: @escaping OnFailed,
        onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestRegisterDevice", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestRegisterDevice(existingUserData: existingUserData)
            return onSuccess
        }
    }

    /// The seed's `requestSendOTPNumberForRegisterDevice`: `onSuccess(lastLocalAuthType)`.
    @discardableResult
    public func requestSendOTPNumberForRegisterDevice(
        userKey: String, name: String, sendType: OTPChannel, sendTarget: String,
        onSuccess: @escaping @Sendable (LocalAuthType?) -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestSendOTPNumberForRegisterDevice", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            let last = try await client.requestSendOTPNumberForRegisterDevice(userKey: userKey, name: name, sendType: sendType, sendTarget: sendTarget)
            return { onSuccess(last) }
        }
    }

    /// The seed's `requestRegisterDevice` (local authentication first; the old device is revoked).
    @discardableResult
    public func requestRegisterDevice(
        existingUserData: ExistingUserData, localAuthenticator: any LocalAuthenticator, reason: String,
        onSuccess: @escaping @Sendable () -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestRegisterDevice", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestRegisterDevice(existingUserData: existingUserData, localAuthenticator: localAuthenticator, reason: reason)
            return onSuccess
        }
    }

    // MARK: Authentication (the GCCS SDK's calls)

    /// The GCCS `requestAuthRequest`: opens a channel (or approves a relying party's `channel`), reports each
    /// status to `onProcess` as it happens, and answers `(rtCode, rtMsg, authType, connectIp, userKey, clientKey)`
    /// once a quorum of nodes attested; `authType` is the seed's `Int` (``LocalAuthType/gccsCode``). `matchNumber` is the number the user picked when the request
    /// asks for number matching (``AuthChannelResponse/numberChoices``).
    @discardableResult
    public func requestAuthRequest(
        channel: AuthChannelResponse? = nil, matchNumber: String? = nil,
        onSuccess: @escaping @Sendable (Int, String, Int, String, String, String) -> Void,
        onProcess: @escaping @Sendable (String) -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestAuthRequest", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            let session = try await client.requestAuthRequest(channel: channel, matchNumber: matchNumber) { onProcess($0.rawValue) }
            // The seed's statuses are strings: a lost stream is told as one more, after the ones received.
            if !session.missedStatuses.isEmpty { onProcess(TesseraCallbacks.progressLost) }
            let opened = session.channel
            return { onSuccess(0, "OK", session.authType.gccsCode, opened.connectIp, opened.userKey, opened.clientKey) }
        }
    }

    /// The GCCS `requestAuthResult(isSecondaryCertification:)`: `(rtCode, rtMsg)`.
    @discardableResult
    public func requestAuthResult(
        isSecondaryCertification: Bool, unlockSecret: String? = nil, onSuccess: @escaping @Sendable (Int, String) -> Void,
        onFailed: @escaping OnFailed, onError: @escaping OnError, onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestAuthResult", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestAuthResult(isSecondaryCertification: isSecondaryCertification, unlockSecret: unlockSecret)
            return { onSuccess(0, "OK") }
        }
    }

    /// The GCCS `getAuthResultToken`: `(rtCode, token)`.
    @discardableResult
    public func getAuthResultToken(
        onSuccess: @escaping @Sendable (Int, String) -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("getAuthResultToken", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            let token = try client.getAuthResultToken()
            return { onSuccess(0, token) }
        }
    }

    /// The GCCS `requestAuthCancel`: `(rtCode, message)`.
    @discardableResult
    public func requestAuthCancel(
        onSuccess: @escaping @Sendable (Int, String) -> Void, onFailed: @escaping OnFailed, onError: @escaping OnError,
        onTotalLog: OnTotalLog? = nil, onCompleted: OnCompleted? = nil,
        disposeBag: DisposeBag? = nil
    ) -> TesseraCancellable {
        run("requestAuthCancel", onFailed: onFailed, onError: onError, onTotalLog: onTotalLog, onCompleted: onCompleted, disposeBag: disposeBag) {
            try await client.requestAuthCancel()
            return { onSuccess(0, "cancelled") }
        }
    }
}
