import Configuration
import Testing
import TesseraTestSupport
@testable import TesseraServer
import TesseraServerTestSupport

/// The flags and environment variables documented in the README reach the configuration.
@Suite("Configuration")
struct ConfigurationTests {
    @Test("documented command-line flags")
    func flags() throws {
        let arguments = [
            "tessera", "--port", "9001", "--host", "0.0.0.0", "--data-dir", "/tmp/x", "--otp-code-lifetime", "120",
            "--otp-max-attempts", "3", "--otp-resend-cooldown", "10", "--otp-per-target-hourly-limit", "7",
            "--otp-per-ip-hourly-limit", "77", "--otp-per-client-hourly-limit", "777", "--otp-dispose-token-lifetime", "900",
            "--http-body-limit", "2048", "--smtp-host", "mail.example.com", "--smtp-from", "a@example.com", "--smtp-security", "tls",
            "--courier-poll-interval-ms", "250", "--log-level", "debug",
        ]
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: arguments)))
        #expect(configuration.port == 9001 && configuration.host == "0.0.0.0" && configuration.dataDirectory == "/tmp/x")
        #expect(configuration.otp.codeLifetime == .seconds(120))
        #expect(configuration.otp.maxAttempts == 3)
        #expect(configuration.otp.resendCooldown == .seconds(10))
        #expect(configuration.otp.perTargetHourlyLimit == 7)
        #expect(configuration.otp.perIPHourlyLimit == 77)
        #expect(configuration.otp.perClientHourlyLimit == 777)
        #expect(configuration.otp.disposeTokenLifetime == .seconds(900))
        #expect(configuration.bodyLimit == 2048)
        #expect(configuration.emailDelivery == .smtp)
        #expect(configuration.smtp?.port == 465 && configuration.smtp?.security == .implicitTLS)
        #expect(configuration.courierPollInterval == .milliseconds(250))
        #expect(configuration.logLevel == .debug)
    }

    @Test("documented environment variables")
    func environment() throws {
        let environment = [
            "TESSERA_PORT": "9002", "TESSERA_OTP_PER_IP_HOURLY_LIMIT": "55", "TESSERA_OTP_CODE_LIFETIME": "60",
            "TESSERA_SMS_URL": "https://sms.example.com/send", "TESSERA_SMS_FROM": "Tessera", "TESSERA_MASTER_KEY": "k",
            "TESSERA_TEMPLATES_SIGNUP_SUBJECT": "Code {{code}}",
        ]
        let provider = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "tessera")
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: provider))
        #expect(configuration.port == 9002)
        #expect(configuration.otp.perIPHourlyLimit == 55)
        #expect(configuration.otp.codeLifetime == .seconds(60))
        #expect(configuration.smsDelivery == .http && configuration.sms?.url == "https://sms.example.com/send")
        #expect(configuration.masterKey == "k")
        #expect(configuration.templates.signup.subject == "Code {{code}}")
    }

    @Test("node and authentication settings from flags")
    func nodes() throws {
        let arguments = ["tessera", "--nodes-embedded", "0", "--nodes-timeout-ms", "500", "--nodes-quorum", "3", "--auth-issuer", "https://id.example.com"]
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: arguments)))
        #expect(configuration.embeddedNodes == 0 && configuration.nodeTimeout == .milliseconds(500) && configuration.nodeQuorum == 3)
        #expect(configuration.issuer == "https://id.example.com")
        #expect(ServerConfiguration().embeddedNodes == 3 && ServerConfiguration().nodeQuorum == 2)
    }

    @Test("production (a database URL or production = true): no embedded nodes by default, and nodes.embedded above 0 is refused naming it")
    func productionRefusesEmbeddedNodes() throws {
        func read(_ arguments: [String]) throws -> ServerConfiguration {
            try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + arguments)))
        }
        let development = try read(["--data-dir", "/srv/tessera/"])
        #expect(development.embeddedNodes == 3 && !development.production)
        #expect(development.embeddedNodesDirectory == "/srv/tessera-nodes")
        #expect(try read(["--nodes-embedded-directory", "/var/nodes"]).embeddedNodesDirectory == "/var/nodes")
        let postgres = try read(["--database-url", "postgres://u:p@db/tessera"])
        #expect(postgres.production && postgres.embeddedNodes == 0)
        #expect(try read(["--production", "true"]).embeddedNodes == 0)
        for arguments in [["--database-url", "postgres://u:p@db/tessera", "--nodes-embedded", "3"], ["--production", "true", "--nodes-embedded", "1"]] {
            let error = #expect(throws: ConfigurationError.self) { try read(arguments) }
            #expect(error?.description.contains("nodes.embedded must be 0 in production") == true, "\(arguments): \(String(describing: error))")
        }
    }

    @Test("flow, session and password settings from flags")
    func sessions() throws {
        let arguments = [
            "tessera", "--flows-lifetime", "600", "--sessions-lifetime", "86400", "--sessions-idle-timeout", "3600",
            "--passwords-max-failures", "3", "--passwords-lockout", "60", "--passwords-per-ip-hourly-limit", "9", "--passwords-scrypt-log-n", "16",
        ]
        let configuration = try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: arguments)))
        #expect(configuration.flowLifetime == .seconds(600) && configuration.sessionLifetime == .seconds(86400))
        #expect(configuration.sessionIdleTimeout == .seconds(3600) && configuration.passwordMaxFailures == 3)
        #expect(configuration.passwordLockout == .seconds(60) && configuration.passwordPerIPHourlyLimit == 9)
        #expect(configuration.passwordScryptLogN == 16 && ServerConfiguration().passwordScryptLogN == 15)
    }

    @Test("out-of-range values are refused with the key's name")
    func ranges() {
        for (flag, value) in [
            ("--otp-code-lifetime", "5"), ("--otp-max-attempts", "0"), ("--http-body-limit", "10"), ("--smtp-security", "ssl"),
            ("--nodes-quorum", "4"), ("--nodes-timeout-ms", "10"), ("--auth-channel-lifetime", "1"), ("--totp-max-failures", "0"),
            ("--passwords-scrypt-log-n", "8"), ("--sessions-idle-timeout", "1"), ("--passwords-max-failures", "0"),
        ] {
            var extra = [flag, value]
            if flag == "--smtp-security" { extra += ["--smtp-host", "h", "--smtp-from", "a@b.co"] }
            #expect(throws: ConfigurationError.self) {
                try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + extra)))
            }
        }
    }

    static func read(_ arguments: [String]) throws -> ServerConfiguration {
        try ServerConfiguration(reader: ConfigReader(provider: CommandLineArgumentsProvider(arguments: ["tessera"] + arguments)))
    }

    static func error(_ arguments: [String]) -> String? {
        do { _ = try read(arguments); return nil } catch { return "\(error)" }
    }

    @Test("trusted proxies and the forwarded header from flags and the environment; bad entries name the key")
    func trustedProxies() throws {
        #expect(ServerConfiguration().trustedProxies.isEmpty && ServerConfiguration().forwardedHeader == .xForwardedFor)
        let flags = try Self.read(["--http-trusted-proxies", "10.0.0.0/8", "::1", "--http-forwarded-header", "Forwarded"])
        #expect(flags.trustedProxies == [ClientAddressResolver.AddressRange("10.0.0.0/8"), ClientAddressResolver.AddressRange("::1")])
        #expect(flags.forwardedHeader == .forwarded)
        let environment = EnvironmentVariablesProvider(environmentVariables: ["TESSERA_HTTP_TRUSTED_PROXIES": "10.0.0.1,fd00::/8"])
            .prefixKeys(with: "tessera")
        #expect(try ServerConfiguration(reader: ConfigReader(provider: environment)).trustedProxies.count == 2)
        #expect(Self.error(["--http-trusted-proxies", "10.0.0.0/40"])?.contains("http.trustedProxies") == true)
        #expect(Self.error(["--http-trusted-proxies", "proxy.example.com"])?.contains("http.trustedProxies") == true)
        #expect(Self.error(["--http-forwarded-header", "x-real-ip"])?.contains("http.forwardedHeader") == true)
    }

    @Test("tls.certificate and tls.key: both or neither, readable PEM; nodes.caFile must be a PEM certificate")
    func tlsFiles() throws {
        let certificate = try TestCertificate()
        defer { certificate.remove() }
        #expect(ServerConfiguration().tls == nil && ServerConfiguration().nodeCAFile == nil)
        let both = try Self.read(["--tls-certificate", certificate.certificate, "--tls-key", certificate.key])
        #expect(both.tls == certificate.files)
        #expect(Self.error(["--tls-certificate", certificate.certificate])?.contains("tls.key is required") == true)
        #expect(Self.error(["--tls-key", certificate.key])?.contains("tls.certificate is required") == true)
        let missing = certificate.directory + "/missing.pem"
        #expect(Self.error(["--tls-certificate", missing, "--tls-key", certificate.key])?.contains("tls.certificate") == true)
        // The certificate is not a key.
        #expect(Self.error(["--tls-certificate", certificate.certificate, "--tls-key", certificate.certificate])?.contains("tls.key") == true)
        #expect(try Self.read(["--nodes-ca-file", certificate.certificate]).nodeCAFile == certificate.certificate)
        #expect(Self.error(["--nodes-ca-file", missing])?.contains("nodes.caFile") == true)
        #expect(Self.error(["--nodes-ca-file", certificate.key])?.contains("nodes.caFile") == true)
    }
}
