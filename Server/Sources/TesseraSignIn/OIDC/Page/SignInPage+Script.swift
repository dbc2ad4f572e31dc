import Foundation

extension SignInPage {
    /// The waiting page's script in the page's language: built once per catalogue (it was 3 % of the server's
    /// CPU in an OIDC sign-in when it was built for every page).
    var waitingScript: String { Self.waitingScripts[strings.language] ?? Self.waitingScript(strings) }

    private static let waitingScripts = Dictionary(uniqueKeysWithValues: SignInStrings.all.map { ($0.language, waitingScript($0)) })

    /// The texts the waiting page's script shows, by status and by quorum step, as a JSON object that is
    /// safe inside a `<script>` element (`<` is escaped).
    static func scriptTexts(_ strings: SignInStrings) -> String {
        let texts: [String: String] = [
            "waiting": strings.waiting, "verifying": strings.verifying, "approved": strings.approved, "declined": strings.declined,
            "expired": strings.expired, "cancelled": strings.cancelled, "failed": strings.failed, "mismatch": strings.mismatch,
            "SelectNodes": strings.stepSelectNodes, "StartVerificationOfNodes": strings.verifying,
            "CompleteVerificationOfNodes": strings.stepCompleteVerification,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: texts, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// Server-sent events: `status` for each step, then one `outcome`. EventSource reconnects by itself and
    /// the server then sends the current state first; after the outcome it is closed. The progress list
    /// follows: the phone step until the phone approves, the nodes step while they verify, then done (or
    /// the step that was under way marked failed). Approved: on to the app at once. Any other ending: the
    /// page says what happened, offers the way back, and goes back by itself after a few seconds (the app
    /// gets the OAuth error).
    static func waitingScript(_ strings: SignInStrings) -> String {
        """
        (function () {
          var el = document.getElementById("status");
          var texts = \(scriptTexts(strings));
          var items = document.querySelectorAll("#progress li");
          var source = new EventSource(el.dataset.eventsUrl);
          function mark(current, ended) {
            for (var i = 0; i < items.length; i++) {
              items[i].dataset.state = i < current ? "done" : (i === current ? (ended ? "failed" : "current") : "todo");
            }
          }
          function end(status) {
            document.getElementById("actions").hidden = true;
            var match = document.querySelector(".match");
            if (match) { match.hidden = true; }
            if (status === "approved") { mark(3, false); window.location.assign(el.dataset.completeUrl); return; }
            var current = 0;
            for (var i = 0; i < items.length; i++) { if (items[i].dataset.state === "current") { current = i; } }
            mark(current, true);
            document.getElementById("back").hidden = false;
            window.setTimeout(function () { window.location.assign(el.dataset.completeUrl); }, \(Self.backDelayMilliseconds));
          }
          function show(event) {
            var s = JSON.parse(event.data);
            el.dataset.status = s.status;
            if (s.step) { el.dataset.step = s.step; } else { delete el.dataset.step; }
            el.textContent = (s.step && texts[s.step]) || texts[s.status] || s.status;
            if (s.status === "verifying") { mark(1, false); }
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
    }
}
