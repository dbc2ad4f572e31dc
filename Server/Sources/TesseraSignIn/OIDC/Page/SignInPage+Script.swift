import Foundation

extension SignInPage {
    /// The waiting page's script in the page's language: built once per catalogue (it was 3 % of the server's
    /// CPU in an OIDC sign-in when it was built for every page).
    var waitingScript: String { Self.waitingScripts[strings.language] ?? Self.waitingScript(strings) }

    private static let waitingScripts = Dictionary(uniqueKeysWithValues: SignInStrings.all.map { ($0.language, waitingScript($0)) })

    /// The identifier page's script (passkeys) in the page's language, built once per catalogue.
    var identifyScript: String { Self.identifyScripts[strings.language] ?? Self.identifyScript(strings) }

    private static let identifyScripts = Dictionary(uniqueKeysWithValues: SignInStrings.all.map { ($0.language, identifyScript($0)) })

    /// Passkeys on the identifier page, where the browser has WebAuthn: the button is shown, and the
    /// identifier field offers passkeys as autofill (conditional mediation). Either way the page asks for
    /// options bound to this sign-in, lets the browser get an assertion, posts its JSON and goes where the
    /// answer says (the app, with the code). A click replaces a waiting autofill request. A failure after a
    /// click is said in the status line; a failed autofill request stays silent.
    static func identifyScript(_ strings: SignInStrings) -> String {
        let texts: [String: String] = ["cancelled": strings.passkeyCancelled, "unknown": strings.passkeyUnknown, "failed": strings.passkeyFailed]
        let data = (try? JSONSerialization.data(withJSONObject: texts, options: [.sortedKeys])) ?? Data("{}".utf8)
        let json = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        return """
        (function () {
          var button = document.getElementById("passkey");
          var status = document.getElementById("status");
          var texts = \(json);
          if (!button || !window.PublicKeyCredential || !PublicKeyCredential.parseRequestOptionsFromJSON) return;
          button.hidden = false;
          var current = null;
          function form(fields) {
            var body = new URLSearchParams();
            for (var key in fields) body.append(key, fields[key]);
            return body;
          }
          function post(url, fields) {
            return fetch(url, { method: "POST", body: form(fields), credentials: "same-origin" }).then(function (r) {
              return r.json().then(function (body) { if (!r.ok) { var e = new Error("refused"); e.code = body.code; throw e; } return body; });
            });
          }
          function signIn(conditional) {
            if (current) current.abort();
            var controller = new AbortController();
            current = controller;
            var csrf = button.dataset.csrf;
            return post(button.dataset.optionsUrl, { csrf: csrf }).then(function (answer) {
              var request = { publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(answer.publicKey), signal: controller.signal };
              if (conditional) request.mediation = "conditional";
              return navigator.credentials.get(request).then(function (credential) {
                return post(button.dataset.url, { csrf: csrf, challengeId: answer.challengeId, credential: JSON.stringify(credential.toJSON()) });
              });
            }).then(function (body) {
              status.dataset.status = "passkey-signed-in";
              window.location.assign(body.location);
            }).catch(function (error) {
              if (controller.signal.aborted || conditional) return;
              status.dataset.status = "passkey-failed";
              status.textContent = error.name === "NotAllowedError" ? texts.cancelled : (error.code === 7303 ? texts.unknown : texts.failed);
            });
          }
          button.addEventListener("click", function () { signIn(false); });
          if (PublicKeyCredential.isConditionalMediationAvailable) {
            PublicKeyCredential.isConditionalMediationAvailable().then(function (available) { if (available) signIn(true); });
          }
        })();
        """
    }

    /// The offer page's script in the page's language, built once per catalogue.
    var offerScript: String { Self.offerScripts[strings.language] ?? Self.offerScript(strings) }

    private static let offerScripts = Dictionary(uniqueKeysWithValues: SignInStrings.all.map { ($0.language, offerScript($0)) })

    /// The offer to add a passkey: without WebAuthn in the browser the page goes straight on to the app.
    /// The button asks for creation options (the user's passkeys excluded), lets the browser create the
    /// passkey, posts its JSON, and goes on to the app. An authenticator that holds one of the user's
    /// passkeys already (`InvalidStateError`, or 7304 from the server), a cancel (`NotAllowedError`) or any
    /// other failure is said in the status line, and the way on is still there.
    static func offerScript(_ strings: SignInStrings) -> String {
        let texts: [String: String] = [
            "added": strings.offerAdded, "exists": strings.offerExists, "cancelled": strings.offerCancelled, "failed": strings.offerFailed,
            "continue": strings.continueButton,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: texts, options: [.sortedKeys])) ?? Data("{}".utf8)
        let json = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        return """
        (function () {
          var button = document.getElementById("add-passkey");
          var skip = document.getElementById("skip-passkey");
          var status = document.getElementById("status");
          var texts = \(json);
          if (!window.PublicKeyCredential || !PublicKeyCredential.parseCreationOptionsFromJSON) { window.location.replace(skip.href); return; }
          function post(url, fields) {
            var body = new URLSearchParams();
            for (var key in fields) body.append(key, fields[key]);
            return fetch(url, { method: "POST", body: body, credentials: "same-origin" }).then(function (r) {
              return r.json().then(function (answer) { if (!r.ok) { var e = new Error("refused"); e.code = answer.code; throw e; } return answer; });
            });
          }
          button.addEventListener("click", function () {
            button.disabled = true;
            var csrf = button.dataset.csrf;
            post(button.dataset.optionsUrl, { csrf: csrf }).then(function (answer) {
              return navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(answer.publicKey) }).then(function (credential) {
                return post(button.dataset.url, { csrf: csrf, challengeId: answer.challengeId, credential: JSON.stringify(credential.toJSON()) });
              });
            }).then(function () {
              status.dataset.status = "passkey-added";
              status.textContent = texts.added;
              window.location.assign(skip.href);
            }).catch(function (error) {
              var exists = error.name === "InvalidStateError" || error.code === 7304;
              status.dataset.status = exists ? "passkey-exists" : "passkey-failed";
              status.textContent = exists ? texts.exists : (error.name === "NotAllowedError" ? texts.cancelled : texts.failed);
              button.disabled = false;
              if (exists) { button.hidden = true; skip.textContent = texts.continue; }
            });
          });
        })();
        """
    }

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
