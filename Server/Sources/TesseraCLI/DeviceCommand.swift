import ArgumentParser
import Foundation
import Tessera
import TesseraAsyncHTTPClient
import TesseraCore

/// `tessera device …`: a real device on Linux, built only on the public SDK (file key store,
/// software PIN). State lives in `--device-dir`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Act as a device against any Tessera server (built on the public SDK).",
        subcommands: [
            Signup.self, Recover.self, Login.self, Approve.self, TOTPCode.self, Show.self, FlowSignup.self, PasswordLogin.self, Sessions.self,
            RegisterAuthenticator.self, PushToken.self,
        ]
    )

    struct Signup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "signup", abstract: "Sign up: OTP to the e-mail address, PIN, signed sign-up.")
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var server: ConnectionOptions
        @OptionGroup var otp: OTPOptions
        @OptionGroup var pin: PINOption
        @Option(help: "E-mail address (the OTP goes there).") var email: String
        @Option(help: "Phone number, E.164.") var phone: String
        @Option(help: "User ID.") var userKey: String
        @Option(help: "Your name.") var name: String

        func run() async throws {
            let connection = try server.connection(device)
            let tessera = try device.client(connection)
            print("1. checking that \(email) and \(userKey) are free")
            guard try await !tessera.checkDuplicateUserData(verifyData: email, verifyType: .email) else {
                throw CLIFailure(status: CLIFailure.refused, message: "refused: \(email) already has an account")
            }
            guard try await tessera.checkUserKeyAvailable(userKey: userKey) else {
                throw CLIFailure(status: CLIFailure.refused, message: "refused: user key \(userKey) is taken")
            }
            print("2. sending a code to \(email)")
            let before = otp.outboxCount(to: email.lowercased())
            let sent = try await tessera.requestSendOTPNumber(sendType: .email, sendTarget: email)
            let code = try await otp.readCode(to: sent.sendTarget, after: before)
            print("3. verifying the code")
            guard case .valid(let token) = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: sent.sendTarget, otpNumber: code) else {
                throw CLIFailure(status: CLIFailure.refused, message: "refused: the code does not match")
            }
            print("4. setting the PIN (local authentication)")
            let pin = try self.pin.readPIN(confirm: true)
            let verifier = self.pin.authenticator(pin: pin, in: device)
            try verifier.enroll(secret: pin)
            print("5. signing up with a new device key")
            let state = try await tessera.requestSignUp(userData: UserData(
                appVersion: "tessera-cli", token: "", email: email, phoneNumber: phone, userKey: userKey, name: name, authType: .pin,
                os: .linux, disposeToken: token, agreeGccs: true, agreePerson: true, agreeDevice: true
            ), localAuthenticator: verifier, reason: "Sign up")
            try device.save(connection)
            print("signed up: device \(state.deviceId), user \(state.userKey)")
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "recover", abstract: "Move an account to this device (the old device is revoked).")
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var server: ConnectionOptions
        @OptionGroup var otp: OTPOptions
        @OptionGroup var pin: PINOption
        @Option(help: "Registered e-mail address.") var email: String
        @Option(help: "User ID.") var userKey: String
        @Option(help: "Name as registered.") var name: String

        func run() async throws {
            let connection = try server.connection(device)
            let tessera = try device.client(connection)
            print("1. checking the identity and sending a recovery code to \(email)")
            let before = otp.outboxCount(to: email.lowercased())
            let last = try await tessera.requestSendOTPNumberForRegisterDevice(userKey: userKey, name: name, sendType: .email, sendTarget: email)
            print("  last local authentication: \(last?.rawValue ?? "unknown")")
            // The new device must authenticate as the account's devices did; this command knows only a PIN.
            if let last, last != .pin {
                throw CLIFailure(
                    status: CLIFailure.refused,
                    message: "refused: this account's devices use \(last.rawValue), and `tessera device` can only register a PIN device; recover it with the app"
                )
            }
            let code = try await otp.readCode(to: email.lowercased(), after: before)
            print("2. verifying the code")
            guard case .valid(let token) = try await tessera.verifyOTPNumber(sendType: .email, sendTarget: email, otpNumber: code) else { throw CLIFailure(status: CLIFailure.refused, message: "refused: the code does not match") }
            print("3. setting the PIN on this device")
            let pin = try self.pin.readPIN(confirm: true)
            let verifier = self.pin.authenticator(pin: pin, in: device)
            try verifier.enroll(secret: pin)
            print("4. registering this device")
            let state = try await tessera.requestRegisterDevice(existingUserData: ExistingUserData(
                appVersion: "tessera-cli", token: "", email: email, userKey: userKey, name: name, authType: .pin, os: .linux,
                disposeToken: token, otpType: .email
            ), localAuthenticator: verifier, reason: "Move account")
            try device.save(connection)
            print("recovered: device \(state.deviceId), user \(state.userKey); the previous device is revoked")
        }
    }

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Authenticate: node verification (each status printed as it happens), PIN, result token."
        )
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var pin: PINOption

        func run() async throws {
            let tessera = try device.signedUpClient()
            try await pin.authenticate(tessera, in: device, channel: nil)
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "approve",
            abstract: "Handle a relying party's pending request: show who asks, approve with the PIN, or decline. Polls, or waits for a push with --push-listen."
        )
        @OptionGroup var device: DeviceDirectory
        @OptionGroup var pin: PINOption
        @Option(help: "Seconds to wait for a request to arrive.") var wait = 30
        @Flag(help: "Decline instead of approving.") var decline = false
        @Option(help: "Number matching: the two digits the relying party shows the user (`tessera rp authenticate` prints them, the OpenID Connect sign-in page shows them); a wrong number ends the request.") var number: String?
        @Option(help: ArgumentHelp(
            "Wait for a push instead of polling: listen on 127.0.0.1:PORT (0: any free port) and register it as this device's UnifiedPush endpoint (the client's allowed prefixes must cover it).",
            valueName: "127.0.0.1:PORT"
        ))
        var pushListen: PushListenAddress?

        func run() async throws {
            let tessera = try device.signedUpClient()
            let request = if let pushListen { try await pushListen.waitForRequest(tessera, wait: wait) } else { try await poll(tessera) }
            print("request from \(request.connectIp.isEmpty ? "an unknown address" : request.connectIp) for \(request.userKey)")
            if !request.message.isEmpty { print("  “\(request.message)”") }
            if decline {
                try await tessera.declineAuthRequest(request)
                print("declined")
            } else {
                if let choices = request.numberChoices {
                    let shower = Self.numberShower(request)
                    print("number matching: \(shower) shows one of \(choices.joined(separator: ", "))")
                    guard number != nil else {
                        throw CLIFailure.local("this request asks for number matching: run again with --number and the number \(shower) shows")
                    }
                }
                try await pin.authenticate(tessera, in: device, channel: request, matchNumber: number)
            }
        }

        /// Who shows the number to match: the hosted OpenID Connect sign-in page (its requests say
        /// "Sign in to <client name>", OIDCService's wording), or else the relying party that asked
        /// (`tessera rp authenticate` prints the number).
        static func numberShower(_ request: AuthChannelResponse) -> String {
            request.message.hasPrefix("Sign in to ") ? "the sign-in page" : "the relying party"
        }

        /// Asks for pending requests every half second until one is there or `wait` has passed.
        private func poll(_ tessera: TesseraClient) async throws -> AuthChannelResponse {
            let deadline = Date().addingTimeInterval(TimeInterval(wait))
            var request: AuthChannelResponse?
            while request == nil {
                request = try await tessera.pendingAuthRequests().first
                if request == nil {
                    guard Date() < deadline else { throw CLIFailure.local("no pending request within \(wait) s") }
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            guard let request else { throw CLIFailure.local("no pending request within \(wait) s") }
            return request
        }
    }

    struct TOTPCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "totp", abstract: "Print the current TOTP code (offline).")
        @OptionGroup var device: DeviceDirectory
        @Option(help: "Unix time to compute the code for (default now).") var at: Int64?

        func run() async throws {
            try device.requireDevice()
            guard let state = try FileKeyStore(directory: device.directory).loadState(),
                  let totp = TOTP(base32Secret: state.totpSecret)
            else { throw CLIFailure.local("this device has not signed up (\(device.deviceDir))") }
            let date = at.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
            print(totp.code(at: date))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show this device's state (no secrets) and ask the server who it is.")
        @OptionGroup var device: DeviceDirectory

        func run() async throws {
            try device.requireDevice()
            let store = try FileKeyStore(directory: device.directory)
            guard let state = try store.loadState() else { throw CLIFailure.local("this device has not signed up (\(device.deviceDir))") }
            print("device id:   \(state.deviceId)")
            print("user key:    \(state.userKey)")
            print("local auth:  \(state.localAuthType.rawValue)")
            print("push token:  \(state.pushToken.isEmpty ? "(none)" : state.pushToken)")
            let tessera = try device.signedUpClient()
            print("session:     \(tessera.isAuthenticated ? "logged in" : "logged out")")
            do {
                let info = try await tessera.deviceInfo()
                print("server:      active (device \(info.deviceId) of \(info.userKey))")
            } catch let error as TesseraError where error.code != .networkError {
                print("server:      refused, code \(error.code.rawValue) \(error.code.name)")
                throw CLIFailure(error)
            }
        }
    }
}
