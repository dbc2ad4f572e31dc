import Crypto
import Foundation
import TesseraCore

/// What the SDK remembers of the current authentication.
struct AuthState: Sendable {
    var channel: AuthChannelResponse?
    var token: String?
    /// What follows the channel's progress stream to its end; cancelled when another authentication begins.
    var follower: Task<Void, Never>?

    /// A new authentication on `channel`: the previous one's stream, if still followed, is closed.
    mutating func begin(_ channel: AuthChannelResponse) {
        follower?.cancel()
        self = AuthState(channel: channel)
    }
}

/// An authentication whose nodes have attested: what ``TesseraClient/requestAuthRequest(channel:matchNumber:onProcess:)`` returns.
public struct AuthSession: Sendable, Equatable {
    /// The channel (for a relying party's request: who asks, from where, and why).
    public var channel: AuthChannelResponse
    /// The secondary verification to perform now (the seed's `authType`).
    public var authType: LocalAuthType
    /// The nodes whose attestations made the quorum.
    public var nodes: [String]
    /// The steps the progress stream never delivered (empty when it reported every one, and when
    /// nobody asked for progress: without `onProcess` the stream is not opened). The authentication
    /// itself did reach its quorum; only its progress was lost on the way (a proxy that buffers or cuts
    /// server-sent events, a dropped connection), and no step was reported that was not received.
    public var missedStatuses: [AuthStatus] = []
}

extension TesseraClient {
    /// The enrolled device's id, which its signed calls name as `keyid` (``ErrorCode/deviceUnknown`` before enrolment).
    func signingDeviceId() throws -> String {
        guard let deviceId = try keyStore.loadState()?.deviceId else {
            throw TesseraError(code: .deviceUnknown, message: "This device is not enrolled: sign up or re-register first")
        }
        return deviceId
    }

    /// Opens an authentication channel for this device (`CreateChannel`).
    public func openAuthChannel() async throws -> AuthChannelResponse {
        let channel: AuthChannelResponse = try await call("POST", "/v1/auth/channels", signedBy: try signingDeviceId())
        authState.withLock { $0.begin(channel) }
        return channel
    }

    /// Relying-party requests waiting for this device's user (poll this; push delivery comes later).
    public func pendingAuthRequests() async throws -> [AuthChannelResponse] {
        let answer: PendingAuthResponse = try await call("GET", "/v1/auth/pending", signedBy: try signingDeviceId())
        return answer.requests
    }

