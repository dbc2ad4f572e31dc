import Foundation
import Testing
import TesseraTestSupport
@testable import TesseraServer

/// Mistakes on the command line, in the environment and in the `--config` file stop `tessera` with
/// a message naming them and a documented exit code, before anything is written; the admin commands
/// never create a deployment; the listings print JSON; `tessera node` prints its identity at once.
@Suite("CLI: mistakes, exit codes and output for scripts")
struct ConfigurationCLITests {
    /// A new empty directory to run the program in (so that a default `./.tessera` would land there).
    static func emptyDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cli-empty-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func contents(_ directory: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

    static func binary() throws -> URL { try #require(DeviceCLITests.binary, "build the tessera executable first (swift build --build-tests builds it)") }

    @Test("a mistyped flag stops serve and admin with exit 2 naming it, and nothing is created", arguments: [
        (["serve", "--prot", "9091"], "--prot"),
        (["serve", "--otp-code-lifetme", "60"], "--otp-code-lifetme"),
        (["serve", "--port", "0", "--smtp-hots=mail.example.com"], "--smtp-hots"),
        (["admin", "client", "list", "--data-dri", "./elsewhere"], "--data-dri"),
        (["admin", "node", "server-key", "--databse-url", "postgres://x"], "--databse-url"),
        (["admin", "client", "list", "stray"], "stray"),
        (["device", "sessions", "--devce-dir", "x"], "--devce-dir"),
    ])
    func mistypedFlag(arguments: [String], named: String) async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await DeviceCLITests.run(try Self.binary(), arguments, directory: directory, timeout: 60)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains(named), "\(result.output)")
        #expect(Self.contents(directory).isEmpty, "created: \(Self.contents(directory))")
    }

