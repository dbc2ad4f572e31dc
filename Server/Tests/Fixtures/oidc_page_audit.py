"""The hosted sign-in page, audited: headless Debian Chromium (Selenium) walks it in English, German and Korean
through every state (identify, waiting, and an ending: approved, declined or expired), and axe-core (PyPI
axe-playwright-python's axe.min.js, run inside the page) checks each state at 390 px and 1280 px wide.

Usage: oidc_page_audit.py BASE_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI IDENTIFIER SIGNAL_DIR SHOTS_DIR PLAN
PLAN: comma-separated LANG:ENDING[:NAME=VALUE] runs, e.g. en:approve,en:decline,de:decline,en:approve:max_age=1.
      Before the first run, prompt=none without a session at Tessera must come back with login_required. Each run
      starts a sign-in with ui_locales=LANG (and prompt=login after the first, since the first approval leaves a
      session at Tessera; NAME=VALUE replaces it), types IDENTIFIER, and once the page waits for the phone writes
      SIGNAL_DIR/<index>.waiting: the Swift test then approves, declines, or moves the server's clock past the
      request's lifetime. The page's automatic return to the app is held (it goes to a fragment of itself) while
      the ending is audited; then the page's own "Back to" link, or the
      completion URL, is followed.
Screenshots of the English run's states go to SHOTS_DIR/<state>-<width>.png.
The relying party is Authlib (its authorization URLs, code exchange with client_secret_basic and PKCE, and ID token
check through the JWKS); after
the first approval, prompt=none signs in from the session without the phone. A run with max_age=1 starts once
more than a second passed since the last approval's auth_time (it must ask the phone again).
Prints one JSON object on the last line of stdout: the audits (violations of impact serious or critical, and
the count of all), the endings (where the browser landed, and with what; auth_time and sid of approvals).
"""
import importlib.util
import json
import os
import sys
import time
import urllib.parse

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
import requests  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oidc_browser import TIMEOUT, browser, page_status, screenshot  # noqa: E402
from oidc_client import verify_id_token  # noqa: E402

WIDTHS = [(1280, 800), (390, 844)]
VERIFIER = "v" * 43


class RelyingParty:
    """The relying party, Authlib's OAuth2Session: each authorization URL (PKCE S256, state, nonce) and its code
    exchange (client_secret_basic), the ID token verified through the JWKS (oidc_client.verify_id_token)."""

    def __init__(self, base, client_id, secret, redirect_uri):
        self.base, self.client_id, self.secret, self.redirect_uri = base, client_id, secret, redirect_uri
        self.meta = requests.get(base + "/.well-known/openid-configuration", timeout=30).json()
        self.sessions = {}

    def local(self, url):
        """The issuer may name the configured public URL; this test talks to the loopback server."""
        return self.base + urllib.parse.urlsplit(url).path

    def authorize_url(self, lang, index, extra):
        session = OAuth2Session(self.client_id, self.secret, scope="openid email", redirect_uri=self.redirect_uri,
                                code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        self.sessions[index] = session
        url, _ = session.create_authorization_url(self.local(self.meta["authorization_endpoint"]), code_verifier=VERIFIER,
                                                  state="audit-%d" % index, nonce="n-%d" % index, ui_locales=lang, **extra)
        return url

    def exchange(self, index, callback_url):
        token = self.sessions[index].fetch_token(self.local(self.meta["token_endpoint"]), authorization_response=callback_url,
                                                 code_verifier=VERIFIER)
        return verify_id_token(token["id_token"], self.meta, self.local, self.client_id, "n-%d" % index, token.get("access_token"))


def landed(driver, redirect_uri):
    return driver.current_url.startswith(redirect_uri + "?") and driver.execute_script("return document.readyState") == "complete"


def callback(driver):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))


class Axe:
    """axe-core 4.12 (the axe.min.js that PyPI axe-playwright-python ships; only the file is used, not Playwright) run
    inside the page through Selenium. It knows HTML's `webauthn` autocomplete token, which the page's identifier field
    uses for passkey autofill and which the axe-core 3 of axe-selenium-python flagged as invalid."""

    SCRIPT = os.path.join(os.path.dirname(importlib.util.find_spec("axe_playwright_python").origin), "axe.min.js")

    def __init__(self, driver):
        self.driver = driver
        with open(self.SCRIPT, encoding="utf-8") as handle:
            self.source = handle.read()
        driver.set_script_timeout(TIMEOUT)

    def inject(self):
        self.driver.execute_script(self.source)

    def run(self):
        results = self.driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            " axe.run().then(done, function (error) { done({error: String(error)}); });")
        if "error" in results:
            raise RuntimeError("axe-core: " + results["error"])
        return results


