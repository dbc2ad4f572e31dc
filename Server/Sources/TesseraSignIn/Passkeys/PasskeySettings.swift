import TesseraWebAuthn

/// The relying party Tessera is for passkeys: the hosted page's origin and its RP ID.
package struct PasskeySettings: Sendable {
    /// The RP ID (the host of the issuer by default).
    package var rpId: String
    /// The name shown by the authenticator.
    package var rpName: String
    /// The origins ceremonies run on (the issuer's origin).
    package var origins: Set<String>
    /// How long a ceremony's challenge is valid, in milliseconds (also the browser's `timeout`).
    package var challengeLifetime: Int64
    /// Whether user verification is required (passwordless: yes).
    package var requireUserVerification: Bool
    /// The FIDO metadata BLOB the operator gave (`passkeys.metadataBlob`), verified at start; nil without one.
    package var metadata: AuthenticatorMetadata?
    /// Whether browsers can run ceremonies here: the RP ID is a domain name (WebAuthn refuses IP addresses)
    /// and every origin is https or on `localhost` (a secure context). When not, the page offers no passkeys
    /// and the ceremonies answer 7306.
    package var isAvailable: Bool {
        !Self.isIPAddress(rpId) && !rpId.isEmpty && origins.allSatisfy { origin in
            origin.hasPrefix("https://") || rpId == "localhost" || rpId.hasSuffix(".localhost")
        }
    }

    /// An IPv4 dotted quad or an IPv6 literal (any colon).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    package init(rpId: String, rpName: String, origins: Set<String>, challengeLifetime: Int64 = 300_000, requireUserVerification: Bool = true) {
        self.rpId = rpId
        self.rpName = rpName
        self.origins = origins
        self.challengeLifetime = challengeLifetime
        self.requireUserVerification = requireUserVerification
    }

    /// The settings for an issuer URL (`https://login.example.com`): its host is the RP ID and its origin the only one.
    package init?(issuer: String, rpName: String = "Tessera") {
        guard let components = URLComponentsLite(issuer) else { return nil }
        self.init(rpId: components.host, rpName: rpName, origins: [components.origin])
    }
}

/// The scheme, host and port of an absolute http(s) URL, without Foundation's URL parsing quirks.
struct URLComponentsLite {
    var host: String
    var origin: String

    init?(_ url: String) {
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else { return nil }
        let rest = lower.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var hostPart = Substring(authority)
        var port: String?
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            hostPart = authority[..<colon]
            port = String(authority[authority.index(after: colon)...])
        }
        guard !hostPart.isEmpty else { return nil }
        host = hostPart.hasPrefix("[") ? String(hostPart.dropFirst().dropLast()) : String(hostPart)
        let defaultPort = scheme == "https" ? "443" : "80"
        origin = "\(scheme)://\(hostPart)" + (port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }
}
