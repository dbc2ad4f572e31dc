import Foundation
import HTTPTypes
import Hummingbird
import TesseraCore

/// The end-session endpoint (RP-Initiated Logout 1.0) and the browser's session cookie.
extension OIDCController {
    /// The browser's session cookie, if it sent one.
    static func browser(_ request: Request) -> String? {
        request.cookies[OIDCService.browserCookie]?.value
    }

    /// The session cookie: HttpOnly, for `/oauth2` only, `SameSite=Lax` (sent on the top-level
    /// navigation from an app to the authorization endpoint, not on cross-site subrequests), `Secure`
    /// when the issuer is https. An empty value with `Max-Age=0` clears it.
    func browserCookie(_ value: String) -> Cookie {
        Cookie(
            name: OIDCService.browserCookie, value: value, maxAge: value.isEmpty ? 0 : Int(service.sessionLifetime.components.seconds),
            path: "/oauth2", secure: service.issuer.hasPrefix("https:"), httpOnly: true, sameSite: .lax
        )
    }

    /// `GET /oauth2/logout` (RP-Initiated Logout 1.0 §2).
    @Sendable package func logout(_ request: Request, context: Context) async throws -> Response {
        let (query, repeated) = RelyingPartyController<Context>.formNotingRepeats(request.uri.query ?? "")
        return try await logoutAnswer(query, repeated: repeated, request: request)
    }

    /// `POST /oauth2/logout` with the parameters as a form (§2: GET and POST), or the page's own confirmation.
    @Sendable package func logoutByPost(_ request: Request, context: Context) async throws -> Response {
        var request = request
        guard Self.isForm(request) else { return notAForm(request, title: \.cannotSignOut) }
        let (form, repeated) = RelyingPartyController<Context>.formNotingRepeats(buffer: try await request.collectBody(limit: bodyLimit))
        return try await logoutAnswer(form, repeated: repeated, request: request)
    }

    private func logoutAnswer(_ parameters: [String: String], repeated: Set<String>, request: Request) async throws -> Response {
        let strings = Self.strings(request, uiLocales: parameters["ui_locales"])
        if let name = repeated.sorted().first {
            let problem = SignInProblem.invalid("The parameter \(name.prefix(40)) was sent more than once.")
            return page(.message(title: strings.cannotSignOut, text: problem.text(strings), status: "error"), strings, status: .badRequest)
        }
        switch try await service.logout(parameters, browser: Self.browser(request)) {
        case .loggedOut(let location, let clearCookie):
            var response = location.map(Self.redirect)
                ?? page(.message(title: strings.signedOutTitle, text: strings.signedOutText, status: "signed-out"), strings)
            if clearCookie { response.setCookie(browserCookie("")) }
            return response
        case .confirm(let csrf, let branding, let parameters):
            return page(.logout(csrf: csrf, branding: branding, parameters: parameters), strings, leadsTo: parameters["post_logout_redirect_uri"])
        case .errorPage(let problem):
            return page(.message(title: strings.cannotSignOut, text: problem.text(strings), status: "error"), strings, status: .badRequest)
        }
    }
}
