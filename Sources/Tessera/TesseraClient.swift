import Foundation
import TesseraCore
import Synchronization

/// The entry point of the Tessera SDK: one client per server and app.
///
/// ```swift
/// let tessera = TesseraClient(configuration: .init(
///     serverURL: URL(string: "https://id.example.com")!, clientKey: "tck_…", bundleIdentifier: "com.example.app"))
/// try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: "user@example.com")
/// switch try await tessera.verifyOTPNumber(sendType: .email, sendTarget: "user@example.com", otpNumber: "123456") {
/// case .valid(let disposeToken): …
/// case .invalid(let remainingAttempts): …
/// }
/// ```
public final class TesseraClient: Sendable {
    /// How to reach the server and who is calling.
    public struct Configuration: Sendable {
        /// The server's base URL (the part before `/v1`).
        public var serverURL: URL
        /// The client key issued for the app.
        public var clientKey: String
        /// The app's bundle identifier; must be on the client's allow-list.
        public var bundleIdentifier: String
        /// Timeout of one call.
        public var timeout: Duration

        /// Creates a configuration.
        public init(serverURL: URL, clientKey: String, bundleIdentifier: String, timeout: Duration = .seconds(30)) {
            self.serverURL = serverURL
            self.clientKey = clientKey
            self.bundleIdentifier = bundleIdentifier
            self.timeout = timeout
        }
    }

    /// A log hook in the spirit of the seed's `onTotalLog`: receives one line per step of every call
    /// (never a code, token or secret).
    public typealias LogHandler = @Sendable (String) -> Void

    /// The configuration in use.
    public let configuration: Configuration
    /// Where the device keys and state live.
    public let keyStore: any DeviceKeyStore
    /// Where the session lives: the key store when it is one of the SDK's, else memory.
    let sessionVault: any SessionVault
    let transport: any HTTPTransport
    /// The hook given at creation.
    let clientLog: LogHandler?
    /// The log of the ``TesseraCallbacks`` call in progress (the seed's per-call `onTotalLog`).
    @TaskLocal static var callLog: LogHandler?
    /// Where a step's log line goes: the client's hook and the current call's.
    var log: LogHandler? {
        let clientLog = self.clientLog
        guard let callLog = Self.callLog else { return clientLog }
        return { line in
            clientLog?(line)
            callLog(line)
        }
    }
    /// The authentication in progress and the last result token (the seed keeps both inside the SDK).
    let authState = Mutex(AuthState())
    /// Logged in or not, with the delegate and the streams to tell.
    let authentication: AuthenticationStateHub
    /// The purpose of the last code sent to each target, so that `verifyOTPNumber` called as the
    /// seeds call it (without a purpose) verifies a recovery code after the recovery send.
    let otpPurposes = Mutex([String: OTPPurpose]())
    /// The App Attest of enrolments and approvals (``useAppAttest(_:)``); nil: none.
    let enrolmentAttestation = Mutex<(any AppAttestProvider)?>(nil)
    /// The last successful local authentication, until sign-up or re-registration uses it.
    let localAuthentication = Mutex<(type: LocalAuthType, result: LocalAuthResult)?>(nil)

    #if !os(Linux) || TESSERA_APPLE_SHIMS  // the platform decides, not which packages happen to be importable
    /// Creates a client that talks HTTP through URLSession.
    /// - Parameters:
    ///   - configuration: Server URL, client key and bundle identifier.
    ///   - keyStore: Where device keys and state are kept. Default: a ``FileKeyStore`` in
    ///     ``FileKeyStore/standardDirectory(for:environment:)``, so the state and the session survive a
    ///     relaunch; pass a ``MemoryKeyStore`` for tests and short-lived tools.
    ///   - onTotalLog: Optional hook receiving every log line the SDK produces.
    public convenience init(configuration: Configuration, keyStore: (any DeviceKeyStore)? = nil, onTotalLog: LogHandler? = nil) {
        let transport = URLSessionTransport(session: .shared, timeout: configuration.timeout)
        self.init(configuration: configuration, keyStore: keyStore, onTotalLog: onTotalLog, transport: transport)
    }
    #endif