    @Test("--help and help print the usage with exit 0, for the root and for nested commands", arguments: [
        (["--help"], "USAGE: tessera <subcommand>"),
        (["admin", "--help"], "USAGE: tessera admin"),
        (["rp", "authenticate", "--help"], "USAGE: tessera rp authenticate"),
        (["help", "serve"], "USAGE: tessera serve"),
    ])
    func help(arguments: [String], usage: String) async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await DeviceCLITests.run(try Self.binary(), arguments, directory: directory, timeout: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(usage), "\(result.output)")
        #expect(Self.contents(directory).isEmpty, "created: \(Self.contents(directory))")
    }

    @Test("an unknown key in the --config file, an invalid value and an unknown TESSERA_ variable stop serve with exit 2 naming them")
    func configurationMistakes() async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cli-config-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let tessera = try Self.binary()
        let cases: [(arguments: [String], environment: [String: String], named: String, fileText: String?)] = [
            (["serve", "--config", file], [:], "otp.codeLifetme", #"{"otp": {"codeLifetme": 60}, "port": 0}"#),
            (["serve", "--config", file], [:], "nodes.quorom", #"{"nodes.quorom": 2}"#),
            (["serve", "--config", file], [:], "port", #"{"port": "eighty"}"#),
            (["serve", "--otp-code-lifetime", "abc"], [:], "--otp-code-lifetime", nil),
            (["serve", "--demo-client", "maybe"], [:], "--demo-client", nil),
            (["serve", "--smtp-port", "x"], [:], "--smtp-port", nil),
            (["serve", "--otp-code-lifetime", "5"], [:], "otp.codeLifetime", nil),
            (["serve"], ["TESSERA_OTP_MAX_ATTEMPTS": "many"], "TESSERA_OTP_MAX_ATTEMPTS", nil),
            (["serve"], ["TESSERA_PROT": "9091"], "TESSERA_PROT", nil),
            (["admin", "client", "list"], ["TESSERA_DATA_DRI": "x"], "TESSERA_DATA_DRI", nil),
        ]
        for item in cases {
            if let text = item.fileText { try Data(text.utf8).write(to: URL(fileURLWithPath: file)) }
            let result = try await DeviceCLITests.run(tessera, item.arguments, directory: directory, environment: item.environment, timeout: 60)
            #expect(result.status == 2, "\(item.arguments) \(item.environment): \(result.output)")
            #expect(result.output.contains(item.named), "\(item.arguments) \(item.environment): \(result.output)")
            #expect(!result.output.contains("USAGE"), "a configuration mistake is not shown as usage text: \(result.output)")
            #expect(Self.contents(directory).isEmpty, "created: \(Self.contents(directory))")
        }
    }

    @Test("TESSERA_TEST_ variables and the CLI's own TESSERA_ variables do not stop tessera")
    func testVariablesAllowed() async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await DeviceCLITests.run(
            try Self.binary(), ["admin", "client", "list", "--data-dir", directory + "/none"], directory: directory,
            environment: ["TESSERA_TEST_DATABASE_URL": "postgres://x", "TESSERA_DEVICE_PIN": "1234"]
        )
        #expect(result.status == 3, "gets as far as looking for the deployment: \(result.output)")
    }

    @Test("admin commands in a directory without a deployment exit 3 and create nothing", arguments: [
        ["admin", "client", "list"], ["admin", "client", "create", "--name", "x", "--bundle-id", "b"], ["admin", "node", "server-key"],
        ["admin", "token", "reset"],
    ])
    func adminWithoutDeployment(arguments: [String]) async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tessera = try Self.binary()
        let implicit = try await DeviceCLITests.run(tessera, arguments, directory: directory)
        #expect(implicit.status == 3, "\(implicit.output)")
        #expect(implicit.output.contains("no Tessera deployment"), "\(implicit.output)")
        #expect(!implicit.output.contains("USAGE"), "\(implicit.output)")
        let explicit = try await DeviceCLITests.run(tessera, arguments + ["--data-dir", directory + "/elsewhere"], directory: directory)
        #expect(explicit.status == 3, "\(explicit.output)")
        #expect(Self.contents(directory).isEmpty, "created: \(Self.contents(directory))")
    }

    @Test("serve on a port in use names the address, exits 3 and writes nothing")
    func portInUse() async throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (fd, port) = try Self.listeningSocket()
        defer { close(fd) }
        let result = try await DeviceCLITests.run(
            try Self.binary(), ["serve", "--port", "\(port)", "--data-dir", directory + "/data"], directory: directory, timeout: 60
        )
        #expect(result.status == 3, "\(result.output)")
        #expect(result.output.contains("127.0.0.1:\(port)"), "\(result.output)")
        #expect(Self.contents(directory).isEmpty, "created: \(Self.contents(directory))")
    }

    @Test("admin: a refusal exits 1 with its code; listings print JSON with ISO 8601 times")
    func refusalAndJSON() async throws {
        let tessera = try Self.binary()
        try await TestDeployment.serve { dataDir, admin, _ in
            let created = try await DeviceCLITests.run(tessera, ["admin", "client", "create", "--data-dir", dataDir, "--name", "J", "--bundle-id", "com.example.j"] + admin)
            #expect(created.status == 0, "\(created.output)")
            let refused = try await DeviceCLITests.run(tessera, ["admin", "client", "disable", "tck_missing", "--data-dir", dataDir] + admin)
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.output.contains("refused: code "), "\(refused.output)")
            for arguments in [["admin", "client", "list"], ["admin", "node", "list"]] {
                let listed = try await DeviceCLITests.run(tessera, arguments + ["--data-dir", dataDir, "--json"] + admin)
                #expect(listed.status == 0, "\(listed.output)")
                #expect((try? JSONSerialization.jsonObject(with: Data(listed.output.utf8))) is [Any], "\(arguments): \(listed.output)")
            }
            let outbox = try await DeviceCLITests.run(tessera, ["outbox", "--data-dir", dataDir, "--json"])
            #expect(outbox.status == 0, "\(outbox.output)")
            #expect((try? JSONSerialization.jsonObject(with: Data(outbox.output.utf8))) is [Any], "\(outbox.output)")
        }
    }

    @Test("tessera node prints its ID and public key at once, also when stdout is a file")
    func nodePrintsIdentityToFile() async throws {
        let tessera = try Self.binary()
        let dataDir = try await TestDeployment.create()
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let serverKey = try await DeviceCLITests.run(tessera, ["admin", "node", "server-key", "--data-dir", dataDir])
        #expect(serverKey.status == 0, "\(serverKey.output)")
        let nodeDir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-node-\(UUID().uuidString)").path
        let outputPath = nodeDir + ".out"
        defer {
            try? FileManager.default.removeItem(atPath: nodeDir)
            try? FileManager.default.removeItem(atPath: outputPath)
        }
        let process = try ChildProcess(
            tessera.path,
            [
                "node", "--data-dir", nodeDir, "--port", "\(try NodeQuorumEndToEndTests.freePort())", "--log-level", "error",
                "--server-key", serverKey.output.trimmingCharacters(in: .whitespacesAndNewlines),
            ],
            stdout: .file(outputPath), stderr: .null
        )
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var text = ""
        for _ in 0..<100 where !text.contains("public key:") {
            try await Task.sleep(for: .milliseconds(100))
            text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        }
        #expect(process.isRunning, "the node still runs")
        #expect(text.firstMatch(of: /node id:\s+\S+/) != nil, "\(text)")
        #expect(text.contains("public key:"), "\(text)")
    }

    /// A socket listening on a free loopback port, to be closed by the caller.
    static func listeningSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, listen(fd, 1) == 0 else {
            close(fd)
            throw ConfigurationError("cannot listen on a loopback port")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