def audit(driver, axe, lang, state, shots, shoot):
    """Runs axe-core at each width; keeps the serious and critical violations."""
    found = []
    for width, height in WIDTHS:
        driver.set_window_size(width, height)
        driver.execute_script("return document.body.offsetHeight")  # layout at the new width
        axe.inject()
        results = axe.run()
        bad = [{"id": v["id"], "impact": v["impact"], "help": v["help"],
                "targets": [n["target"] for n in v["nodes"]][:5]}
               for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        found.append({"lang": lang, "state": state, "width": width, "serious_or_critical": bad,
                      "all_violations": len(results["violations"]), "passes": len(results["passes"]),
                      "html_lang": driver.execute_script("return document.documentElement.lang"),
                      "overflows": driver.execute_script(
                          "return document.documentElement.scrollWidth > document.documentElement.clientWidth")})
        if shoot:
            screenshot(driver, shots, "%s-%d" % (state, width))
    driver.set_window_size(*WIDTHS[0])
    return found


def main():
    base, client_id, secret, redirect_uri, identifier, signals, shots, plan = sys.argv[1:9]
    os.makedirs(shots, exist_ok=True)
    result = {"audits": [], "endings": []}
    rp = RelyingParty(base, client_id, secret, redirect_uri)
    driver = browser()
    axe = Axe(driver)
    last_auth_time = None
    try:
        wait = WebDriverWait(driver, TIMEOUT)
        # OIDC Core 3.1.2.1: prompt=none without a session at Tessera is login_required, at once, without a page.
        driver.get(rp.authorize_url("en", 99, {"prompt": "none"}))
        wait.until(lambda d: landed(d, redirect_uri))
        result["prompt_none_without_session"] = callback(driver).get("error")
        for index, run in enumerate(plan.split(",")):
            lang, ending, *options = run.split(":")
            extra = dict(option.split("=", 1) for option in options) or ({"prompt": "login"} if index > 0 else {})
            if "max_age" in extra and last_auth_time is not None:
                # The session's approval must be older than max_age (whole seconds on the server's clock).
                while time.time() < last_auth_time + int(extra["max_age"]) + 1.05:
                    time.sleep(0.1)
            shoot = lang == "en"
            driver.get(rp.authorize_url(lang, index, extra))
            wait.until(lambda d: page_status(d) == "identify")
            if index == 0 or not shoot:
                result["audits"] += audit(driver, axe, lang, "identify", shots, shoot)
            driver.find_element(By.ID, "identifier").send_keys(identifier)
            driver.find_element(By.ID, "submit").click()
            wait.until(lambda d: page_status(d) == "waiting")
            if index == 0 or not shoot:
                result["audits"] += audit(driver, axe, lang, "waiting", shots, shoot)
            # Hold the page on its ending while it is audited: it goes on to a fragment of itself, not yet to the app
            # (the script reads where to go when it goes).
            complete = driver.execute_script('return document.getElementById("status").dataset.completeUrl;')
            driver.execute_script('document.getElementById("status").dataset.completeUrl = "#held";')
            # The signal carries the number the page shows, for the phone to pick (number matching).
            number = driver.execute_script('var n = document.getElementById("match-number"); return n ? n.textContent : "";')
            partial = os.path.join(signals, "%d.partial" % index)
            with open(partial, "w") as f:
                f.write(number)
            os.replace(partial, os.path.join(signals, "%d.waiting" % index))
            final = {"approve": "approved", "decline": "declined", "expire": "expired"}[ending]
            wait.until(lambda d: page_status(d) not in (None, "waiting", "verifying"))
            if page_status(driver) != final:
                raise AssertionError("the page ended as %s, expected %s: %s" % (page_status(driver), final, driver.page_source[:3000]))
            states = driver.execute_script(
                'return Array.prototype.map.call(document.querySelectorAll("#progress li"), function (li) { return li.dataset.state; });')
            if ending == "approve":
                if shoot:
                    for width, height in WIDTHS:
                        driver.set_window_size(width, height)
                        screenshot(driver, shots, "approved-%d" % width)
                    driver.set_window_size(*WIDTHS[0])
                driver.get(base + complete)
                # The client offers passkeys: the offer comes between the approval and the app; the user goes on without.
                wait.until(lambda d: page_status(d) == "passkey-offer")
                if index == 0:
                    result["audits"] += audit(driver, axe, lang, "passkey-offer", shots, shoot)
                driver.find_element(By.ID, "skip-passkey").click()
            else:
                result["audits"] += audit(driver, axe, lang, final, shots, shoot)
                driver.find_element(By.CSS_SELECTOR, "#back a").click()
            wait.until(lambda d: landed(d, redirect_uri))
            query = callback(driver)
            record = {"lang": lang, "ending": ending, "options": extra, "state": final, "progress": states,
                      "code": bool(query.get("code")), "error": query.get("error"), "state_ok": query.get("state") == "audit-%d" % index}
            if query.get("code"):
                claims = rp.exchange(index, driver.current_url)
                record["auth_time"], record["sid"] = claims.get("auth_time"), claims.get("sid")
                if last_auth_time is None:
                    # The session at Tessera: prompt=none now signs in without the phone, with the same approval.
                    driver.get(rp.authorize_url(lang, 98, {"prompt": "none"}))
                    wait.until(lambda d: landed(d, redirect_uri))
                    again = callback(driver)
                    same = rp.exchange(98, driver.current_url) if again.get("code") else {}
                    result["prompt_none_with_session"] = {"error": again.get("error"), "auth_time": same.get("auth_time"),
                                                          "sid": same.get("sid")}
                last_auth_time = claims.get("auth_time")
            result["endings"].append(record)
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
