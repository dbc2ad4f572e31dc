import Foundation
import HTTPTypes
import Hummingbird

/// The hosted sign-in page: plain HTML with one inline script (allowed by a per-response CSP nonce),
/// no third-party assets. Elements tests and browsers address: `#identifier`, `#submit`, `#status`,
/// and `#match-number` (number matching).
package struct SignInPage: Sendable {
    /// What the page shows.
    package enum Content: Sendable {
        /// The identifier form of a new pending authorization.
        case identify(requestId: String, csrf: String, clientName: String)
        /// Waiting for the device: progress follows from the events stream, then the completion URL.
        /// With number matching, `matchNumber` is shown for the user to pick on the phone.
        case waiting(requestId: String, csrf: String, clientName: String, matchNumber: String? = nil)
        /// An ending or an error, with no way on.
        case message(title: String, text: String, status: String)
    }

    package let content: Content
    package let nonce: String

    package init(content: Content, nonce: String) {
        self.content = content
        self.nonce = nonce
    }

    /// The page as a response: no-store, not framed, CSP with the script's nonce.
    package func response(status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        for (name, value) in [("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")] {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(string: html)))
    }

    package var html: String {
        var body = ""
        var script = ""
        switch content {
        case .identify(let requestId, let csrf, let clientName):
            body = """
                <h1>Sign in to \(Self.escape(clientName))</h1>
                <form method="post" action="/oauth2/authorize/\(Self.escape(requestId))/identify">
                <input type="hidden" name="csrf" value="\(Self.escape(csrf))">
                <label for="identifier">E-mail address or user key</label>
                <input id="identifier" name="identifier" type="text" autocomplete="username" required maxlength="254" autofocus>
                <button id="submit" type="submit">Continue</button>
                </form>
                <p id="status" data-status="identify"></p>
                """
        case .waiting(let requestId, let csrf, let clientName, let matchNumber):
            let query = "csrf=" + Self.escape(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? csrf)
            let base = "/oauth2/authorize/" + Self.escape(requestId)
            body = """
                <h1>Sign in to \(Self.escape(clientName))</h1>
                <p id="status" data-status="waiting" data-status-url="\(base)/status?\(query)" data-events-url="\(base)/events?\(query)" data-complete-url="\(base)/complete?\(query)">Approve on your phone.</p>
                <noscript><p><a href="\(base)/complete?\(query)">Continue once you approved</a></p></noscript>
                """ + (matchNumber.map(Self.matchNumberHTML) ?? "")
            // Server-sent events: `status` for each step, then one `outcome`. EventSource reconnects by
            // itself and the server then sends the current state first; after the outcome it is closed.
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
                  function show(event) {
                    var s = JSON.parse(event.data);
                    el.dataset.status = s.status;
                    if (s.step) { el.dataset.step = s.step; } else { delete el.dataset.step; }
                    el.textContent = (s.step && steps[s.step]) || texts[s.status] || s.status;
                    if (event.type === "outcome") {
                      source.close();
                      if (s.status === "approved") { window.location.assign(el.dataset.completeUrl); }
                    }
                  }
                  source.addEventListener("status", show);
                  source.addEventListener("outcome", show);
                  source.addEventListener("error", function () {
                    if (source.readyState === EventSource.CLOSED) {
                      el.dataset.status = "expired";
                      el.textContent = texts.expired;
                    }
                  });
                })();
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
            body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #1d1d1f; }
            label { display: block; margin: 1rem 0 .3rem; } input[type=text] { width: 100%; padding: .6rem; font-size: 1rem; box-sizing: border-box; }
            button { margin-top: 1rem; padding: .6rem 1.2rem; font-size: 1rem; }
            .match { font-size: 1.2rem; } #match-number { font-size: 3rem; letter-spacing: .1em; display: block; margin: .5rem 0; }
            </style></head>
            <body>
            \(body)
            \(script.isEmpty ? "" : "<script nonce=\"\(nonce)\">\n\(script)\n</script>")
            </body></html>
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
