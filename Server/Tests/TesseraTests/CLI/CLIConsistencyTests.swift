import AsyncHTTPClient
import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraServer

#if canImport(Glibc)
import Glibc
#endif

/// `tessera` behaves like one program: every usage error in one format with a hint, each command's
/// `--help` offers only what it takes, `serve --help` lists the configuration flags, commands run in
/// the wrong place create nothing and say what to do, and `serve` says when it stops.
@Suite("CLI: one program")
struct CLIConsistencyTests {
    static func run(_ arguments: [String], directory: String, environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        try await DeviceCLITests.run(try ConfigurationCLITests.binary(), arguments, directory: directory, environment: environment, timeout: 60)
    }

    @Test("every usage error: exit 2, `error: …` with a did-you-mean hint, then the command's --help", arguments: [
        (["device", "login", "--pinn", "1234"], "unknown option '--pinn' (did you mean '--pin'?)", "tessera device login"),
        (["device", "signup", "--emial", "x"], "unknown option '--emial' (did you mean '--email'?)", "tessera device signup"),
        (["device", "logn"], "unknown command 'logn' for 'tessera device' (did you mean 'login'?)", "tessera device"),
        (["sevre"], "unknown command 'sevre' for 'tessera' (did you mean 'serve'?)", "tessera"),
        (["admin", "client", "lst"], "unknown command 'lst' for 'tessera admin client' (did you mean 'list'?)", "tessera admin client"),
        (["serve", "--prot", "9091"], "unknown option '--prot' (did you mean '--port'?)", "tessera serve"),
        (["serve", "--otp-code-lifetme", "60"], "unknown option '--otp-code-lifetme' (did you mean '--otp-code-lifetime'?)", "tessera serve"),
        (["admin", "client", "list", "--jsn"], "unknown option '--jsn' (did you mean '--json'?)", "tessera admin client list"),
        (["admin", "client", "list", "--admin-tokn", "x"], "unknown option '--admin-tokn' (did you mean '--admin-token'?)", "tessera admin client list"),
        (["device", "totp", "--at", "soon"], "the value 'soon' is invalid for '--at <at>'", "tessera device totp"),
        (["rp", "authenticate", "--client-key", "k", "--user-key", "u"], "give --client-secret or TESSERA_CLIENT_SECRET", "tessera rp authenticate"),
    ])
    func usageErrors(arguments: [String], message: String, command: String) async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(arguments, directory: directory)
        #expect(result.status == 2, "\(result.output)")
        let lines = result.output.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n")
        #expect(lines.first?.hasPrefix("error: \(message)") == true, "\(result.output)")
        #expect(lines.last == "(see '\(command) --help')", "\(result.output)")
        #expect(lines.count == 2, "one format, two lines: \(result.output)")
        #expect(ConfigurationCLITests.contents(directory).isEmpty, "created: \(ConfigurationCLITests.contents(directory))")
    }

    /// The long options a help text offers, but `--help` and `--version`.
    static func options(inHelp help: String) -> Set<String> {
        guard let start = help.range(of: "OPTIONS:") else { return [] }
        let section = help[start.upperBound...]
        return Set(section.matches(of: /(?:^|\s|,)(--[a-z][a-z0-9-]*)/).map { String($0.output.1) }).subtracting(["--help", "--version"])
    }

    @Test("each device command's --help offers only the options it takes", arguments: [
        ("signup", ["--device-dir", "--server", "--client-key", "--bundle-id", "--otp-from-outbox", "--pin", "--email", "--phone", "--user-key", "--name"]),
        ("recover", ["--device-dir", "--server", "--client-key", "--bundle-id", "--otp-from-outbox", "--pin", "--email", "--user-key", "--name"]),
        ("login", ["--device-dir", "--pin"]),
        ("approve", ["--device-dir", "--pin", "--wait", "--decline", "--number", "--push-listen"]),
        ("totp", ["--device-dir", "--at"]),
        ("show", ["--device-dir"]),
        ("flow-signup", [
            "--device-dir", "--server", "--client-key", "--bundle-id", "--otp-from-outbox", "--phone", "--email", "--first-name", "--last-name",
            "--password", "--no-password",
        ]),
        ("password-login", ["--device-dir", "--server", "--client-key", "--bundle-id", "--identifier", "--password"]),
        ("sessions", ["--device-dir", "--revoke", "--logout", "--json"]),
        ("register-authenticator", ["--device-dir", "--pin", "--type", "--secret", "--username", "--list", "--delete", "--json"]),
        ("push-token", ["--device-dir", "--platform", "--token"]),
    ])
    func deviceHelp(command: String, expected: [String]) async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(["device", command, "--help"], directory: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.options(inHelp: result.output) == Set(expected), "\(result.output)")
    }

    @Test("serve --help lists every configuration key's flag, each with what it sets")
    func serveHelp() async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(["serve", "--help"], directory: directory)
        #expect(result.status == 0, "\(result.output)")
        // Each flag's text: the rest of its line and the indented lines after it, up to the next option.
        var texts: [String: String] = [:]
        var current: String?
        for line in result.output.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("--"), let flag = trimmed.split(separator: " ").first.map(String.init) {
                current = flag
                texts[flag] = trimmed.split(separator: " ").dropFirst().filter { !$0.hasPrefix("<") }.joined(separator: " ")
            } else if let flag = current, line.hasPrefix("   "), !trimmed.isEmpty {
                texts[flag, default: ""] += " " + trimmed
            } else {
                current = nil
            }
        }
        for key in ConfigurationKeys.all {
            let flag = ConfigurationKeys.flag(for: key)
            let text = texts[flag]?.trimmingCharacters(in: .whitespaces) ?? ""
            #expect(!text.isEmpty, "serve --help does not list \(flag) (\(key)) with a text: \(texts[flag] ?? "missing")")
        }
        #expect(texts["--otp-code-lifetime"]?.contains("seconds a code can be verified (default 300)") == true, "\(result.output)")
        #expect(texts["--port"]?.isEmpty == false && texts["--data-dir"]?.isEmpty == false, "\(result.output)")
    }

    @Test("every admin command that calls the server lists --admin-token and --server in its --help", arguments: [
        ["admin", "client", "list"], ["admin", "user", "list"], ["admin", "client", "oidc", "set"], ["admin", "client", "oidc", "logo"],
        ["admin", "webhook", "list"], ["admin", "audit", "verify"], ["admin", "client", "app-attest"],
    ])
    func adminHelp(command: [String]) async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(command + ["--help"], directory: directory)
        #expect(result.status == 0, "\(result.output)")
        #expect(Self.options(inHelp: result.output).isSuperset(of: ["--admin-token", "--server"]), "\(result.output)")
    }

    @Test("device commands in a directory without a device create nothing and say there is none", arguments: [
        ["device", "show"], ["device", "totp"], ["device", "login", "--pin", "123456"], ["device", "sessions"], ["device", "approve", "--wait", "1"],
    ])
    func noDevice(arguments: [String]) async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(arguments, directory: directory)
        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("there is no device in ./.tessera-device"), "\(result.output)")
        #expect(ConfigurationCLITests.contents(directory).isEmpty, "created: \(ConfigurationCLITests.contents(directory))")
    }

    @Test("an admin command where there is no deployment says how to reach the running server")
    func adminElsewhere() async throws {
        let directory = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await Self.run(["admin", "client", "list"], directory: directory, environment: ["TESSERA_ADMIN_TOKEN": "tat_x"])
        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("no Tessera deployment"), "\(result.output)")
        #expect(result.output.contains("--server URL") && result.output.contains("--admin-token"), "\(result.output)")
        #expect(ConfigurationCLITests.contents(directory).isEmpty, "created: \(ConfigurationCLITests.contents(directory))")
    }

    @Test("serve logs the signal it stops on, then that it stopped", arguments: [SIGTERM, SIGINT])
    func shutdownLog(signal: Int32) async throws {
        let binary = try ConfigurationCLITests.binary()
        let base = try ConfigurationCLITests.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let port = try NodeQuorumEndToEndTests.freePort()
        let logPath = base + "/stderr.log"
        let server = try ChildProcess(
            binary.path, ["serve", "--port", "\(port)", "--data-dir", base + "/data", "--nodes-embedded", "0"],
            directory: base, stdout: .null, stderr: .file(logPath)
        )
        defer { server.signal(SIGKILL) }
        let up = await eventually {
            guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"), timeout: .seconds(5))
            else { return false }
            return response.status == .ok
        }
        try #require(up, "the server did not come up: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        server.signal(signal)
        let status = await server.exited()
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
        #expect(status == 0, "\(log)")
        let lines = log.components(separatedBy: "\n").filter { !$0.isEmpty }
        let shutting = lines.firstIndex { $0.contains("shutting down (\(name))") }
        let stopped = lines.lastIndex { $0.hasSuffix("stopped") || $0.contains(" stopped") }
        #expect(shutting != nil && stopped != nil && shutting! < stopped!, "\(log)")
        #expect(lines.last?.contains("stopped") == true, "\(log)")
    }
}
