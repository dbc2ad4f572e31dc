import Configuration
import Foundation
import Logging
import NIOSSL

/// Everything `tessera serve` can be told, read from (highest first) command-line flags,
/// `TESSERA_*` environment variables and a JSON config file. Keys are listed in the README's
/// configuration reference; every value has a default that makes a development deployment.
public struct ServerConfiguration: Sendable {
    public var dataDirectory = "./.tessera"
    public var host = "127.0.0.1"
    public var port = 8080
    /// `postgres://…`; nil means SQLite in the data directory.
    public var databaseURL: String?
    /// Base64 32-byte key sealing the server's secrets; nil means `<dataDir>/master.key`.
    public var masterKey: String?
    /// A fixed admin token; nil means one is generated at first start and printed once.
    public var adminToken: String?
    /// Create a demo client at first start.
    public var createDemoClient = true
    public var bodyLimit = 64 * 1024
    /// Reverse proxies whose forwarding header names the client (`http.trustedProxies`: IPs and CIDR
    /// ranges). Empty: the socket peer is the client and forwarding headers are ignored.
    public var trustedProxies: [ClientAddressResolver.AddressRange] = []
    /// The header the trusted proxies set (`http.forwardedHeader`).
    public var forwardedHeader: ClientAddressResolver.Header = .xForwardedFor
    /// Certificate and key to serve HTTPS with (`tls.certificate`, `tls.key`); nil: plain HTTP.
    public var tls: TLSFiles?
    /// Extra trusted CA or self-signed certificate (PEM) for nodes registered with https URLs (`nodes.caFile`).
    public var nodeCAFile: String?
    /// Extra trusted CA or self-signed certificate (PEM) for the push providers' hosts (`push.caFile`; tests and proxies).
    public var pushCAFile: String?
    /// Extra trusted CA or self-signed certificate (PEM) for webhook receivers, back-channel logout and CIBA
    /// notification endpoints (`webhooks.caFile`; tests and private CAs).
    public var webhooksCAFile: String?
    /// Active devices a user may have; registering one more revokes the oldest.
    public var maxDevicesPerUser = 1
    /// Re-registration identity checks per IP address and per user key per hour.
    public var identityChecksPerHour = 20
    public var otp = OTPSettings()
    public var templates = MessageTemplates()
    public enum EmailDelivery: String, Sendable { case file, smtp }
    public enum SMSDelivery: String, Sendable { case file, http, none }
    public var emailDelivery: EmailDelivery = .file
    public var smsDelivery: SMSDelivery = .file
    var smtp: SMTPSettings?
    public var sms: HTTPSMSSender.Settings?
    public var courierPollInterval: Duration = .seconds(1)
    public var logLevel: Logger.Level = .info
    /// How `tessera serve` writes log lines (`log.format`: `text`, or `json`: one JSON object a line).
    public var logFormat: LogFormat = .text
    /// Where `/metrics` is served (`metrics.listen`, `host:port`); nil (the default): no metrics listener.
    public var metricsListen: MetricsListen?
    /// The bearer token `/metrics` asks for (`metrics.token`); nil: none (only allowed on a loopback address).
    public var metricsToken: String?
    /// The `iss` of result tokens (default `http(s)://<host>:<port>`).
    public var issuer: String?
    /// The polling interval a CIBA client is given (`ciba.interval`, seconds; `slow_down` adds 5).
    public var cibaInterval: Duration = .seconds(5)
    /// A FIDO Metadata Service BLOB the operator downloaded (`passkeys.metadataBlob`), verified at start.
    public var passkeyMetadataBlob: String?
    /// The root the BLOB's chain must lead to (`passkeys.metadataRoot`, PEM); nil: the FIDO root (GlobalSign Root CA – R3).
    public var passkeyMetadataRoot: String?
    /// A PEM file of the roots App Attest attestations must chain to instead of Apple's App Attestation Root CA
    /// (`appAttest.roots`): for tests, which mint attestations under a root of their own; refused in production.
    public var appAttestRoots: String?
    /// App Attest enrolment challenges (`POST /v1/app-attest/challenge`, no device yet) per address and hour, all
    /// clients together (`appAttest.perIpHourlyLimit`, default 300).
    public var appAttestPerIPHourlyLimit = 300
    /// Verifier nodes started with this server as `tessera node` child processes on loopback
    /// (`nodes.embedded`; default 3 for development, 0 in production, where they are refused).
    public var embeddedNodes = 3
    /// Where the embedded nodes keep their keys and registries, one `embedded-N` directory each
    /// (`nodes.embeddedDirectory`; nil: ``embeddedNodesDirectory`` is `<dataDir>-nodes`).
    public var embeddedNodesDirectoryOverride: String?
    /// A production deployment (`production`, or implied by a database URL): embedded nodes are refused.
    public var production = false
    /// Nodes asked per authentication.
    public var nodesPerAuthentication = 3
    /// Attestations needed.
    public var nodeQuorum = 2
    /// How long the server waits for one node.
    public var nodeTimeout: Duration = .milliseconds(2000)
    /// How long a login's first round of nodes (as many as the quorum needs) may take before the
    /// other selected nodes are asked too (`nodes.spareAfterMs`; nil, from 0: every selected node at once).
    public var nodeSpareAfter: Duration? = .milliseconds(100)
    /// Lifetime of an authentication channel.
    public var channelLifetime: Duration = .seconds(120)
    /// Lifetime of a result token.
    public var resultTokenLifetime: Duration = .seconds(300)
    /// Failed TOTP verifications before a user is locked.
    public var totpMaxFailures = 10
    /// Lifetime of a registration flow.
    public var flowLifetime: Duration = .seconds(900)
    /// Registration flows started per IP address per hour.
    public var flowPerIPHourlyLimit = 100
    /// Absolute lifetime of a session.
    public var sessionLifetime: Duration = .seconds(30 * 86400)
    /// A session not used for this long expires.
    public var sessionIdleTimeout: Duration = .seconds(7 * 86400)
    /// A session without a device key expires after this long.
    public var sessionPendingLifetime: Duration = .seconds(900)
    /// Wrong passwords in a row before an identity's password log-in is locked.
    public var passwordMaxFailures = 5
    /// How long a password lock lasts.
    public var passwordLockout: Duration = .seconds(900)
    /// Password log-ins per IP address per hour.
    public var passwordPerIPHourlyLimit = 100
    /// scrypt cost (log2 N) for identity passwords; r = 8, p = 1.
    public var passwordScryptLogN = 15
    /// How often a signed checkpoint of the audit log is written (`audit.checkpointInterval`, seconds).
    public var auditCheckpointInterval: Duration = .seconds(300)
    /// A file each audit checkpoint is also appended to, outside the database (`audit.checkpointFile`); nil: none.
    public var auditCheckpointFile: String?
    /// How often the webhook worker looks for due deliveries (`webhooks.pollIntervalMs`).
    public var webhooksPollInterval: Duration = .seconds(1)
    /// How long one webhook POST may take (`webhooks.timeoutMs`).
    public var webhooksTimeout: Duration = .seconds(10)
    /// How long an instance keeps each client's webhook endpoints before reading them again
    /// (`webhooks.endpointCacheMs`; its own changes clear them at once, another instance's arrive within it).
    public var webhooksEndpointCache: Duration = .seconds(1)
    /// Allows plain-http webhook URLs to any host in production (`webhooks.allowHttp`; loopback is always allowed).
    public var webhooksAllowHttp = false

