import Foundation
import HTTPTypes
import Hummingbird

/// The hosted sign-in page: plain HTML with one inline script and one style sheet (allowed by a
/// per-response CSP nonce), no third-party assets, in the language of ``strings`` and the client's
/// ``ClientBranding``. Elements tests and browsers address: `#identifier`, `#submit`, `#status`,
/// `#progress` (its items' `data-state`), `#match-number` (number matching), `#cancel` and `#not-you`
/// (forms that end or restart the sign-in), `#back` (the way back to the app once the sign-in ended)
/// and `#logo`.
package struct SignInPage: Sendable {
    /// What the page shows.
    package enum Content: Sendable {
        /// The identifier form of a new pending authorization, filled in with `loginHint` if there is one;
        /// with `passkeys`, the passkey button and autofill (where the browser has WebAuthn).
        case identify(requestId: String, csrf: String, branding: ClientBranding, loginHint: String? = nil, passkeys: Bool = false)
        /// Waiting for the device: progress follows from the events stream, then the completion URL.
        /// With number matching, `matchNumber` is shown for the user to pick on the phone.
        case waiting(requestId: String, csrf: String, branding: ClientBranding, matchNumber: String? = nil)
        /// After the phone approved: the offer to add a passkey (`#add-passkey`), or to go on without one
        /// (`#skip-passkey`, also where the page goes after the ceremony).
        case passkeyOffer(requestId: String, csrf: String, branding: ClientBranding)
        /// An ending or an error, with no way on.
        case message(title: String, text: String, status: String, branding: ClientBranding? = nil)
        /// The question before a sign-out that no ID token of this browser's session asked for
        /// (RP-Initiated Logout 1.0 §2): `#logout` posts `parameters` back with the form token.
        case logout(csrf: String, branding: ClientBranding?, parameters: [String: String])
    }

    package let content: Content
    package let strings: SignInStrings
    package let nonce: String
    /// The origin the page's forms may be redirected to (CSP `form-action`), besides this server's own.
    package let formOrigin: String?

    /// `formTarget` is a URI the page's forms may be redirected to: its origin is allowed by `form-action`.
    package init(content: Content, strings: SignInStrings = .english, nonce: String, formTarget: String? = nil) {
        self.content = content
        self.strings = strings
        self.nonce = nonce
        formOrigin = formTarget.flatMap(Self.origin)
    }

    /// `scheme://host[:port]` of an absolute http(s) URI, nil for anything else (nothing that could widen the CSP).
    package static func origin(_ uri: String) -> String? {
        guard let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "[" || $0 == "]" })
        else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// The page as a response: no-store, not framed, CSP with the script's nonce, in its language.
    package func response(status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentLanguage] = strings.language
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; base-uri 'none'; form-action 'self'\(formOrigin.map { " " + $0 } ?? ""); frame-ancestors 'none'"
        for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")] {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        if let vary = HTTPField.Name("Vary") { headers[vary] = "Accept-Language" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(string: html)))
    }

    private var branding: ClientBranding? {
        switch content {
        case .identify(_, _, let branding, _, _), .waiting(_, _, let branding, _), .passkeyOffer(_, _, let branding): branding
        case .message(_, _, _, let branding), .logout(_, let branding, _): branding
        }
    }

    package var html: String {
        let escape = Self.escape
        var body = ""
        var script = ""
        switch content {
        case .identify(let requestId, let csrf, let branding, let loginHint, let passkeys):
            let base = "/oauth2/authorize/" + escape(requestId)
            let value = loginHint.map { " value=\"\(escape($0))\"" } ?? ""
            body = """
                <h1>\(escape(SignInStrings.fill(strings.signInTo, name: branding.name)))</h1>
                <form method="post" action="\(base)/identify">
                <input type="hidden" name="csrf" value="\(escape(csrf))">
                <label for="identifier">\(escape(strings.identifierLabel))</label>
                <input id="identifier" name="identifier" type="text" autocomplete="\(passkeys ? "username webauthn" : "username")" required maxlength="254" autofocus\(value)>
                <button id="submit" type="submit" class="primary">\(escape(strings.continueButton))</button>
                </form>
                <div class="actions">\(passkeys ? passkeyButtonHTML(base: base, csrf: csrf) : "")\
                \(Self.actionForm(base + "/cancel", csrf: csrf, id: "cancel", label: strings.cancel))</div>
                <p id="status" data-status="identify" role="status" aria-live="polite"></p>
                """
            script = passkeys ? identifyScript : ""
        case .passkeyOffer(let requestId, let csrf, let branding):
            let base = "/oauth2/authorize/" + escape(requestId)
            let next = base + "/complete?passkey=offered&amp;csrf=" + escape(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf)
            body = """
                <h1>\(escape(strings.offerTitle))</h1>
                <p>\(escape(SignInStrings.fill(strings.offerText, name: branding.name)))</p>
                <button id="add-passkey" type="button" class="primary" data-options-url="\(base)/passkey/registration/options" \
                data-url="\(base)/passkey/registration" data-csrf="\(escape(csrf))">\(escape(strings.offerAdd))</button>
                <div class="actions"><a id="skip-passkey" class="link" href="\(next)">\(escape(strings.offerSkip))</a></div>
                <p id="status" data-status="passkey-offer" role="status" aria-live="polite"></p>
                """
            script = offerScript
        case .waiting(let requestId, let csrf, let branding, let matchNumber):
            let query = "csrf=" + escape(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf)
            let base = "/oauth2/authorize/" + escape(requestId)
            body = """
                <h1>\(escape(SignInStrings.fill(strings.signInTo, name: branding.name)))</h1>
                """ + (matchNumber.map(matchNumberHTML) ?? "") + """

                <ol id="progress" class="progress" aria-label="\(escape(strings.progressLabel))">
                <li data-step="phone" data-state="current">\(escape(strings.progressPhone))</li>
                <li data-step="nodes" data-state="todo">\(escape(strings.progressNodes))</li>
                <li data-step="done" data-state="todo">\(escape(strings.progressDone))</li>
                </ol>
                <p id="status" role="status" aria-live="polite" data-status="waiting" data-status-url="\(base)/status?\(query)" data-events-url="\(base)/events?\(query)" data-complete-url="\(base)/complete?\(query)">\(escape(strings.waiting))</p>
                <div id="back" hidden><p>\(escape(strings.goingBack))</p>
                <p><a class="button primary" href="\(base)/complete?\(query)">\(escape(SignInStrings.fill(strings.backTo, name: branding.name)))</a></p></div>
                <noscript><p><a href="\(base)/complete?\(query)">\(escape(strings.continueOnceApproved))</a></p></noscript>
                <div id="actions" class="actions">
                \(Self.actionForm(base + "/restart", csrf: csrf, id: "not-you", label: strings.notYou))
                \(Self.actionForm(base + "/cancel", csrf: csrf, id: "cancel", label: strings.cancel))
                </div>
                """
            script = waitingScript
        case .logout(let csrf, let branding, let parameters):
            let fields = parameters.sorted { $0.key < $1.key }
                .map { "<input type=\"hidden\" name=\"\(escape($0.key))\" value=\"\(escape($0.value))\">" }.joined(separator: "\n")
            let title = branding.map { SignInStrings.fill(strings.signOutOf, name: $0.name) } ?? strings.signOutQuestion
            body = """
                <h1>\(escape(title))</h1>
                <p id="status" data-status="logout">\(escape(strings.signOutExplanation))</p>
                <form method="post" action="/oauth2/logout">
                <input type="hidden" name="csrf" value="\(escape(csrf))">
                \(fields)
                <button id="logout" type="submit" class="primary">\(escape(strings.signOutButton))</button>
                </form>
                """
        case .message(let title, let text, let status, _):
            body = """
                <h1>\(escape(title))</h1>
                <p id="status" data-status="\(escape(status))">\(escape(text))</p>
                """
        }
        let logo = branding?.logoPath.map { "<img id=\"logo\" class=\"logo\" src=\"\(escape($0))\" alt=\"\" width=\"56\" height=\"56\">\n" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="\(escape(strings.language))"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(strings.documentTitle))</title>
            <style nonce="\(nonce)">
            \(Self.style(accent: branding?.accentColor ?? ClientBranding.defaultAccent))
            </style></head>
            <body>
            <main class="card">
            \(logo)\(body)
            </main>
            <footer><p>\(escape(strings.securedBy))</p></footer>
            \(script.isEmpty ? "" : "<script nonce=\"\(nonce)\">\n\(script)\n</script>")
            </body></html>
            """
    }

    /// How long a page that ended without approval shows what happened before it goes back to the app.
    package static let backDelayMilliseconds = 5000

    /// A one-button form of the page (Cancel, Not you?) that posts its form token.
    package static func actionForm(_ action: String, csrf: String, id: String, label: String) -> String {
        """
        <form class="inline" method="post" action="\(action)"><input type="hidden" name="csrf" value="\(escape(csrf))">\
        <button id="\(id)" type="submit" class="link">\(escape(label))</button></form>
        """
    }

    /// The passkey button of the identifier form, hidden until the script finds WebAuthn in the browser.
    func passkeyButtonHTML(base: String, csrf: String) -> String {
        """
        <button id="passkey" type="button" class="link" hidden data-options-url="\(base)/passkey/options" \
        data-url="\(base)/passkey" data-csrf="\(Self.escape(csrf))">\(Self.escape(strings.passkeyButton))</button>
        """
    }

    /// Number matching: the two digits, large and on one line, for the user to pick on the phone.
    package func matchNumberHTML(_ number: String) -> String {
        let after = strings.tapAfter.isEmpty ? "" : (strings.tapAfter == "." ? "." : " " + Self.escape(strings.tapAfter))
        return """

        <p class="match">\(Self.escape(strings.tapBefore)) <strong id="match-number">\(Self.escape(number))</strong>\(after)</p>
        """
    }

    /// Escapes text for HTML content and attribute values.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
