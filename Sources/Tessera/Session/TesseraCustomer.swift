import Foundation
import TesseraCore

/// Why a customer call failed, shaped like the Vipaso SDK's errors.
public enum CustomerError: Error, Sendable {
    /// A sign-up step failed for a reason of its own.
    case signup(SignupError)
    /// The server refused the call (any other code).
    case server(TesseraError)
    /// The server could not be reached or answered something unreadable.
    case network(TesseraError)

    /// The underlying error with its stable code.
    public var tesseraError: TesseraError {
        switch self {
        case .signup(.otp(let error)), .server(let error), .network(let error): error
        }
    }
}

/// Sign-up failures of their own kind.
public enum SignupError: Error, Sendable {
    /// The code could not be sent (invalid phone number, cooldown, rate limit, no SMS delivery).
    case otp(TesseraError)
}

/// The users part of the SDK, as the Vipaso SDK groups it (`tessera.user.customer…`).
public struct TesseraUser: Sendable {
    /// The client calls go through.
    public let client: TesseraClient
    /// Customer sign-up and sessions with completion handlers.
    public var customer: TesseraCustomer { TesseraCustomer(client: client) }
}

/// The completion-handler facade of the registration flow for apps migrating from the Vipaso SDK:
/// `startSignupFlow(request:) { result in … }`, `verifyPhoneNumber`, `finishSignupFlow`, over the
/// `async` methods of ``TesseraClient``. Each returns a ``TesseraCancellable``.
public struct TesseraCustomer: Sendable {
    /// The client calls go through.
    public let client: TesseraClient

    private static func map(_ error: any Error, sendStep: Bool) -> CustomerError {
        guard let error = error as? TesseraError else {
            return .network(TesseraError(code: .networkError, message: String(describing: error)))
        }
        if error.code == .networkError || error.code == .invalidResponse { return .network(error) }
        let otpCodes: Set<ErrorCode> = [.invalidPhoneNumber, .otpResendCooldown, .otpTargetRateLimited, .otpIPRateLimited, .otpClientRateLimited, .otpChannelUnavailable]
        if sendStep, otpCodes.contains(error.code) { return .signup(.otp(error)) }
        return .server(error)
    }

    private func run<T: Sendable>(
        sendStep: Bool = false, _ completion: @escaping @Sendable (Result<T, CustomerError>) -> Void,
        _ body: @escaping @Sendable () async throws -> T
    ) -> TesseraCancellable {
        TesseraCancellable(Task {
            let result: Result<T, CustomerError>
            do { result = .success(try await body()) } catch { result = .failure(Self.map(error, sendStep: sendStep)) }
            guard !Task.isCancelled else { return }
            completion(result)
        })
    }

    /// Starts the flow and sends the code (the seed's `startSignupFlow`); delivery problems are `.signup(.otp(…))`.
    @discardableResult
    public func startSignupFlow(
        request: StartSignupRequest, completion: @escaping @Sendable (Result<StartSignupResponse, CustomerError>) -> Void
    ) -> TesseraCancellable {
        run(sendStep: true, completion) { try await client.startSignupFlow(request: request) }
    }

    /// Verifies the phone (the seed's `verifyPhoneNumber`).
    @discardableResult
    public func verifyPhoneNumber(
        request: VerifyPhoneNumberRequest, completion: @escaping @Sendable (Result<VerifyPhoneNumberResponse, CustomerError>) -> Void
    ) -> TesseraCancellable {
        run(completion) { try await client.verifyPhoneNumber(request: request) }
    }

    /// Finishes the flow and registers the device key (the seed's `finishSignupFlow`).
    @discardableResult
    public func finishSignupFlow(
        request: FinishSignupRequest, completion: @escaping @Sendable (Result<FinishSignupResponse, CustomerError>) -> Void
    ) -> TesseraCancellable {
        run(completion) { try await client.finishSignupFlow(request: request) }
    }
}

extension TesseraClient {
    /// The Vipaso-shaped facade: `tessera.user.customer.startSignupFlow(request:) { result in … }`.
    public var user: TesseraUser { TesseraUser(client: self) }
}
