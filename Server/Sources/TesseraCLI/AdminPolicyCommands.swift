import ArgumentParser
import Foundation
import TesseraCore

// TesseraCore does not depend on ArgumentParser, so this conformance can only ever be the CLI's.
extension AuthenticatorType: @retroactive ExpressibleByArgument {}

/// `tessera admin client policy`: show or change a client's policy (capability 7).
struct ClientPolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show a client's policy, or change the parts given (authenticators, PIN and password rules, devices, fallback)."
    )
    @Argument(help: "Client key.") var clientKey: String
    @Option(name: .customLong("allow"), help: "Allowed authenticator (repeat; replaces the list): \(AuthenticatorType.allCases.map(\.rawValue).joined(separator: ", ")).")
    var allow: [AuthenticatorType] = []
    @Option(help: "Fewest PIN digits.") var pinMinLength: Int?
    @Option(help: "Most PIN digits.") var pinMaxLength: Int?
    @Option(help: "Allow a PIN of one repeated digit (true/false).") var pinAllowRepeated: Bool?
    @Option(help: "Allow an ascending or descending PIN run (true/false).") var pinAllowSequential: Bool?
    @Option(help: "Fewest password characters.") var passwordMinLength: Int?
    @Option(help: "Most password characters.") var passwordMaxLength: Int?
    @Option(help: "Require a letter in passwords (true/false).") var passwordRequireLetter: Bool?
    @Option(help: "Require a digit in passwords (true/false).") var passwordRequireDigit: Bool?
    @Option(help: "Active devices per user; one more revokes the oldest.") var devicesPerUser: Int?
    @Option(help: "Allow the device passcode as biometric fallback (true/false).") var passcodeFallback: Bool?
    @Option(help: "Require a quorum of verifier nodes to verify each passkey sign-in (true/false).") var passkeyNodeVerification: Bool?
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var options: AdminOptions

    func run() async throws {
        let api = try await AdminAPI.connect(options)
        let path = "clients/\(pathComponent(clientKey))/policy"
        var policy = try await api.get(path, as: ClientPolicy.self)
        let before = policy
        if !allow.isEmpty { policy.allowedAuthenticators = allow }
        if let pinMinLength { policy.pin.minLength = pinMinLength }
        if let pinMaxLength { policy.pin.maxLength = pinMaxLength }
        if let pinAllowRepeated { policy.pin.allowRepeated = pinAllowRepeated }
        if let pinAllowSequential { policy.pin.allowSequential = pinAllowSequential }
        if let passwordMinLength { policy.password.minLength = passwordMinLength }
        if let passwordMaxLength { policy.password.maxLength = passwordMaxLength }
        if let passwordRequireLetter { policy.password.requireLetter = passwordRequireLetter }
        if let passwordRequireDigit { policy.password.requireDigit = passwordRequireDigit }
        if let devicesPerUser { policy.devicesPerUser = devicesPerUser }
        if let passcodeFallback { policy.allowDevicePasscodeFallback = passcodeFallback }
        if let passkeyNodeVerification { policy.passkeyNodeVerification = passkeyNodeVerification }
        if policy != before {
            if let problem = policy.problem { throw ValidationError(problem) }
            policy = try await api.send(.PUT, path, body: policy, as: ClientPolicy.self)
        }
        if json { printJSON(policy); return }
        print("authenticators:   \(policy.allowedAuthenticators.map(\.rawValue).joined(separator: ", "))")
        print("PIN:              \(policy.pin.minLength)–\(policy.pin.maxLength) digits, repeated \(policy.pin.allowRepeated ? "allowed" : "refused"), runs \(policy.pin.allowSequential ? "allowed" : "refused")")
        print("password:         \(policy.password.minLength)–\(policy.password.maxLength) characters\(policy.password.requireLetter ? ", a letter" : "")\(policy.password.requireDigit ? ", a digit" : "")")
        print("devices per user: \(policy.devicesPerUser)")
        print("passcode fallback: \(policy.allowDevicePasscodeFallback ? "allowed" : "refused")")
        print("passkeys:         \(policy.passkeyNodeVerification ? "verified by a quorum of verifier nodes" : "verified by the server")")
    }
}

/// `tessera admin session …`: a user's sessions.
struct SessionAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "session", abstract: "Sessions of users.", subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's sessions (never their tokens).")
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "User key (the identity id for flow sign-ups).") var userKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let list = try await AdminAPI.connect(options).get(
                "users/\(pathComponent(userKey))/sessions", query: ["clientKey": clientKey], as: SessionList.self
            )
            if json { printJSON(list); return }
            for session in list.sessions {
                print("\(session.id)  device \(session.deviceId ?? "-")  created \(isoTime(millis: session.createdAt))  last used \(isoTime(millis: session.lastUsedAt))  \(session.revokedAt.map { "revoked \(isoTime(millis: $0))" } ?? "live")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a session: its next call gets 401 and the SDK logs out.")
        @Argument(help: "Session id (ses_…).") var sessionId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.DELETE, "sessions/\(pathComponent(sessionId))")
            print("revoked \(sessionId)")
        }
    }
}

/// `tessera admin authenticator …`: a user's authenticators.
struct AuthenticatorAdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator", abstract: "Authenticators of users.", subcommands: [List.self, Delete.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's authenticators on active devices.")
        @Option(help: "Client key.") var clientKey: String
        @Option(help: "User key.") var userKey: String
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var options: AdminOptions

        func run() async throws {
            let list = try await AdminAPI.connect(options).get(
                "users/\(pathComponent(userKey))/authenticators", query: ["clientKey": clientKey], as: AuthenticatorList.self
            )
            if json { printJSON(list); return }
            for item in list.authenticators { print("\(item.id)  \(item.type.rawValue)  \(item.aaid)  device \(item.deviceId)") }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an authenticator.")
        @Argument(help: "Authenticator id (atr_…).") var authenticatorId: String
        @OptionGroup var options: AdminOptions
        func run() async throws {
            try await AdminAPI.connect(options).send(.DELETE, "authenticators/\(pathComponent(authenticatorId))")
            print("deleted \(authenticatorId)")
        }
    }
}
