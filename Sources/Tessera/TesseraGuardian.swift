import TesseraCore

/// The GCCS SDK's `GuardianService`: its authentication calls with the seed's callbacks and their
/// order, so that the seed's code compiles with trailing closures as written:
///
/// ```swift
/// guardian.requestAuthRequest { rtCode, rtMsg, authType, connectIp, userKey, clientKey in
///     ...
/// } onProcess: { status in
///     ...
/// } onFailed: { errCode, errMsg in
///     ...
/// }
/// ```
///
/// Every failure reaches `onFailed(errCode, errMsg)`, the seed's only failure callback: a server refusal
/// with its code, a network failure as 9101, an answer that cannot be decoded as 9102, and a failure on
/// the device (the key store could not sign) as 9104 (``ErrorCode/localFailure``). There is no shared
/// instance: the SDK has no process-wide configuration, so make one over your ``TesseraClient`` and keep it
/// where the seed kept `GuardianService.sharedInstance` (see "Migrating from the GCCS SDK").
/// The calls run on ``TesseraCallbacks``; each returns a ``TesseraCancellable`` and takes `disposeBag:`.
public struct TesseraGuardian: Sendable {
    /// `(errCode, errMsg)`.
    public typealias OnFailed = TesseraCallbacks.OnFailed

    /// The client calls go through.
    public let client: TesseraClient

    /// Creates the facade over `client`.
    public init(client: TesseraClient) { self.client = client }

    private var callbacks: TesseraCallbacks { TesseraCallbacks(client: client) }

    /// The seed's `requestAuthRequest`, both "Authentication Request" and "Start Authentication" in one
    /// call: opens a channel (or approves a relying party's `channel`), gives each status to `onProcess` in
    /// order (`CreateChannel`, `SelectNodes`, `StartVerificationOfNodes`, `CompleteVerificationOfNodes`),
    /// then `onSuccess(rtCode, rtMsg, authType, connectIp, userKey, clientKey)` once a quorum of nodes
    /// attested, with `authType` the seed's `Int` (``LocalAuthType/gccsCode``): the secondary
    /// authentication to perform before ``requestAuthResult(isSecondaryCertification:unlockSecret:disposeBag:onSuccess:onFailed:)``.
    /// - Parameters:
    ///   - channel: A relying party's request from ``TesseraClient/pendingAuthRequests()``; `nil` opens a new channel.
    ///   - matchNumber: The number the user picked when the request asks for number matching.
    ///   - disposeBag: Cancels the call when it is released.
    @discardableResult
    public func requestAuthRequest(
        channel: AuthChannelResponse? = nil, matchNumber: String? = nil, disposeBag: DisposeBag? = nil,
        onSuccess: @escaping @Sendable (_ rtCode: Int, _ rtMsg: String, _ authType: Int, _ connectIp: String, _ userKey: String, _ clientKey: String) -> Void,
        onProcess: @escaping @Sendable (_ status: String) -> Void, onFailed: @escaping OnFailed
    ) -> TesseraCancellable {
        callbacks.requestAuthRequest(
            channel: channel, matchNumber: matchNumber, onSuccess: onSuccess, onProcess: onProcess, onFailed: onFailed,
            onError: Self.local(onFailed), disposeBag: disposeBag
        )
    }

    /// The seed's `requestAuthResult(isSecondaryCertification:)`: reports the secondary authentication's
    /// outcome and completes the authentication, `onSuccess(rtCode, rtMsg)`. `unlockSecret` is the PIN or
    /// password the user entered when ``AuthSession/authType`` is PIN or password and the key store
    /// seals the user-verification key under it (``FileKeyStore``); a wrong or missing one fails with 9104.
    @discardableResult
    public func requestAuthResult(
        isSecondaryCertification: Bool, unlockSecret: String? = nil, disposeBag: DisposeBag? = nil,
        onSuccess: @escaping @Sendable (_ rtCode: Int, _ rtMsg: String) -> Void, onFailed: @escaping OnFailed
    ) -> TesseraCancellable {
        callbacks.requestAuthResult(
            isSecondaryCertification: isSecondaryCertification, unlockSecret: unlockSecret, onSuccess: onSuccess, onFailed: onFailed,
            onError: Self.local(onFailed), disposeBag: disposeBag
        )
    }

    /// The seed's `getAuthResultToken`: `onSuccess(rtCode, result)` with the result token of the
    /// authentication just completed.
    @discardableResult
    public func getAuthResultToken(
        disposeBag: DisposeBag? = nil, onSuccess: @escaping @Sendable (_ rtCode: Int, _ result: String) -> Void,
        onFailed: @escaping OnFailed
    ) -> TesseraCancellable {
        callbacks.getAuthResultToken(onSuccess: onSuccess, onFailed: onFailed, onError: Self.local(onFailed), disposeBag: disposeBag)
    }

    /// The seed's `requestAuthCancel`: cancels the authentication in progress, `onSuccess(rtCode, msg)`.
    @discardableResult
    public func requestAuthCancel(
        disposeBag: DisposeBag? = nil, onSuccess: @escaping @Sendable (_ rtCode: Int, _ msg: String) -> Void,
        onFailed: @escaping OnFailed
    ) -> TesseraCancellable {
        callbacks.requestAuthCancel(onSuccess: onSuccess, onFailed: onFailed, onError: Self.local(onFailed), disposeBag: disposeBag)
    }

    /// What ``TesseraCallbacks`` gives `onError`, for a seed whose only failure callback is `onFailed`:
    /// Tessera errors are there already (9101 and 9102 reach both); any other failure happened on the
    /// device and arrives as ``ErrorCode/localFailure``.
    private static func local(_ onFailed: @escaping OnFailed) -> TesseraCallbacks.OnError {
        { error in
            guard !(error is TesseraError) else { return }
            let message = switch error as? KeyStoreError {
            case .noKeys: "This device has no keys: sign up or re-register first"
            case .locked: "The PIN or password did not unlock the user-verification key"
            case nil: "A failure on the device: \(error)"
            }
            onFailed(ErrorCode.localFailure.rawValue, message)
        }
    }
}
