import TesseraServer

/// `tessera serve --help`'s list of configuration flags: every key of ``ConfigurationKeys/all`` (the
/// one list the server reads and checks), with what it sets and its default (the README's
/// "Configuration reference" says the same). A key without a line here is still listed, by its flag.
enum ConfigurationHelp {
    static let descriptions: [String: String] = [
        "dataDir": "SQLite file, master key, file outbox (default ./.tessera)",
        "host": "listen address (default 127.0.0.1)",
        "port": "listen port (default 8080)",
        "databaseUrl": "postgres://user:pass@host:5432/db[?sslmode=require] (default: SQLite)",
        "masterKey": "base64 32-byte key sealing server secrets (default <dataDir>/master.key)",
        "adminToken": "fixed admin token instead of the one generated at first start",
        "demoClient": "create a demo client at first start (default true)",
        "http.bodyLimit": "largest request body in bytes (default 65536)",
        "http.trustedProxies": "reverse proxies (IPs, CIDR ranges) whose forwarding header names the client (default none)",
        "http.forwardedHeader": "the header those proxies set: x-forwarded-for (default) or forwarded",
        "tls.certificate": "PEM certificate chain: serve HTTPS (with tls.key; default plain HTTP)",
        "tls.key": "PEM private key: serve HTTPS (with tls.certificate)",
        "log.level": "trace … critical (default info)",
        "log.format": "text (default), or json: one JSON object a line",
        "otp.codeLifetime": "seconds a code can be verified (default 300)",
        "otp.resendCooldown": "seconds between two sends to the same target (default 30)",
        "otp.disposeTokenLifetime": "seconds a dispose token can be used (default 600)",
        "otp.maxAttempts": "wrong tries before a code locks (default 5)",
        "otp.perTargetHourlyLimit": "sends per target per hour (default 10)",
        "otp.perIpHourlyLimit": "sends per client IP per hour (default 100)",
        "otp.perClientHourlyLimit": "sends per app per hour (default 10000)",
        "templates.signup.subject": "sign-up e-mail subject; {{code}} and {{minutes}} are replaced (default built in)",
        "templates.signup.body": "sign-up e-mail text (default built in)",
        "templates.signup.sms": "sign-up SMS text (default built in)",
        "templates.recovery.subject": "recovery e-mail subject (default built in)",
        "templates.recovery.body": "recovery e-mail text (default built in)",
        "templates.recovery.sms": "recovery SMS text (default built in)",
        "smtp.host": "SMTP server (default none: the file outbox)",
        "smtp.port": "SMTP port (default 587, 465 for tls)",
        "smtp.security": "none, starttls (default) or tls (implicit TLS)",
        "smtp.username": "SMTP AUTH user",
        "smtp.password": "SMTP AUTH password",
        "smtp.from": "sender address (required with smtp.host)",
        "smtp.caFile": "extra trusted CA (PEM) for the SMTP server (default system roots)",
        "sms.url": "SMS provider endpoint: a form POST of To, From, Body (default none: the file outbox)",
        "sms.from": "SMS sender",
        "sms.username": "SMS provider's HTTP basic user",
        "sms.password": "SMS provider's HTTP basic password",
        "courier.email": "file (development) or smtp (default smtp if smtp.host is set, else file)",
        "courier.sms": "file, http or none (default http if sms.url is set, else file)",
        "courier.pollIntervalMs": "how often the worker looks for due retries (default 1000)",
        "devices.maxPerUser": "active devices per user; one more revokes the oldest (default 1)",
        "devices.identityChecksPerHour": "re-registration identity checks per IP and per user key per hour (default 20)",
        "auth.issuer": "iss of result and ID tokens, base of the discovery endpoints (default http(s)://<host>:<port>)",
        "passkeys.metadataBlob": "a FIDO Metadata Service BLOB file (https://mds3.fidoalliance.org/), verified at start: refuses revoked or compromised authenticator models, trusts each model's attestation roots",
        "appAttest.perIpHourlyLimit": "App Attest enrolment challenges per client IP per hour (default 300)",
        "ciba.interval": "seconds a CIBA client waits between token polls (default 5; slow_down adds 5)",
        "passkeys.metadataRoot": "PEM root of the BLOB's chain (default: the FIDO root, GlobalSign Root CA - R3)",
        "auth.channelLifetime": "seconds before an unfinished authentication expires (default 120)",
        "auth.resultTokenLifetime": "seconds a result token is valid (default 300)",
        "production": "a production deployment: embedded nodes are refused (default false, true with a databaseUrl)",
        "nodes.embedded": "verifier nodes started as child processes, for development (default 3, 0 in production)",
        "nodes.embeddedDirectory": "where the embedded nodes keep their state (default <dataDir>-nodes)",
        "nodes.perAuthentication": "nodes selected per login; beyond nodes.quorum they are spares (default 3)",
        "nodes.quorum": "attestations needed (default 2)",
        "nodes.timeoutMs": "how long the server waits for one node (default 2000)",
        "nodes.spareAfterMs": "how long the first round may take before the spares are asked; 0: all at once (default 100)",
        "nodes.caFile": "extra trusted CA (PEM) for nodes with https URLs (default system roots)",
        "totp.maxFailures": "failed TOTP verifications before the user is locked (default 10)",
        "flows.lifetime": "seconds a registration flow can be completed (default 900)",
        "flows.perIpHourlyLimit": "registration flows started per client IP per hour (default 100)",
        "sessions.lifetime": "seconds a session lives at most (default 2592000, 30 days)",
        "sessions.idleTimeout": "a session unused this many seconds expires (default 604800, 7 days)",
        "sessions.pendingLifetime": "seconds a session may take to register its device key (default 900)",
        "passwords.maxFailures": "wrong passwords in a row before the identity is locked (default 5)",
        "passwords.lockout": "seconds a password lock lasts (default 900)",
        "passwords.perIpHourlyLimit": "password log-ins per client IP per hour (default 100)",
        "passwords.scryptLogN": "scrypt cost of identity passwords, N = 2^value (default 15)",
        "push.caFile": "extra trusted CA (PEM) for the push providers' hosts (default system roots)",
        "audit.checkpointInterval": "seconds between signed checkpoints of the audit log (default 300)",
        "audit.checkpointFile": "a file each audit checkpoint is also appended to, outside the database (default none)",
        "metrics.listen": "host:port of a separate listener serving GET /metrics (default off)",
        "metrics.token": "bearer token /metrics requires (required off loopback)",
        "webhooks.pollIntervalMs": "how often the webhook worker looks for due deliveries (default 1000)",
        "webhooks.timeoutMs": "how long one webhook POST may take (default 10000)",
        "webhooks.endpointCacheMs": "how long an instance keeps each client's webhook endpoints; other instances' changes arrive within it (default 1000, 0: read every time)",
        "webhooks.allowHttp": "allow plain-http webhook URLs to any host in production (default false)",
        "webhooks.caFile": "extra trusted CA (PEM) for webhook receivers, back-channel logout and CIBA notification endpoints (default system roots)",
    ]

    /// The flags `tessera serve` declares itself (listed under OPTIONS, not again here).
    static let ownKeys: Set<String> = ["host", "port", "dataDir", "databaseUrl"]

    /// The help section: one flag a line, the text after it, wrapped under 80 columns.
    static var section: String {
        let width = 79, column = 26
        var lines = ["CONFIGURATION FLAGS (also as TESSERA_… variables or in the --config file):"]
        for key in ConfigurationKeys.all where !ownKeys.contains(key) {
            let flag = "  \(ConfigurationKeys.flag(for: key)) <value>"
            var words = (descriptions[key] ?? key).split(separator: " ").map(String.init)
            var line = flag.count + 2 <= column ? flag.padding(toLength: column, withPad: " ", startingAt: 0) : flag
            if line.count > column {
                lines.append(line)
                line = String(repeating: " ", count: column)
            }
            var first = true
            while !words.isEmpty {
                let word = words.removeFirst()
                if !first, line.count + 1 + word.count > width {
                    lines.append(line)
                    line = String(repeating: " ", count: column) + word
                } else {
                    line += (first ? "" : " ") + word
                }
                first = false
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
