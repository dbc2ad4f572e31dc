import Foundation

/// The one list of configuration keys ``ServerConfiguration`` reads, and the checks that refuse
/// anything else: an unknown `--flag`, an unknown key in the `--config` file, an unknown `TESSERA_…`
/// environment variable. The README's configuration reference lists the same keys (a test checks
/// that every key the reader reads is here). To add a key: read it in ``ServerConfiguration``,
/// add it to ``all`` and to the README.
public enum ConfigurationKeys {
    /// Every key, in the dotted spelling of the JSON file (`otp.codeLifetime`).
    public static let all: [String] = [
        "dataDir", "host", "port", "databaseUrl", "masterKey", "adminToken", "demoClient",
        "http.bodyLimit", "http.trustedProxies", "http.forwardedHeader", "tls.certificate", "tls.key", "log.level",
        "otp.codeLifetime", "otp.resendCooldown", "otp.disposeTokenLifetime", "otp.maxAttempts", "otp.perTargetHourlyLimit",
        "otp.perIpHourlyLimit", "otp.perClientHourlyLimit",
        "templates.signup.subject", "templates.signup.body", "templates.signup.sms",
        "templates.recovery.subject", "templates.recovery.body", "templates.recovery.sms",
        "smtp.host", "smtp.port", "smtp.security", "smtp.username", "smtp.password", "smtp.from", "smtp.caFile",
        "sms.url", "sms.from", "sms.username", "sms.password",
        "courier.email", "courier.sms", "courier.pollIntervalMs",
        "devices.maxPerUser", "devices.identityChecksPerHour",
        "auth.issuer", "auth.channelLifetime", "auth.resultTokenLifetime", "passkeys.metadataBlob", "passkeys.metadataRoot", "appAttest.roots", "appAttest.perIpHourlyLimit", "ciba.interval",
        "production", "nodes.embedded", "nodes.embeddedDirectory", "nodes.perAuthentication", "nodes.quorum", "nodes.timeoutMs", "nodes.spareAfterMs", "nodes.caFile",
        "totp.maxFailures",
        "flows.lifetime", "flows.perIpHourlyLimit",
        "sessions.lifetime", "sessions.idleTimeout", "sessions.pendingLifetime",
        "passwords.maxFailures", "passwords.lockout", "passwords.perIpHourlyLimit", "passwords.scryptLogN",
        "push.caFile",
        "audit.checkpointInterval", "audit.checkpointFile",
        "metrics.listen", "metrics.token", "log.format",
        "webhooks.pollIntervalMs", "webhooks.timeoutMs", "webhooks.endpointCacheMs", "webhooks.allowHttp", "webhooks.caFile",
    ]

    /// `TESSERA_…` variables that are not configuration keys but are read elsewhere (the CLI's own
    /// secrets and the tests' settings); every `TESSERA_TEST_…` variable is left alone too.
    public static let otherEnvironmentVariables: Set<String> = [
        "TESSERA_NODE_SERVER_KEY", "TESSERA_DEVICE_PIN", "TESSERA_DEVICE_PASSWORD", "TESSERA_CLIENT_SECRET",
    ]

    /// The command-line flag of a key, spelled as swift-configuration's command-line provider looks
    /// it up: each component in dash case, joined by dashes (`otp.perIpHourlyLimit` → `--otp-per-ip-hourly-limit`).
    public static func flag(for key: String) -> String {
        "--" + components(of: key).map { splitCamelCase($0, separator: "-").lowercased() }.joined(separator: "-")
    }

    /// The environment variable of a key, spelled as swift-configuration's environment provider
    /// looks it up under the `tessera` prefix (`otp.codeLifetime` → `TESSERA_OTP_CODE_LIFETIME`).
    public static func environmentVariable(for key: String) -> String {
        (["TESSERA"] + components(of: key).map { splitCamelCase($0, separator: "_").uppercased() }).joined(separator: "_")
    }

    /// Refuses an argument list (the part of the command line the command itself did not parse) with
    /// an unknown flag or a value that follows no flag.
    public static func checkArguments(_ arguments: [String]) throws {
        let flags = Set(all.map(flag(for:)))
        var afterFlag = false
        for argument in arguments {
            if argument.hasPrefix("--") {
                let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
                guard flags.contains(name) else {
                    throw ConfigurationError("unknown option '\(name)'\(suggestion(for: name, among: flags))")
                }
                afterFlag = true
            } else if argument.hasPrefix("-"), Double(argument) == nil {
                throw ConfigurationError("unknown option '\(argument)'")
            } else if !afterFlag {
                throw ConfigurationError("unexpected argument '\(argument)'")
            }
        }
    }

    /// Refuses a JSON configuration file with a key that is not a configuration key; nested objects
    /// are read as dotted keys (`{"otp": {"codeLifetime": 120}}` is `otp.codeLifetime`).
    public static func checkFile(_ data: Data, path: String) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ConfigurationError("\(path) is not a JSON object")
        }
        let known = Set(all)
        var unknown: [String] = []
        func walk(_ object: [String: Any], prefix: String) {
            for (name, value) in object {
                let key = prefix.isEmpty ? name : "\(prefix).\(name)"
                if let nested = value as? [String: Any], !known.contains(key) {
                    walk(nested, prefix: key)
                } else if !known.contains(key) {
                    unknown.append(key)
                }
            }
        }
        walk(object, prefix: "")
        if let first = unknown.sorted().first {
            throw ConfigurationError("unknown configuration key '\(first)' in \(path)\(suggestion(for: first, among: known))")
        }
    }

    /// Refuses a `TESSERA_…` environment variable that names no configuration key. Variables
    /// without the prefix, ``otherEnvironmentVariables`` and `TESSERA_TEST_…` are not looked at.
    public static func checkEnvironment(_ environment: [String: String]) throws {
        let known = Set(all.map(environmentVariable(for:))).union(otherEnvironmentVariables)
        let unknown = environment.keys.filter { $0.hasPrefix("TESSERA_") && !$0.hasPrefix("TESSERA_TEST_") && !known.contains($0) }
        if let first = unknown.sorted().first {
            throw ConfigurationError("unknown environment variable \(first)\(suggestion(for: first, among: known))")
        }
    }

    /// The source a value came from, for messages: `--flag`, `TESSERA_…` or the key in the file.
    static func source(of key: String, provider: String) -> String {
        if provider.contains("CommandLine") { return flag(for: key) }
        if provider.contains("Environment") { return environmentVariable(for: key) }
        return "\(key) in the configuration file"
    }

    private static func components(of key: String) -> [String] { key.split(separator: ".").map(String.init) }

    /// `perIpHourlyLimit` → `per<sep>Ip<sep>Hourly<sep>Limit` (a boundary is a lowercase letter before an uppercase one).
    private static func splitCamelCase(_ component: String, separator: Character) -> String {
        var result = ""
        var previous: Character?
        for character in component {
            if let previous, previous.isLowercase, character.isUppercase { result.append(separator) }
            result.append(character)
            previous = character
        }
        return result
    }

    /// ` (did you mean 'x'?)` when a known name is close.
    private static func suggestion(for name: String, among known: Set<String>) -> String {
        var best: (name: String, distance: Int)?
        for candidate in known.sorted() {
            let candidateDistance = distance(name.lowercased(), candidate.lowercased())
            if best == nil || candidateDistance < (best?.distance ?? Int.max) { best = (candidate, candidateDistance) }
        }
        guard let best, best.distance <= max(2, name.count / 4) else { return "" }
        return " (did you mean '\(best.name)'?)"
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
