import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TesseraCore

/// The admin web console: its page and assets at `/admin` (compiled in, ``ConsoleAssets``), sign-in
/// and sign-out (`/admin/session`), and the live view's stream in the admin API (`GET /v1/admin/events`).
/// The console calls the admin API with its session cookie (``AdminMiddleware``); it is served on the
/// listener that serves the admin API.
package struct ConsoleController<Context: TesseraContext> {
    package let sessions: ConsoleSessions
    package let admin: AdminAuthenticator
    package let database: any Database
    package let audit: any AuditLog
    package let clock: WallClock
    /// Whether the server speaks TLS itself (the cookie is then always `Secure`).
    package let tls: Bool
    package let bodyLimit: Int

    package init(
        sessions: ConsoleSessions,
        admin: AdminAuthenticator,
        database: any Database,
        audit: any AuditLog,
        clock: WallClock,
        tls: Bool,
        bodyLimit: Int
    ) {
        self.sessions = sessions
        self.admin = admin
        self.database = database
        self.audit = audit
        self.clock = clock
        self.tls = tls
        self.bodyLimit = bodyLimit
    }

    /// The console's Content-Security-Policy: its own scripts, styles and API only, never framed.
    package static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    /// The sign-in body.
    package struct SignIn: Decodable {
        package var token: String
    }

    /// The answer of a sign-in, and of `GET /admin/session`.
    package struct SessionState: Encodable {
        package var signedIn: Bool
        /// Send as `X-CSRF-Token` on every state change.
        package var csrf: String?
    }

    package func addRoutes(to router: Router<Context>) {
        router.get("admin") { _, _ in Self.asset(ConsoleAssets.page) }
        router.get("admin/{file}") { _, context in
            guard let asset = ConsoleAssets.files[try context.parameters.require("file")] else {
                throw AppError.notFound("No such console file")
            }
            return Self.asset(asset)
        }
        router.get("admin/session") { request, _ in
            // 200 either way: a console that is not signed in is no error for the browser to log.
            let session = ConsoleSessions.cookie(in: request).flatMap { sessions.touch($0) }
            return Self.secured(try Response.json(SessionState(signedIn: session != nil, csrf: session?.csrf)))
        }
        router.post("admin/session") { request, context in
            try ConsoleSessions.checkSameOrigin(request)
            var request = request
            let body = try await request.decodeJSON(SignIn.self, limit: bodyLimit)
            // Exactly the admin API's check (constant time), without the token ever being echoed.
            try await admin.verify(authorization: "Bearer " + body.token)
            let (id, csrf) = sessions.create()
            var response = Self.secured(try Response.json(SessionState(signedIn: true, csrf: csrf)))
            response.headers[.setCookie] = cookie(id, maxAge: Int(sessions.lifetime.components.seconds), request: request, context: context)
            return response
        }
        router.delete("admin/session") { request, context in
            if let id = ConsoleSessions.cookie(in: request) {
                _ = try sessions.authorize(request)
                sessions.remove(id)
            }
            var response = Self.secured(Response(status: .noContent))
            response.headers[.setCookie] = cookie("", maxAge: 0, request: request, context: context)
            return response
        }
    }

    /// `GET events` in the admin API: the live view's server-sent events from `after` (the query,
    /// or `Last-Event-ID` when an EventSource reconnects), else from the log's current end. For the
    /// console's session only (a stream that never ends is no API call): with the bearer token, page
    /// through `GET audit?after=…` instead.
    package func addAdminRoutes(to admin: RouterGroup<Context>) {
        admin.get("events") { request, _ in
            guard request.headers[.authorization] == nil else {
                throw AppError.adminUnauthorized(
                    detail: "Console session required: the live stream is the console's; with the admin token, read GET /v1/admin/audit?after=<seq>"
                )
            }
            let text = request.uri.queryParameters.get("after").map { String($0) } ?? HTTPField.Name("Last-Event-ID").flatMap { request.headers[$0] }
            let after: Int64
            if let text {
                guard let value = Int64(text), value >= 0 else { throw AppError.invalidField("after", "after must be a sequence number (0 or more)") }
                after = value
            } else {
                let audit = self.audit
                after = try await database.read { try await audit.head(in: $0) }.seq
            }
            let signal = audit.appended ?? AuditAppendSignal()
            let (wakes, poke) = signal.listen()
            let feed = ConsoleEventFeed(database: database, audit: audit, wakes: wakes, after: after)
            let sleep = clock.sleep
            return ServerSentEvents.response(comment: "audit events after \(after)", feed, name: { $0.name }, id: { $0.id }) {
                defer { poke.finish() }
                while true {
                    try await sleep(.seconds(1))
                    poke.yield()
                }
            }
        }
    }

    /// The session cookie: `HttpOnly; SameSite=Strict; Path=/`, and `Secure` unless this is plain
    /// HTTP on loopback (a browser keeps no `Secure` cookie from `http://127.0.0.1`).
    package func cookie(_ value: String, maxAge: Int, request: Request, context: Context) -> String {
        var cookie = "\(ConsoleSessions.cookieName)=\(value); Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict"
        if tls || !Self.isLoopback(request: request, context: context) { cookie += "; Secure" }
        return cookie
    }

    /// Whether both the caller and the address it used are loopback.
    package static func isLoopback(request: Request, context: Context) -> Bool {
        let peer = context.remoteAddress ?? ""
        guard peer == "127.0.0.1" || peer == "::1" || peer.hasPrefix("::ffff:127.") else { return false }
        guard let authority = request.head.authority?.lowercased() else { return false }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst()) : String(authority.prefix { $0 != ":" })
        return host == "127.0.0.1" || host == "localhost" || host == "::1"
    }

    /// A compiled-in file with the console's headers.
    package static func asset(_ asset: ConsoleAssets.Asset) -> Response {
        secured(Response(status: .ok, headers: [.contentType: asset.contentType], body: .init(byteBuffer: ByteBuffer(string: asset.body))))
    }

    /// Adds the console's security headers: CSP, no framing, no sniffing, no referrer, no caching.
    package static func secured(_ response: Response) -> Response {
        var response = response
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[.cacheControl] = "no-store"
        for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")] {
            if let field = HTTPField.Name(name) { response.headers[field] = value }
        }
        return response
    }
}