    /// The channel's progress as it happens, from its server-sent-events stream: each
    /// ``AuthStatus`` once, in order. The stream ends when the channel reaches its outcome.
    public func authProgress(channelId: String) -> AsyncStream<AuthStatus> {
        AsyncStream { continuation in
            let task = Task {
                for await event in authEvents(channelId: channelId) {
                    if let status = event.status { continuation.yield(status) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Every event of the channel's stream, the closing outcome included. After the outcome the rest of
    /// the answer (the server ends it there) is still read, out of sight, so that its connection can
    /// carry the next call instead of being closed.
    public func authEvents(channelId: String) -> AsyncStream<AuthEvent> {
        let url = configuration.serverURL.appendingPathComponent("v1/auth/channels/\(channelId)/events")
        let transport = self.transport, log = self.log
        return AsyncStream { continuation in
            let task = Task {
                var ended = false
                do {
                    let (status, lines) = try await transport.lines(url: url, headers: ["Accept": "text/event-stream"])
                    guard status == 200 else {
                        log?("✗ progress stream: HTTP \(status)")
                        continuation.finish()
                        return
                    }
                    let decoder = JSONDecoder()
                    var data = ""
                    for try await line in lines where !ended {
                        if line.hasPrefix("data:") {
                            data += line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                        } else if line.isEmpty, !data.isEmpty {
                            if let event = try? decoder.decode(AuthEvent.self, from: Data(data.utf8)) {
                                continuation.yield(event)
                                if event.outcome != nil {
                                    ended = true
                                    continuation.finish()
                                }
                            }
                            data = ""
                        }
                    }
                } catch {
                    if !ended { log?("✗ progress stream: \(error)") }
                }
                continuation.finish()
            }
            // A consumer that stops listening closes the stream; one that got the outcome leaves it to end.
            continuation.onTermination = { termination in
                if case .cancelled = termination { task.cancel() }
            }
        }
    }

    /// The seed's `requestAuthRequest` and start: opens a channel (or takes a relying party's pending
    /// request), follows its progress (when `onProcess` is given), signs the challenge with the device key and waits until a
    /// quorum of nodes attested.
    /// - Parameters:
    ///   - channel: A request from ``pendingAuthRequests()`` to approve; `nil` opens a new channel.
    ///   - matchNumber: Number matching: the number the user picked from the request's
    ///     ``AuthChannelResponse/numberChoices`` (required when it has them). A missing or wrong
    ///     number ends the request (`authNumberMismatch`); there is no second guess.
    ///   - onProcess: Receives `CreateChannel`, `SelectNodes`, `StartVerificationOfNodes`,
    ///     `CompleteVerificationOfNodes` as they happen, and only those the stream delivered; the ones it
    ///     never delivered are in ``AuthSession/missedStatuses``. Without it the progress stream is not
    ///     opened at all: the login then costs one connection and one request less, and its outcome is
    ///     the same (the start call itself answers once the quorum attested).
    /// - Returns: The session, with the secondary verification (`authType`) to perform next.
    /// - Throws: ``TesseraError``: `authQuorumNotReached` when too few nodes attested, `authNumberMismatch`,
    ///   channel errors, signature errors.
    public func requestAuthRequest(
        channel: AuthChannelResponse? = nil, matchNumber: String? = nil, onProcess: (@Sendable (AuthStatus) -> Void)? = nil
    ) async throws -> AuthSession {
        let deviceId = try signingDeviceId()
        let opened: AuthChannelResponse
        if let channel { opened = channel } else { opened = try await openAuthChannel() }
        let channel = opened
        authState.withLock { $0.begin(channel) }
        guard let onProcess else { return try await start(channel, deviceId: deviceId, matchNumber: matchNumber) }
        // The stream is followed to its end (the outcome, after the result) in the background; the wait
        // below ends at CompleteVerificationOfNodes.
        let (reached, reachedInput) = AsyncStream.makeStream(of: [AuthStatus].self, bufferingPolicy: .bufferingOldest(1))
        let events = authEvents(channelId: channel.channelId)
        let follower = Task {
            var seen: [AuthStatus] = []
            for await event in events {
                guard let status = event.status else { continue }
                seen.append(status)
                onProcess(status)
                if status == .completeVerificationOfNodes { reachedInput.yield(seen) }
            }
            reachedInput.yield(seen)  // the statuses so far, when the stream ended or was cut before the last
            reachedInput.finish()
        }
        authState.withLock { $0.follower = follower }
        let started: AuthSession
        do {
            started = try await start(channel, deviceId: deviceId, matchNumber: matchNumber)
        } catch {
            follower.cancel()
            throw error
        }
        // The stream reports the last status within moments; don't let a slow proxy hold the flow.
        let waiter = Task {
            do { try await Task.sleep(for: .seconds(3)) } catch { return }  // cancelled: the statuses came
            follower.cancel()
        }
        var first = reached.makeAsyncIterator()
        let statuses = await first.next() ?? []
        waiter.cancel()
        let missed = AuthStatus.allCases.filter { !statuses.contains($0) }
        if !missed.isEmpty { log?("✗ progress lost: the stream never reported \(missed.map(\.rawValue).joined(separator: ", "))") }
        var session = started
        session.missedStatuses = missed
        return session
    }

    /// The start call of ``requestAuthRequest(channel:matchNumber:onProcess:)``: signs the channel's
    /// challenge with the device key; the server answers once a quorum of nodes attested.
    private func start(_ channel: AuthChannelResponse, deviceId: String, matchNumber: String?) async throws -> AuthSession {
        let statement = AuthStatement.challenge(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
        let signature = try keyStore.signWithDeviceKey(statement).rawRepresentation.base64EncodedString()
        let started: AuthStartResponse = try await call(
            "POST", "/v1/auth/channels/\(channel.channelId)/start",
            body: AuthStartRequest(challengeSignature: signature, matchNumber: matchNumber, appAttestAssertion: try await signInAssertion(for: channel)),
            signedBy: deviceId
        )
        let stored = try keyStore.loadState()?.localAuthType ?? LocalAuthType.none
        let authType = LocalAuthType(rawValue: started.authType) ?? stored
        return AuthSession(channel: channel, authType: authType, nodes: started.nodes)
    }

    /// The seed's `requestAuthResult(isSecondaryCertification:)`: reports the local verification. On
    /// success the challenge is signed with the user-verification key (unlocked by `unlockSecret` for
    /// PIN and password) and the server answers the result token, kept for ``getAuthResultToken()``.
    /// - Returns: The result token.
    @discardableResult
    public func requestAuthResult(isSecondaryCertification: Bool, unlockSecret: String? = nil) async throws -> String {
        let deviceId = try signingDeviceId()
        guard let channel = authState.withLock({ $0.channel }) else {
            throw TesseraError(code: .authChannelState, message: "No authentication in progress: call requestAuthRequest first")
        }
        var signature: String?
        if isSecondaryCertification {
            let statement = AuthStatement.userVerification(channelId: channel.channelId, deviceId: deviceId, challenge: channel.challenge)
            signature = try keyStore.signWithUserVerificationKey(statement, unlockSecret: unlockSecret).rawRepresentation.base64EncodedString()
        }
        let answer: AuthResultResponse = try await call(
            "POST", "/v1/auth/channels/\(channel.channelId)/result",
            body: AuthResultRequest(isSecondaryCertification: isSecondaryCertification, userVerificationSignature: signature), signedBy: deviceId
        )
        // The stream's outcome is on its way: let it arrive, so that the stream ends by itself.
        authState.withLock {
            $0.token = answer.data
            $0.follower = nil
        }
        return answer.data
    }

    /// The seed's `getAuthResultToken`: the result token of the last completed authentication.
    public func getAuthResultToken() throws -> String {
        guard let token = authState.withLock({ $0.token }) else {
            throw TesseraError(code: .authChannelState, message: "No completed authentication")
        }
        return token
    }

    /// The seed's `requestAuthCancel`: cancels the authentication in progress (or `channel`).
    public func requestAuthCancel(channel: AuthChannelResponse? = nil) async throws {
        guard let channel = channel ?? authState.withLock({ $0.channel }) else {
            throw TesseraError(code: .authChannelState, message: "No authentication in progress")
        }
        let _: RtResponse = try await call("POST", "/v1/auth/channels/\(channel.channelId)/cancel", signedBy: try signingDeviceId())
    }

    /// Declines a relying party's request (from ``pendingAuthRequests()``).
    public func declineAuthRequest(_ channel: AuthChannelResponse) async throws {
        let _: RtResponse = try await call("POST", "/v1/auth/channels/\(channel.channelId)/decline", signedBy: try signingDeviceId())
    }

    /// The whole flow in one call: open (or approve `channel`), node verification, local
    /// authentication with `localAuthenticator`, result. A failed local authentication is reported
    /// to the server (the channel fails) and rethrown. `matchNumber` is the number the user picked
    /// when the request asks for number matching (see ``requestAuthRequest(channel:matchNumber:onProcess:)``).
    /// - Returns: The result token.
    public func authenticate(
        channel: AuthChannelResponse? = nil, matchNumber: String? = nil, localAuthenticator: any LocalAuthenticator, reason: String,
        onProcess: (@Sendable (AuthStatus) -> Void)? = nil
    ) async throws -> String {
        let session = try await requestAuthRequest(channel: channel, matchNumber: matchNumber, onProcess: onProcess)
        let verified: LocalAuthResult
        do {
            verified = try await localAuthenticator.authenticate(LocalAuthRequest(localAuthType: session.authType, reason: reason))
        } catch {
            _ = try? await requestAuthResult(isSecondaryCertification: false)
            throw error
        }
        return try await requestAuthResult(isSecondaryCertification: true, unlockSecret: verified.enteredSecret)
    }

    /// The authentication history of this user, newest first, authorised by a result token.
    public func authHistory(token: String? = nil, limit: Int = 20, before: String? = nil) async throws -> AuthHistoryPage {
        let bearer = try token ?? getAuthResultToken()
        var path = "/v1/auth/history?limit=\(limit)"
        if let before { path += "&before=\(before.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? before)" }
        return try await call("GET", path, bearer: bearer)
    }
}
