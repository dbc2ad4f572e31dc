import Foundation
import HTTPTypes
import Hummingbird

/// The hosted sign-in page: plain HTML with one inline script (allowed by a per-response CSP nonce),
/// no third-party assets. Elements tests and browsers address: `#identifier`, `#submit`, `#status`,
/// `#match-number` (number matching), `#cancel` and `#not-you` (forms that end or restart the sign-in),
/// and `#back` (the way back to the app once the sign-in ended).
package struct SignInPage: Sendable {
    /// What the page shows.
    package enum Content: Sendable {
        /// The identifier form of a new pending authorization, filled in with `loginHint` if there is one.
        case identify(requestId: String, csrf: String, clientName: String, loginHint: String? = nil)
        /// Waiting for the device: progress follows from the events stream, then the completion URL.
        /// With number matching, `matchNumber` is shown for the user to pick on the phone.
        case waiting(requestId: String, csrf: String, clientName: String, matchNumber: String? = nil)
        /// An ending or an error, with no way on.
        case message(title: String, text: String, status: String)
        /// The question before a sign-out that no ID token of this browser's session asked for
        /// (RP-Initiated Logout 1.0 §2): `#logout` posts `parameters` back with the form token.
        case logout(csrf: String, clientName: String?, parameters: [String: String])
    }

    package let content: Content
    package let nonce: String
    /// The origin the page's forms may be redirected to (CSP `form-action`), besides this server's own.
    package let formOrigin: String?

    /// `formTarget` is a URI the page's forms may be redirected to: its origin is allowed by `form-action`.
    package init(content: Content, nonce: String, formTarget: String? = nil) {
        self.content = content
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

    /// The page as a response: no-store, not framed, CSP with the script's nonce.
    package func response(status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; base-uri 'none'; form-action 'self'\(formOrigin.map { " " + $0 } ?? ""); frame-ancestors 'none'"
        for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")] {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(string: html)))
    }

    package var html: String {
        var body = ""
        var script = ""
        switch content {
        case .identify(let requestId, let csrf, let clientName, let loginHint):
            let base = "/oauth2/authorize/" + Self.escape(requestId)
            let value = loginHint.map { " value=\"\(Self.escape($0))\"" } ?? ""
            body = """
                <h1>Sign in to \(Self.escape(clientName))</h1>
                <form method="post" action="\(base)/identify">
                <input type="hidden" name="csrf" value="\(Self.escape(csrf))">
                <label for="identifier">E-mail address or user key</label>
                <input id="identifier" name="identifier" type="text" autocomplete="username" required maxlength="254" autofocus\(value)>
                <button id="submit" type="submit">Continue</button>
                </form>
                \(Self.actionForm(base + "/cancel", csrf: csrf, id: "cancel", label: "Cancel"))
                <p id="status" data-status="identify" role="status" aria-live="polite"></p>
                """
        case .waiting(let requestId, let csrf, let clientName, let matchNumber):
            let query = "csrf=" + Self.escape(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf)
            let base = "/oauth2/authorize/" + Self.escape(requestId)
            body = """
                <h1>Sign in to \(Self.escape(clientName))</h1>
                <p id="status" role="status" aria-live="polite" data-status="waiting" data-status-url="\(base)/status?\(query)" data-events-url="\(base)/events?\(query)" data-complete-url="\(base)/complete?\(query)">Approve on your phone.</p>
                """ + (matchNumber.map(Self.matchNumberHTML) ?? "") + """

                <p id="back" hidden><a href="\(base)/complete?\(query)">Back to \(Self.escape(clientName))</a></p>
                <noscript><p><a href="\(base)/complete?\(query)">Continue once you approved</a></p></noscript>
                <div id="actions" class="actions">
                \(Self.actionForm(base + "/restart", csrf: csrf, id: "not-you", label: "Not you?"))
                \(Self.actionForm(base + "/cancel", csrf: csrf, id: "cancel", label: "Cancel"))
                </div>
                """
            // Server-sent events: `status` for each step, then one `outcome`. EventSource reconnects by
            // itself and the server then sends the current state first; after the outcome it is closed.
            // Approved: on to the app at once. Any other ending: the page says what happened, offers the
            // way back, and goes back by itself after a few seconds (the app gets the OAuth error).
            script = """
                (function () {
                  var el = document.getElementById("status");
                  var texts = { waiting: "Approve on your phone.", verifying: "Approved on your phone. Checking with the verifier nodes…",
                    approved: "Approved. Signing you in…", declined: "The sign-in was declined on your phone.",
                    expired: "The sign-in expired. Start again from the application.", cancelled: "The sign-in was cancelled.",
                    failed: "The sign-in failed on your phone.", mismatch: "\(Self.mismatchText)" };
                  var steps = { SelectNodes: "Approved on your phone. Choosing the verifier nodes…",
                    StartVerificationOfNodes: "Approved on your phone. Checking with the verifier nodes…",
                    CompleteVerificationOfNodes: "The verifier nodes confirmed your phone. Finishing on your phone…" };
                  var source = new EventSource(el.dataset.eventsUrl);
                  function end(status) {
                    document.getElementById("actions").hidden = true;
                    var match = document.querySelector(".match");
                    if (match) { match.hidden = true; }
                    if (status === "approved") { window.location.assign(el.dataset.completeUrl); return; }
                    document.getElementById("back").hidden = false;
                    window.setTimeout(function () { window.location.assign(el.dataset.completeUrl); }, \(Self.backDelayMilliseconds));
                  }
                  function show(event) {
                    var s = JSON.parse(event.data);
                    el.dataset.status = s.status;
                    if (s.step) { el.dataset.step = s.step; } else { delete el.dataset.step; }
                    el.textContent = (s.step && steps[s.step]) || texts[s.status] || s.status;
                    if (event.type === "outcome") {
                      source.close();
                      end(s.status);
                    }
                  }
                  source.addEventListener("status", show);
                  source.addEventListener("outcome", show);
                  source.addEventListener("error", function () {
                    if (source.readyState === EventSource.CLOSED) {
                      el.dataset.status = "expired";
                      el.textContent = texts.expired;
                      end("expired");
                    }
                  });
                })();
                """
        case .logout(let csrf, let clientName, let parameters):
            let fields = parameters.sorted { $0.key < $1.key }
                .map { "<input type=\"hidden\" name=\"\(Self.escape($0.key))\" value=\"\(Self.escape($0.value))\">" }.joined(separator: "\n")
            body = """
                <h1>Sign out\(clientName.map { " of " + Self.escape($0) } ?? "")?</h1>
                <p id="status" data-status="logout">You are signed in with Tessera in this browser. Signing out ends it for the apps you signed in to here.</p>
                <form method="post" action="/oauth2/logout">
                <input type="hidden" name="csrf" value="\(Self.escape(csrf))">
                \(fields)
                <button id="logout" type="submit">Sign out</button>
                </form>
                """
        case .message(let title, let text, let status):
            body = """
                <h1>\(Self.escape(title))</h1>
                <p id="status" data-status="\(Self.escape(status))">\(Self.escape(text))</p>
                """
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in with Tessera</title>
            <style nonce="\(nonce)">
            body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1d1d1f; line-height: 1.4; }
            h1 { font-size: 1.5rem; } a { color: #0b57d0; }
            label { display: block; margin: 1rem 0 .3rem; font-weight: 600; }
            input[type=text] { width: 100%; padding: .7rem; font-size: 1rem; box-sizing: border-box; border: 1px solid #6e6e73; border-radius: .4rem; }
            button { margin-top: 1rem; padding: .7rem 1.4rem; font-size: 1rem; border-radius: .4rem; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; cursor: pointer; }
            button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
            button.link { background: none; color: #0b57d0; border: none; padding: .4rem 0; margin-right: 1.5rem; text-decoration: underline; }
            .actions form, form.inline { display: inline; }
            #status { min-height: 1.4em; } #status[data-status="waiting"], #status[data-status="verifying"] { padding-left: 1.6rem; position: relative; }
            #status[data-status="waiting"]::before, #status[data-status="verifying"]::before { content: ""; position: absolute; left: 0; top: .15em;
              width: 1em; height: 1em; border: .18em solid #c7c7cc; border-top-color: #0b57d0; border-radius: 50%; animation: spin 1s linear infinite; box-sizing: border-box; }
            @keyframes spin { to { transform: rotate(360deg); } }
            @media (prefers-reduced-motion: reduce) { #status::before { animation: none; } }
            .match { font-size: 1.2rem; white-space: nowrap; } #match-number { font-size: 2.4rem; letter-spacing: .1em; vertical-align: middle; }
            </style></head>
            <body>
            \(body)
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

    /// What the page says when the phone picked no number or the wrong one.
    package static let mismatchText = "The number chosen on your phone did not match. Start again from the application."

    /// Number matching: the two digits, large, for the user to pick on the phone.
    package static func matchNumberHTML(_ number: String) -> String {
        """

        <p class="match">Tap <strong id="match-number">\(escape(number))</strong> on your phone.</p>
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
