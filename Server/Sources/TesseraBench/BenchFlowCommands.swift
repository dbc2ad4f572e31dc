import ArgumentParser
import Foundation
import Tessera
import TesseraCore

extension BenchCommand {
    /// `tessera-bench flow-signup`: registration-flow ceremonies (flow + phone code, code from the
    /// development outbox, verify, finish, device key) through the public SDK.
    struct FlowSignup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "flow-signup", abstract: "Registration-flow sign-ups per second (with --password, each also hashes a password)."
        )
        @OptionGroup var load: LoadOptions
        @Option(help: "Set this password on every identity (adds the scrypt cost); none by default.") var password: String?

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load, password = self.password
            let (results, start) = await measure(workers: load.concurrency, seconds: load.duration) { worker, index in
                let phone = "+47\(load.runNumber % 10)" + String(format: "%03d%07d", worker % 1000, index % 10_000_000)
                return (try? await benchFlowSignUp(
                    load.client(url), codes: codes, phone: phone, email: "\(load.prefix)-\(worker)-\(index)@flow.example.com", password: password
                )) != nil
            }
            printResult(results, concurrency: load.concurrency, since: start)
        }
    }

    /// `tessera-bench password-login`: password log-ins (scrypt verification, new session, new
    /// device key) by one identity per concurrent user, created first (not measured).
    struct PasswordLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "password-login", abstract: "Password log-ins per second, each registering a new device key."
        )
        @OptionGroup var load: LoadOptions

        func run() async throws {
            let url = try load.url(), codes = load.codes(), load = self.load
            let password = "bench-Passw0rd"
            let identities = try await withThrowingTaskGroup(of: String.self) { group in
                for worker in 0..<load.concurrency {
                    group.addTask {
                        let email = "\(load.prefix)-login-\(worker)@flow.example.com"
                        try await benchFlowSignUp(
                            load.client(url), codes: codes, phone: "+46\(load.runNumber % 10)" + String(format: "%03d0000000", worker),
                            email: email, password: password
                        )
                        return email
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let (results, start) = await measure(workers: identities.count, seconds: load.duration) { worker, _ in
                (try? await load.client(url).login(identifier: identities[worker], password: password)) != nil
            }
            printResult(results, concurrency: load.concurrency, since: start)
        }
    }
}

/// One registration flow through the SDK: start (code by SMS to the development outbox), verify, finish.
func benchFlowSignUp(_ client: TesseraClient, codes: OutboxTail, phone: String, email: String, password: String?) async throws {
    let flow = try await client.startSignupFlow(request: StartSignupRequest(phoneNumber: phone))
    let code = try await codes.code(for: phone)
    _ = try await client.verifyPhoneNumber(request: VerifyPhoneNumberRequest(flowID: flow.flowID, otp: code))
    try await client.finishSignupFlow(request: FinishSignupRequest(
        flowID: flow.flowID, password: password, email: email, firstName: "Bench", lastName: "Flow", phoneNumber: phone
    ))
}
