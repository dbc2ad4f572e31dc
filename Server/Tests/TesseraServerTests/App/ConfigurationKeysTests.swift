import Configuration
import Foundation
import Testing
@testable import TesseraServer
import TesseraServerTestSupport

/// The one list of configuration keys matches what ``ServerConfiguration`` reads and what the README
/// documents, and the checks built on it refuse unknown flags, file keys, variables and bad values.
@Suite("Configuration keys")
struct ConfigurationKeysTests {
    /// Reads a configuration with every optional section switched on, so that every key is read.
    static func keysRead() throws -> Set<String> {
        let check = ConfigurationValueCheck()
        let values: [AbsoluteConfigKey: ConfigValue] = [
            AbsoluteConfigKey(["smtp", "host"]): .init(.string("mail.example.com"), isSecret: false),
            AbsoluteConfigKey(["smtp", "from"]): .init(.string("a@example.com"), isSecret: false),
            AbsoluteConfigKey(["sms", "url"]): .init(.string("https://sms.example.com"), isSecret: false),
            AbsoluteConfigKey(["sms", "from"]): .init(.string("Tessera"), isSecret: false),
        ]
        _ = try ServerConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values), accessReporter: check))
        try check.check()
        return check.keysRead
    }

    @Test("every key the reader reads is in the list, and every listed key is read")
    func listMatchesReader() throws {
        let read = try Self.keysRead()
        #expect(read.subtracting(ConfigurationKeys.all).sorted() == [], "read but not listed")
        #expect(Set(ConfigurationKeys.all).subtracting(read).sorted() == [], "listed but never read")
        #expect(Set(ConfigurationKeys.all).count == ConfigurationKeys.all.count, "no key twice")
    }

    @Test("the README's configuration reference names every key, and only those")
    func readmeMatchesList() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let start = try #require(text.range(of: "## Configuration reference"))
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let rows = section[..<end].split(separator: "\n").filter { $0.hasPrefix("| `") }
        var documented: Set<String> = []
        for row in rows {
            let firstColumn = row.split(separator: "|").first ?? ""
            for match in firstColumn.matches(of: /`([A-Za-z.]+)`/) { documented.insert(String(match.1)) }
        }
        #expect(Set(ConfigurationKeys.all).subtracting(documented).sorted() == [], "not in the README")
        #expect(documented.subtracting(ConfigurationKeys.all).sorted() == [], "in the README but not read")
    }

    @Test("flag and environment spelling is swift-configuration's")
    func spelling() throws {
        #expect(ConfigurationKeys.flag(for: "otp.perIpHourlyLimit") == "--otp-per-ip-hourly-limit")
        #expect(ConfigurationKeys.flag(for: "dataDir") == "--data-dir")
        #expect(ConfigurationKeys.environmentVariable(for: "otp.codeLifetime") == "TESSERA_OTP_CODE_LIFETIME")
        // Each spelling reaches the key through the real providers.
        for key in ConfigurationKeys.all {
            let flag = CommandLineArgumentsProvider(arguments: ["tessera", ConfigurationKeys.flag(for: key), "v"])
            #expect(ConfigReader(provider: flag).string(forKey: ConfigKey(key)) == "v", "\(key)")
            let environment = EnvironmentVariablesProvider(environmentVariables: [ConfigurationKeys.environmentVariable(for: key): "v"])
                .prefixKeys(with: "tessera")
            #expect(ConfigReader(provider: environment).string(forKey: ConfigKey(key)) == "v", "\(key)")
        }
    }

    @Test("unknown flags and stray values are refused by name; known ones pass")
    func arguments() throws {
        try ConfigurationKeys.checkArguments(["--otp-code-lifetime", "120", "--demo-client", "--smtp-host=mail.example.com", "--nodes-quorum", "-1"])
        for (arguments, named) in [(["--data-dri", "x"], "--data-dri"), (["--prot=9091"], "--prot"), (["stray"], "stray"), (["-x"], "-x")] {
            #expect { try ConfigurationKeys.checkArguments(arguments) } throws: { "\($0)".contains(named) }
        }
        #expect { try ConfigurationKeys.checkArguments(["--prot", "1"]) } throws: { "\($0)".contains("did you mean '--port'") }
    }

    @Test("unknown keys in the JSON file are refused by their dotted name")
    func file() throws {
        try ConfigurationKeys.checkFile(Data(#"{"otp": {"codeLifetime": 60}, "nodes.quorum": 2, "port": 1}"#.utf8), path: "c.json")
        #expect { try ConfigurationKeys.checkFile(Data(#"{"otp": {"codeLifetme": 60}}"#.utf8), path: "c.json") } throws: {
            "\($0)".contains("otp.codeLifetme") && "\($0)".contains("c.json")
        }
        #expect { try ConfigurationKeys.checkFile(Data(#"{"smtp": {"hots": "x"}}"#.utf8), path: "c.json") } throws: {
            "\($0)".contains("smtp.hots")
        }
        #expect(throws: ConfigurationError.self) { try ConfigurationKeys.checkFile(Data("[1]".utf8), path: "c.json") }
    }

    @Test("unknown TESSERA_ variables are refused; TESSERA_TEST_, the CLI's own and other variables are not")
    func environment() throws {
        try ConfigurationKeys.checkEnvironment([
            "PATH": "/bin", "TESSERA_TEST_DATABASE_URL": "postgres://x", "TESSERA_DEVICE_PIN": "1", "TESSERA_PORT": "1",
            "TESSERA_TEMPLATES_SIGNUP_SMS": "x",
        ])
        #expect { try ConfigurationKeys.checkEnvironment(["TESSERA_PROT": "1"]) } throws: { "\($0)".contains("TESSERA_PROT") }
    }

    @Test("a value that does not parse is reported with its flag, variable or file key instead of the default")
    func invalidValues() async throws {
        func problem(_ provider: some ConfigProvider) -> String? {
            let check = ConfigurationValueCheck()
            do {
                _ = try ServerConfiguration(reader: ConfigReader(provider: provider, accessReporter: check))
                try check.check()
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(CommandLineArgumentsProvider(arguments: ["tessera", "--otp-code-lifetime", "abc"]))?.contains("--otp-code-lifetime") == true)
        #expect(problem(CommandLineArgumentsProvider(arguments: ["tessera", "--demo-client", "maybe"]))?.contains("--demo-client") == true)
        #expect(problem(CommandLineArgumentsProvider(arguments: ["tessera", "--smtp-port", "x"]))?.contains("--smtp-port") == true)
        let environment = EnvironmentVariablesProvider(environmentVariables: ["TESSERA_PORT": "x"]).prefixKeys(with: "tessera")
        #expect(problem(environment)?.contains("TESSERA_PORT") == true)
        #expect(problem(CommandLineArgumentsProvider(arguments: ["tessera", "--otp-code-lifetime", "120"])) == nil)
    }
}