    /// Creates a client that talks HTTP through `transport`. On Linux this is the way to make one:
    /// pass `AsyncHTTPClientTransport(timeout:)` from the `TesseraAsyncHTTPClient` product (whose
    /// `import` also brings the initialiser without a transport), or a transport of your own.
    /// - Parameters:
    ///   - configuration: Server URL, client key and bundle identifier.
    ///   - keyStore: Where device keys and state are kept; nil for a ``FileKeyStore`` in
    ///     ``FileKeyStore/standardDirectory(for:environment:)``.
    ///   - onTotalLog: Optional hook receiving every log line the SDK produces.
    ///   - transport: What sends the requests; it should honour ``Configuration/timeout``.
    public init(configuration: Configuration, keyStore: (any DeviceKeyStore)? = nil, onTotalLog: LogHandler? = nil, transport: any HTTPTransport) {
        self.configuration = configuration
        let keyStore = keyStore ?? FileKeyStore(standardFor: configuration)
        self.keyStore = keyStore
        self.sessionVault = keyStore as? any SessionVault ?? MemoryKeyStore()
        self.clientLog = onTotalLog
        self.authentication = AuthenticationStateHub(authenticated: (try? sessionVault.loadSession())??.deviceBound ?? false)
        self.transport = transport
    }

    /// What ``verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)`` found.
    public enum OTPVerification: Sendable, Equatable {
        /// The code matched; the single-use dispose token proves it at sign-up or recovery.
        case valid(disposeToken: String)
        /// The code did not match (the seed's `onInvalidOTPNumber`); this many tries are left.
        case invalid(remainingAttempts: Int)
    }

    /// Sends a six-digit code to an e-mail address or phone number (the seed's `requestSendOTPNumber`).
    /// - Parameters:
    ///   - sendType: E-mail or SMS.
    ///   - sendTarget: The address or E.164 phone number.
    ///   - purpose: Sign-up (default) or recovery.
    /// - Returns: The normalised target and the code's lifetime.
    /// - Throws: ``TesseraError`` with the server's code (invalid target, cooldown, rate limit, …).
    @discardableResult
    public func requestSendOTPNumber(sendType: OTPChannel, sendTarget: String, purpose: OTPPurpose = .signup) async throws -> SendOTPResponse {
        let answer: SendOTPResponse = try await call(
            "POST", "/v1/otp/send", body: SendOTPRequest(sendType: sendType, sendTarget: sendTarget, purpose: purpose)
        )
        rememberPurpose(purpose, sendType: sendType, sendTarget: sendTarget)
        return answer
    }

    /// Verifies a code (the seed's `verifyOTPNumber`).
    /// - Parameter purpose: What the code is for. When nil (the seeds' call shape), the purpose of the
    ///   last code this client had sent to the target: recovery after
    ///   ``requestSendOTPNumberForRegisterDevice(userKey:name:sendType:sendTarget:)``, else sign-up.
    /// - Returns: ``OTPVerification/valid(disposeToken:)`` or ``OTPVerification/invalid(remainingAttempts:)``.
    /// - Throws: ``TesseraError`` for failures: no live code (`otpExpired`), locked (`otpTooManyAttempts`), …
    public func verifyOTPNumber(
        sendType: OTPChannel, sendTarget: String, otpNumber: String, purpose: OTPPurpose? = nil
    ) async throws -> OTPVerification {
        let purpose = purpose ?? otpPurposes.withLock { $0[Self.purposeKey(sendType, sendTarget)] } ?? .signup
        do {
            let answer: VerifyOTPResponse = try await call(
                "POST", "/v1/otp/verify",
                body: VerifyOTPRequest(sendType: sendType, sendTarget: sendTarget, otpNumber: otpNumber, purpose: purpose)
            )
            return .valid(disposeToken: answer.disposeToken)
        } catch let error as TesseraError where error.code == .otpInvalid {
            return .invalid(remainingAttempts: error.problem?.remainingAttempts ?? 0)
        }
    }

    /// Notes what the last code sent to a target is for (see ``verifyOTPNumber(sendType:sendTarget:otpNumber:purpose:)``).
    func rememberPurpose(_ purpose: OTPPurpose, sendType: OTPChannel, sendTarget: String) {
        otpPurposes.withLock { purposes in
            if purposes.count >= 64 { purposes.removeAll() }  // a handful of targets per app run; never grows without bound
            purposes[Self.purposeKey(sendType, sendTarget)] = purpose
        }
    }

    /// A target as the server normalises it for the purpose memory: trimmed, e-mail lowercased, phone digits only.
    static func purposeKey(_ sendType: OTPChannel, _ sendTarget: String) -> String {
        let trimmed = sendTarget.trimmingCharacters(in: .whitespacesAndNewlines)
        switch sendType {
        case .email: return "email|" + trimmed.lowercased()
        case .sms: return "sms|" + trimmed.filter(\.isNumber)
        }
    }

