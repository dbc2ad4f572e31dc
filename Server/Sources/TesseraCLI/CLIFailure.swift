import ArgumentParser
import Foundation
import Tessera
import TesseraCore
import TesseraServer

/// What a command that failed while running prints and exits with (see ``CLIMain``).
struct CLIFailure: Error, CustomStringConvertible {
    static let refused: Int32 = 1
    static let usage: Int32 = 2
    static let local: Int32 = 3

    var status: Int32
    var message: String
    var description: String { message }

    /// A local failure (exit 3) with its message.
    static func local(_ message: String) -> CLIFailure { CLIFailure(status: local, message: "error: \(message)") }

    init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }

    /// A server's refusal (exit 1): its problem's code and detail, or the bare HTTP status.
    init(status httpStatus: Int, problem data: Data) {
        if let problem = try? JSONDecoder().decode(Problem.self, from: data) {
            self.init(status: Self.refused, message: Self.refusal(code: problem.errorCode, text: problem.detail ?? problem.title))
        } else {
            self.init(status: Self.refused, message: "refused: HTTP \(httpStatus)")
        }
    }

    /// Classifies any error a command threw.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self.init(status: failure.status, message: failure.message)
        case let exit as ExitCode:
            self.init(status: exit.rawValue, message: "")
        case is CleanExit:
            self.init(status: 0, message: "")
        case let error as ValidationError:
            self.init(status: Self.usage, message: UsageError.text(error.message))
        case let error as AppError:
            self.init(status: Self.refused, message: Self.refusal(code: error.code, text: error.detail ?? error.title))
        case let error as TesseraError:
            self.init(tessera: error)
        case let error as OperationError:
            switch error {
            case .server(let server): self.init(tessera: server)
            case .policyViolation(let code, let message): self.init(status: Self.refused, message: Self.refusal(code: code, text: message))
            case .authenticatorNotAllowed: self.init(status: Self.refused, message: Self.refusal(code: .authenticatorNotAllowed, text: error.message))
            case .unknown(let message): self.init(status: Self.local, message: "error: \(message)")
            default: self.init(status: Self.local, message: "error: \(error)")
            }
        case let error as LocalAuthError:
            self.init(status: Self.local, message: "error: \(Self.describe(error))")
        case let error as ConfigurationError:
            self.init(status: Self.local, message: "error: \(error.description)")
        case is CancellationError:
            self.init(status: Self.local, message: "error: cancelled")
        default:
            self.init(status: Self.local, message: "error: \(error)")
        }
    }

    private init(tessera error: TesseraError) {
        if error.code == .networkError {
            self.init(status: Self.local, message: "error: cannot reach the server: \(error.message)")
        } else {
            var text = error.problem?.detail ?? error.message
            if let remaining = error.problem?.remainingAttempts { text += " (\(remaining) tries left)" }
            self.init(status: Self.refused, message: Self.refusal(code: error.code, text: text))
        }
    }

    /// `refused: code 7103 sessionRevoked: <detail>`.
    static func refusal(code: ErrorCode, text: String) -> String { "refused: code \(code.rawValue) \(code.name): \(text)" }

    /// A local-authentication failure in words: a wrong PIN with the tries left, a lock-out with its end.
    static func describe(_ error: LocalAuthError) -> String {
        switch error.code {
        case .authFailed:
            let left = error.remainingAttempts.map { "; \($0) \($0 == 1 ? "try" : "tries") left before the PIN locks" } ?? ""
            return "wrong PIN or password\(left)"
        case .lockedOut:
            let until = error.retryAfter.map { " until \(isoTime($0))" } ?? ""
            return "too many wrong PINs or passwords: locked\(until)"
        case .notEnrolled: return "no PIN or password is set up on this device"
        case .userCancel: return "cancelled"
        default: return "local authentication failed: \(error.code.rawValue)"
        }
    }
}

/// A date in ISO 8601 (UTC, whole seconds), as the CLI prints every time.
func isoTime(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

/// A Unix time in milliseconds in ISO 8601.
func isoTime(millis: Int64) -> String { isoTime(Date(timeIntervalSince1970: TimeInterval(millis) / 1000)) }
