import ArgumentParser
import Foundation
import Tessera
import TesseraCore

extension DeviceCommand {
    /// Reads a password from the option, `TESSERA_DEVICE_PASSWORD`, or the terminal.
    static func readPassword(_ given: String?, prompt: String = "Password: ") throws -> String {
        if let given = given ?? ProcessInfo.processInfo.environment["TESSERA_DEVICE_PASSWORD"] { return given }
        print(prompt, terminator: "")
        guard let typed = readLine(), !typed.isEmpty else { throw ValidationError("no password given") }
        return typed
    }

    struct FlowSignup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flow-signup",
            abstract: "Sign up through the registration flow: phone code, profile and optional password, then the device key."
        )
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var server: ConnectionOptions
        @OptionGroup var otp: OTPOptions
        @Option(help: "Phone number, E.164 (the code goes there).") var phone: String
        @Option(help: "E-mail address.") var email: String
        @Option(help: "First name.") var firstName: String
        @Option(help: "Last name.") var lastName: String
        @Option(help: "A password for password log-in (otherwise TESSERA_DEVICE_PASSWORD, or none with --no-password).") var password: String?
        @Flag(help: "Set no password.") var noPassword = false

        func run() async throws {
            let connection = try server.connection(device)
            let tessera = try device.client(connection)
            let password = noPassword ? nil : try DeviceCommand.readPassword(self.password, prompt: "Password for log-in: ")
            print("1. starting a registration flow and sending a code to \(phone)")
            let before = otp.outboxCount(to: phone)
            let flow = try await tessera.startSignupFlow(request: StartSignupRequest(phoneNumber: phone))
            print("   flow \(flow.flowID), expires in \(flow.expiresIn) s")
            let code = try await otp.readCode(to: phone, after: before)
            print("2. verifying the phone number")
            _ = try await tessera.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: flow.flowID, otp: code))
            print("3. finishing with the profile, then registering this device's key")
            let finished = try await tessera.finishSignupFlow(request: FinishSignupRequest(
                flowID: flow.flowID, password: password, email: email, firstName: firstName, lastName: lastName, phoneNumber: phone
            ))
            try device.save(connection)
            print("signed up: identity \(finished.identity.id), device \(finished.deviceId); logged in: \(tessera.isAuthenticated)")
        }
    }

    struct PasswordLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password-login", abstract: "Log in with e-mail or phone and password; registers a new device key."
        )
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var server: ConnectionOptions
        @Option(help: "E-mail address or phone number.") var identifier: String
        @Option(help: "The password (otherwise TESSERA_DEVICE_PASSWORD or asked).") var password: String?

        func run() async throws {
            let connection = try server.connection(device)
            let tessera = try device.client(connection)
            let identity = try await tessera.login(identifier: identifier, password: try DeviceCommand.readPassword(password))
            try device.save(connection)
            print("logged in as \(identity.id) on device \(try tessera.loadDeviceID() ?? "?")")
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sessions",
            abstract: "List this identity's sessions, revoke one (--revoke), or log out (--logout)."
        )
        @OptionGroup var device: DeviceDirectory
        @Option(help: "Revoke the session with this id.") var revoke: String?
        @Flag(help: "Log out: revoke this device's session and forget it.") var logout = false
        @Flag(help: "Print the sessions as JSON.") var json = false

        func run() async throws {
            let tessera = try device.signedUpClient(logging: !json)
            if logout {
                await tessera.logout()
                print("logged out")
                return
            }
            if let revoke {
                try await tessera.revokeSession(id: revoke)
                print("revoked \(revoke)")
            }
            guard tessera.isAuthenticated else { throw CLIFailure.local("not logged in (sign up or log in first)") }
            let sessions = try await tessera.sessions()
            if json { printJSON(sessions); return }
            for session in sessions {
                let state = session.revokedAt.map { "revoked \(isoTime(millis: $0))" } ?? "expires \(isoTime(millis: session.expiresAt))"
                print("\(session.current ? "*" : " ") \(session.id)  device \(session.deviceId ?? "-")  created \(isoTime(millis: session.createdAt))  last used \(isoTime(millis: session.lastUsedAt))  \(state)")
            }
        }
    }
}