    public init() {}

    /// How the client address of a request is found (see ``ClientAddressResolver``).
    public var clientAddressResolver: ClientAddressResolver { ClientAddressResolver(trustedProxies: trustedProxies, header: forwardedHeader) }

    /// The TLS client settings for nodes registered with https URLs: the system's roots plus
    /// `nodes.caFile`; nil (AsyncHTTPClient's default) without that file.
    var nodeTLSConfiguration: TLSConfiguration? {
        guard let nodeCAFile else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(nodeCAFile)]
        return tls
    }

    /// The path of the SQLite file.
    public var sqlitePath: String { (dataDirectory as NSString).appendingPathComponent("tessera.sqlite") }
    /// The embedded nodes' directory: `nodes.embeddedDirectory`, else a sibling of the data directory
    /// (`<dataDir>-nodes`), so the server's data directory never holds a node key.
    public var embeddedNodesDirectory: String {
        if let embeddedNodesDirectoryOverride { return embeddedNodesDirectoryOverride }
        var directory = dataDirectory
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        return directory + "-nodes"
    }
    /// The path of the development file outbox.
    public var fileOutboxPath: String { (dataDirectory as NSString).appendingPathComponent("outbox.jsonl") }

    /// Reads the configuration. Unknown values fail with a message naming the key.
    public init(reader config: ConfigReader) throws {
        dataDirectory = config.string(forKey: "dataDir", default: dataDirectory)
        host = config.string(forKey: "host", default: host)
        port = config.int(forKey: "port", default: port)
        databaseURL = config.string(forKey: "databaseUrl", isSecret: true)
        masterKey = config.string(forKey: "masterKey", isSecret: true)
        adminToken = config.string(forKey: "adminToken", isSecret: true)
        createDemoClient = config.bool(forKey: "demoClient", default: createDemoClient)
        bodyLimit = config.int(forKey: "http.bodyLimit", default: bodyLimit)
        guard (1024...(16 << 20)).contains(bodyLimit) else { throw ConfigurationError("http.bodyLimit must be 1 KiB – 16 MiB") }
        for entry in config.stringArray(forKey: "http.trustedProxies", default: []) {
            guard let range = ClientAddressResolver.AddressRange(entry) else {
                throw ConfigurationError("http.trustedProxies: \(entry) is not an IP address or CIDR range")
            }
            trustedProxies.append(range)
        }
        guard let header = ClientAddressResolver.Header(rawValue: config.string(forKey: "http.forwardedHeader", default: forwardedHeader.rawValue).lowercased())
        else { throw ConfigurationError("http.forwardedHeader must be x-forwarded-for or forwarded") }
        forwardedHeader = header
        tls = try TLSFiles.optional(certificate: config.string(forKey: "tls.certificate"), key: config.string(forKey: "tls.key"))
        if let file = config.string(forKey: "nodes.caFile") {
            guard let certificates = try? NIOSSLCertificate.fromPEMFile(file), !certificates.isEmpty else {
                throw ConfigurationError("nodes.caFile: no PEM certificate could be read from \(file)")
            }
            nodeCAFile = file
        }
        if let file = config.string(forKey: "push.caFile") {
            guard let certificates = try? NIOSSLCertificate.fromPEMFile(file), !certificates.isEmpty else {
                throw ConfigurationError("push.caFile: no PEM certificate could be read from \(file)")
            }
            pushCAFile = file
        }
        if let file = config.string(forKey: "webhooks.caFile") {
            guard let certificates = try? NIOSSLCertificate.fromPEMFile(file), !certificates.isEmpty else {
                throw ConfigurationError("webhooks.caFile: no PEM certificate could be read from \(file)")
            }
            webhooksCAFile = file
        }
        if let level = config.string(forKey: "log.level") {
            guard let parsed = Logger.Level(rawValue: level) else { throw ConfigurationError("log.level must be one of trace, debug, info, notice, warning, error, critical") }
            logLevel = parsed
        }
        guard let format = LogFormat(rawValue: config.string(forKey: "log.format", default: logFormat.rawValue)) else {
            throw ConfigurationError("log.format must be text or json")
        }
        logFormat = format
        metricsToken = config.string(forKey: "metrics.token", isSecret: true)
        if let listen = config.string(forKey: "metrics.listen") {
            guard let parsed = MetricsListen(listen) else {
                throw ConfigurationError("metrics.listen must be host:port (for example 127.0.0.1:9464), not \(listen)")
            }
            if metricsToken?.isEmpty ?? true, !parsed.isLoopback {
                throw ConfigurationError("metrics.listen on \(parsed.host), not a loopback address, needs metrics.token")
            }
            metricsListen = parsed
        } else if metricsToken != nil {
            throw ConfigurationError("metrics.token needs metrics.listen (the metrics listener is off without it)")
        }

        func seconds(_ key: String, _ current: Duration, range: ClosedRange<Int>) throws -> Duration {
            guard let value = config.int(forKey: ConfigKey(key)) else { return current }
            guard range.contains(value) else { throw ConfigurationError("\(key) must be within \(range.lowerBound)…\(range.upperBound) seconds") }
            return .seconds(value)
        }
        func count(_ key: String, _ current: Int, range: ClosedRange<Int>) throws -> Int {
            guard let value = config.int(forKey: ConfigKey(key)) else { return current }
            guard range.contains(value) else { throw ConfigurationError("\(key) must be within \(range.lowerBound)…\(range.upperBound)") }
            return value
        }
        otp.codeLifetime = try seconds("otp.codeLifetime", otp.codeLifetime, range: 30...3600)
        otp.resendCooldown = try seconds("otp.resendCooldown", otp.resendCooldown, range: 0...3600)
        otp.disposeTokenLifetime = try seconds("otp.disposeTokenLifetime", otp.disposeTokenLifetime, range: 30...86400)
        otp.maxAttempts = try count("otp.maxAttempts", otp.maxAttempts, range: 1...20)
        otp.perTargetHourlyLimit = try count("otp.perTargetHourlyLimit", otp.perTargetHourlyLimit, range: 1...1_000_000_000)
        otp.perIPHourlyLimit = try count("otp.perIpHourlyLimit", otp.perIPHourlyLimit, range: 1...1_000_000_000)
        otp.perClientHourlyLimit = try count("otp.perClientHourlyLimit", otp.perClientHourlyLimit, range: 1...1_000_000_000)

        for (purpose, keyPath) in [("signup", \MessageTemplates.signup), ("recovery", \MessageTemplates.recovery)] {
            if let value = config.string(forKey: ConfigKey("templates.\(purpose).subject")) { templates[keyPath: keyPath].subject = value }
            if let value = config.string(forKey: ConfigKey("templates.\(purpose).body")) { templates[keyPath: keyPath].body = value }
            if let value = config.string(forKey: ConfigKey("templates.\(purpose).sms")) { templates[keyPath: keyPath].sms = value }
        }

        // Every smtp.* and sms.* key is read even without smtp.host / sms.url, so that a wrong value
        // is reported (ConfigurationValueCheck) rather than ignored.
        let smtpSecurity = config.string(forKey: "smtp.security", default: "starttls")
        let smtpPort = config.int(forKey: "smtp.port")
        let smtpFrom = config.string(forKey: "smtp.from")
        let smtpUsername = config.string(forKey: "smtp.username")
        let smtpPassword = config.string(forKey: "smtp.password", isSecret: true)
        let smtpCAFile = config.string(forKey: "smtp.caFile")
        if let smtpHost = config.string(forKey: "smtp.host") {
            guard let parsedSecurity = SMTPSettings.Security(rawValue: smtpSecurity) else {
                throw ConfigurationError("smtp.security must be none, starttls or tls")
            }
            guard let from = smtpFrom else { throw ConfigurationError("smtp.from is required with smtp.host") }
            smtp = SMTPSettings(
                host: smtpHost, port: smtpPort ?? (parsedSecurity == .implicitTLS ? 465 : 587),
                security: parsedSecurity, username: smtpUsername, password: smtpPassword, from: from, trustedCAFile: smtpCAFile
            )
        }
        let emailDefault = smtp == nil ? "file" : "smtp"
        guard let email = EmailDelivery(rawValue: config.string(forKey: "courier.email", default: emailDefault)) else {
            throw ConfigurationError("courier.email must be file or smtp")
        }
        if email == .smtp && smtp == nil { throw ConfigurationError("courier.email=smtp needs smtp.host and smtp.from") }
        emailDelivery = email

        let smsFrom = config.string(forKey: "sms.from")
        let smsUsername = config.string(forKey: "sms.username")
        let smsPassword = config.string(forKey: "sms.password", isSecret: true)
        if let url = config.string(forKey: "sms.url") {
            guard let from = smsFrom else { throw ConfigurationError("sms.from is required with sms.url") }
            sms = HTTPSMSSender.Settings(url: url, from: from, username: smsUsername, password: smsPassword)
        }
        guard let smsMode = SMSDelivery(rawValue: config.string(forKey: "courier.sms", default: sms == nil ? "file" : "http")) else {
            throw ConfigurationError("courier.sms must be file, http or none")
        }
        if smsMode == .http && sms == nil { throw ConfigurationError("courier.sms=http needs sms.url and sms.from") }
        smsDelivery = smsMode
        courierPollInterval = .milliseconds(try count("courier.pollIntervalMs", 1000, range: 50...60000))
        maxDevicesPerUser = try count("devices.maxPerUser", maxDevicesPerUser, range: 1...100)
        identityChecksPerHour = try count("devices.identityChecksPerHour", identityChecksPerHour, range: 1...1_000_000)
        issuer = config.string(forKey: "auth.issuer")
        cibaInterval = try seconds("ciba.interval", cibaInterval, range: 1...60)
        passkeyMetadataBlob = config.string(forKey: "passkeys.metadataBlob")
        passkeyMetadataRoot = config.string(forKey: "passkeys.metadataRoot")
        if passkeyMetadataRoot != nil, passkeyMetadataBlob == nil {
            throw ConfigurationError("passkeys.metadataRoot is given without passkeys.metadataBlob: it is the root of that BLOB's chain")
        }
        production = config.bool(forKey: "production", default: false) || databaseURL != nil
        appAttestRoots = config.string(forKey: "appAttest.roots")
        appAttestPerIPHourlyLimit = try count("appAttest.perIpHourlyLimit", appAttestPerIPHourlyLimit, range: 1...1_000_000_000)
        if production, appAttestRoots != nil {
            throw ConfigurationError("appAttest.roots replaces Apple's App Attestation Root CA, for tests only: it is refused in production")
        }
        embeddedNodes = try count("nodes.embedded", production ? 0 : embeddedNodes, range: 0...9)
        if production, embeddedNodes > 0 {
            let reason = databaseURL != nil ? "a database URL (databaseUrl) makes this a production deployment" : "production is set"
            throw ConfigurationError(
                "nodes.embedded must be 0 in production (\(reason)): embedded verifier nodes run beside the server on one machine, so one host holds every key a quorum needs. Run `tessera node` processes on other machines and register them with `tessera admin node add`"
            )
        }
        embeddedNodesDirectoryOverride = config.string(forKey: "nodes.embeddedDirectory")
        nodesPerAuthentication = try count("nodes.perAuthentication", nodesPerAuthentication, range: 1...15)
        nodeQuorum = try count("nodes.quorum", nodeQuorum, range: 1...15)
        guard nodeQuorum <= nodesPerAuthentication else { throw ConfigurationError("nodes.quorum must not exceed nodes.perAuthentication") }
        nodeTimeout = .milliseconds(try count("nodes.timeoutMs", 2000, range: 50...60000))
        let spareAfter = try count("nodes.spareAfterMs", 100, range: 0...60000)
        nodeSpareAfter = spareAfter == 0 ? nil : .milliseconds(spareAfter)
        channelLifetime = try seconds("auth.channelLifetime", channelLifetime, range: 10...3600)
        resultTokenLifetime = try seconds("auth.resultTokenLifetime", resultTokenLifetime, range: 30...86400)
        totpMaxFailures = try count("totp.maxFailures", totpMaxFailures, range: 1...1000)
        flowLifetime = try seconds("flows.lifetime", flowLifetime, range: 60...86400)
        flowPerIPHourlyLimit = try count("flows.perIpHourlyLimit", flowPerIPHourlyLimit, range: 1...1_000_000)
        sessionLifetime = try seconds("sessions.lifetime", sessionLifetime, range: 60...(365 * 86400))
        sessionIdleTimeout = try seconds("sessions.idleTimeout", sessionIdleTimeout, range: 60...(365 * 86400))
        sessionPendingLifetime = try seconds("sessions.pendingLifetime", sessionPendingLifetime, range: 60...86400)
        passwordMaxFailures = try count("passwords.maxFailures", passwordMaxFailures, range: 1...100)
        passwordLockout = try seconds("passwords.lockout", passwordLockout, range: 1...86400)
        passwordPerIPHourlyLimit = try count("passwords.perIpHourlyLimit", passwordPerIPHourlyLimit, range: 1...1_000_000)
        passwordScryptLogN = try count("passwords.scryptLogN", passwordScryptLogN, range: 10...20)
        auditCheckpointInterval = try seconds("audit.checkpointInterval", auditCheckpointInterval, range: 10...86400)
        auditCheckpointFile = config.string(forKey: "audit.checkpointFile")
        webhooksPollInterval = .milliseconds(try count("webhooks.pollIntervalMs", 1000, range: 50...60000))
        webhooksTimeout = .milliseconds(try count("webhooks.timeoutMs", 10000, range: 100...60000))
        webhooksEndpointCache = .milliseconds(try count("webhooks.endpointCacheMs", 1000, range: 0...60000))
        webhooksAllowHttp = config.bool(forKey: "webhooks.allowHttp", default: false)
    }
}
