import HTTPTypes
import Hummingbird
import TesseraCore

/// How the console's requests are checked: the session cookie, the CSRF header on state changes,
/// and the browser's word on where a request comes from.
extension ConsoleSessions {
    /// The header a console page sends its CSRF token in.
    package static let csrfHeader = HTTPField.Name("X-CSRF-Token")

    /// The value of the session cookie in `request`, if there is one.
    package static func cookie(in request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard trimmed.hasPrefix(cookieName + "=") else { continue }
                let value = trimmed.dropFirst(cookieName.count + 1)
                if !value.isEmpty { return String(value) }
            }
        }
        return nil
    }

    /// Whether `request` is a state change (anything but GET and HEAD).
    package static func changesState(_ request: Request) -> Bool { request.method != .get && request.method != .head }

    /// Refuses (1122) a request the browser says comes from another site: `Sec-Fetch-Site` other
    /// than `same-origin` (or `none`), or an `Origin` that is not this server's own (`null` included).
    package static func checkSameOrigin(_ request: Request) throws {
        if let site = HTTPField.Name("Sec-Fetch-Site").flatMap({ request.headers[$0] }), site != "same-origin", site != "none" {
            throw crossSite("Sec-Fetch-Site is \(site)")
        }
        if let origin = request.headers[.origin] {
            let host = origin.hasPrefix("https://") ? origin.dropFirst(8) : origin.hasPrefix("http://") ? origin.dropFirst(7) : nil
            guard let host, let authority = request.head.authority, host.lowercased() == authority.lowercased() else {
                throw crossSite("the Origin is not this server")
            }
        }
    }

    private static func crossSite(_ detail: String) -> AppError {
        AppError.consoleCrossSite(detail: detail)
    }

    /// The console session that authorises `request` (admin API or console route): a live session
    /// cookie (1105 otherwise); for a state change also a same-origin request (1122) carrying the
    /// session's CSRF token in `X-CSRF-Token` (1121), compared in constant time.
    package func authorize(_ request: Request) throws -> Session {
        guard let id = Self.cookie(in: request), let session = touch(id) else {
            throw AppError.adminUnauthorized(detail: "Console session required: sign in to the console again")
        }
        if Self.changesState(request) {
            try Self.checkSameOrigin(request)
            guard let name = Self.csrfHeader, let token = request.headers[name],
                  constantTimeEquals(Array(token.utf8), Array(session.csrf.utf8))
            else {
                throw AppError.consoleCSRFInvalid(detail: "Send the console's X-CSRF-Token header")
            }
        }
        return session
    }
}
