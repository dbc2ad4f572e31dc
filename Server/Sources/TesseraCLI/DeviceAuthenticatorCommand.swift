import ArgumentParser
import Foundation
import Tessera
import TesseraCore

extension DeviceCommand {
    /// A PIN and password enroller that takes the value given on the command line, or asks on the terminal.
    struct TerminalEnroller: PinEnroller, PasswordEnroller {
        let given: String?

        /// The secret given on the command line breaks the rules: asking again would not help.
        struct Refused: Error, CustomStringConvertible {
            var message: String
            var description: String { message }
        }

        func ask(_ what: String, rules: String, retry: RecoverableEnrollmentError?) throws -> String {
            if let retry, given != nil { throw Refused(message: retry.message) }
            if let retry { print("  refused: \(retry.message) (\(retry.remainingAttempts) tries left)") }
            if let given { return given }
            print("New \(what) (\(rules)): ", terminator: "")
            guard let typed = readLine(), !typed.isEmpty else { throw CancellationError() }
            return typed
        }

        func enrollPin(context: PinEnrollmentContext) async throws -> String {
            try ask("PIN", rules: "\(context.policy.minLength)–\(context.policy.maxLength) digits", retry: context.lastRecoverableError)
        }

        func enrollPassword(context: PasswordEnrollmentContext) async throws -> String {
            try ask("password", rules: "\(context.policy.minLength)+ characters", retry: context.lastRecoverableError)
        }
    }

    struct RegisterAuthenticator: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register-authenticator",
            abstract: "Register a PIN or password authenticator (its own key pair) under the client's policy; --list and --delete manage them."
        )
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var pin: PINOption
        @Option(help: "pin or password.") var type: String?
        @Option(help: "The secret to enrol (otherwise --pin, TESSERA_DEVICE_PIN / TESSERA_DEVICE_PASSWORD, or asked).") var secret: String?
        @Option(help: "The user to register for (default: the stored user key; the server refuses another user's, 7208).") var username: String?
        @Flag(help: "List this device's authenticators.") var list = false
        @Option(help: "Delete the authenticator with this id.") var delete: String?
        @Flag(help: "Print the list as JSON.") var json = false

        func run() async throws {
            let tessera = try device.signedUpClient(logging: !json)
            if let delete {
                try await tessera.deleteAuthenticator(id: delete)
                print("deleted \(delete)")
            }
            if let type {
                let kind: AuthenticatorType
                let fromEnvironment: String?
                switch type {
                case "pin":
                    kind = .pin
                    fromEnvironment = pin.given
                case "password":
                    kind = .password
                    fromEnvironment = ProcessInfo.processInfo.environment["TESSERA_DEVICE_PASSWORD"]
                default: throw ValidationError("--type must be pin or password")
                }
                let enroller = TerminalEnroller(given: secret ?? fromEnvironment)
                let name = try username ?? tessera.loadUserKey() ?? "user"
                do {
                    let registered = try await tessera.registration()
                        .username(name)
                        .authenticatorSelector(ClosureAuthenticatorSelector { context in
                            guard context.authenticators.contains(kind) else {
                                print("  this app allows: \(context.authenticators.map(\.rawValue).joined(separator: ", "))")
                                return nil
                            }
                            return kind
                        })
                        .pinEnroller(enroller)
                        .passwordEnroller(enroller)
                        .execute()
                    print("registered \(registered.type.rawValue) authenticator \(registered.id) (\(registered.aaid))")
                } catch {
                    if case .unknown(let refusal) = error {
                        // The secret given on the command line breaks the client's policy (checked on this device).
                        throw CLIFailure(status: CLIFailure.refused, message: "refused by the client's policy (checked on this device): \(refusal)")
                    }
                    throw CLIFailure(error)
                }
            }
            if list || (type == nil && delete == nil) {
                let items = try await tessera.listAuthenticators()
                if json { printJSON(items); return }
                for item in items {
                    print("\(item.id)  \(item.type.rawValue)  \(item.aaid)  registered \(isoTime(millis: item.createdAt))")
                }
            }
        }
    }
}