    func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, body: Body, signedBy keyId: String? = nil
    ) async throws -> Answer {
        try await exchange(method, path, bytes: try JSONEncoder().encode(body), signedBy: keyId)
    }

    /// A call without a body (GET), optionally signed.
    func call<Answer: Decodable>(_ method: String, _ path: String, signedBy keyId: String? = nil) async throws -> Answer {
        try await exchange(method, path, bytes: Data(), signedBy: keyId)
    }

    /// A GET authorised by a bearer token (a result token).
    func call<Answer: Decodable>(_ method: String, _ path: String, bearer: String) async throws -> Answer {
        try await exchange(method, path, bytes: Data(), signedBy: nil, bearer: bearer)
    }

    /// A call authorised by the session the SDK holds. A 401 answer ends the session (logged out).
    func sessionCall<Answer: Decodable>(
        _ method: String, _ path: String, bytes: Data = Data(), signedBy keyId: String? = nil, session: StoredSession? = nil
    ) async throws -> Answer {
        guard let session = try session ?? sessionVault.loadSession() else {
            authentication.set(false, tessera: self)
            throw TesseraError(code: .sessionInvalid, message: "Not logged in")
        }
        do {
            return try await exchange(method, path, bytes: bytes, signedBy: keyId, bearer: session.token)
        } catch let error as TesseraError where error.problem?.status == 401 {
            log?("session refused (\(error.code.rawValue)): logged out")
            try? sessionVault.saveSession(nil)
            authentication.set(false, tessera: self)
            throw error
        }
    }

    /// An answer with no body (204).
    struct NoContent: Decodable {}

    private func exchange<Answer: Decodable>(
        _ method: String, _ fullPath: String, bytes: Data, signedBy keyId: String?, bearer: String? = nil
    ) async throws -> Answer {
        let body = try await exchangeData(method, fullPath, bytes: bytes, signedBy: keyId, bearer: bearer)
        if Answer.self == NoContent.self, let empty = NoContent() as? Answer { return empty }
        do {
            return try JSONDecoder().decode(Answer.self, from: body)
        } catch {
            throw TesseraError(code: .invalidResponse, message: "Unexpected answer from the server: \(error)")
        }
    }

    /// Sends one call and returns the body of a 2xx answer; a refusal throws ``TesseraError`` with the
    /// server's code. `extraHeaders` (an ``AuthorizationProvider``'s) never replace the SDK's own.
    func exchangeData(
        _ method: String, _ fullPath: String, bytes: Data, signedBy keyId: String?, bearer: String? = nil,
        extraHeaders: [String: String] = [:]
    ) async throws -> Data {
        let parts = fullPath.split(separator: "?", maxSplits: 1)
        let path = String(parts[0])
        var url = configuration.serverURL.appendingPathComponent(String(path.dropFirst()))
        if parts.count == 2, let withQuery = URL(string: url.absoluteString + "?" + parts[1]) { url = withQuery }
        log?("→ \(method) \(path)")
        var own = [
            "Accept": "application/json",
            TesseraHeader.clientKey: configuration.clientKey, TesseraHeader.bundleId: configuration.bundleIdentifier,
        ]
        if !bytes.isEmpty { own["Content-Type"] = "application/json" }
        if let bearer { own["Authorization"] = "Bearer \(bearer)" }
        if let keyId {
            let store = keyStore
            let signed = try MessageSignature.sign(
                method: method, path: path, body: bytes, keyId: keyId, nonce: MessageSignature.randomNonce(),
                created: Int64(Date().timeIntervalSince1970)
            ) { try store.signWithDeviceKey($0) }
            own["Content-Digest"] = signed.contentDigest
            own["Signature-Input"] = signed.signatureInput
            own["Signature"] = signed.signature
            log?("  signed as \(keyId)")
        }
        var headers = extraHeaders.filter { extra in !own.keys.contains { $0.lowercased() == extra.key.lowercased() } }
        headers.merge(own) { $1 }
        let answer: HTTPAnswer
        do {
            answer = try await transport.send(method: method, url: url, headers: headers, body: bytes.isEmpty ? nil : bytes)
        } catch {
            log?("✗ \(method) \(path): network error \(error)")
            throw TesseraError(code: .networkError, message: "Cannot reach \(configuration.serverURL.absoluteString): \(error)")
        }
        log?("← \(answer.status) \(path)")
        if (200..<300).contains(answer.status) { return answer.body }
        if let problem = try? JSONDecoder().decode(Problem.self, from: answer.body) {
            log?("✗ \(path): code \(problem.code) \(problem.title)")
            throw TesseraError(code: problem.errorCode, message: problem.detail ?? problem.title, problem: problem)
        }
        throw TesseraError(code: .invalidResponse, message: "HTTP \(answer.status) without a problem document")
    }
}
