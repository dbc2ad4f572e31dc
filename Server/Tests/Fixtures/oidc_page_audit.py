"""The hosted sign-in page, audited: headless Debian Chromium (Selenium) walks it in English, German and Korean
through every state (identify, waiting, and an ending: approved, declined or expired), and axe-core (PyPI
axe-selenium-python, run inside the page) checks each state at 390 px and 1280 px wide.

Usage: oidc_page_audit.py BASE_URL CLIENT_ID REDIRECT_URI IDENTIFIER SIGNAL_DIR SHOTS_DIR PLAN
PLAN: comma-separated LANG:ENDING runs, e.g. en:approve,en:decline,en:expire,de:decline,ko:decline. Each run
      starts a sign-in with ui_locales=LANG, types IDENTIFIER, and once the page waits for the phone writes
      SIGNAL_DIR/<index>.waiting: the Swift test then approves, declines, or moves the server's clock past the
      request's lifetime. The page's automatic return to the app is held (it goes to a fragment of itself) while
      the ending is audited; then the page's own "Back to" link, or the
      completion URL, is followed.
Screenshots of the English run's states go to SHOTS_DIR/<state>-<width>.png.
Prints one JSON object on the last line of stdout: the audits (violations of impact serious or critical, and
the count of all), the endings (where the browser landed, and with what).
"""
import base64
import hashlib
import json
import os
import sys
import urllib.parse

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from axe_selenium_python import Axe  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oidc_browser import TIMEOUT, browser, page_status, screenshot  # noqa: E402

WIDTHS = [(1280, 800), (390, 844)]
VERIFIER = "v" * 43


def authorize_url(base, client_id, redirect_uri, lang, index):
    challenge = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()
    query = {"client_id": client_id, "redirect_uri": redirect_uri, "response_type": "code", "scope": "openid email",
             "state": "audit-%d" % index, "nonce": "n-%d" % index, "code_challenge": challenge,
             "code_challenge_method": "S256", "ui_locales": lang}
    if index > 0:
        # The approved run left a session at Tessera in this browser: prompt=login asks the phone again.
        query["prompt"] = "login"
    return base + "/oauth2/authorize?" + urllib.parse.urlencode(query)


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
    base, client_id, redirect_uri, identifier, signals, shots, plan = sys.argv[1:8]
    os.makedirs(shots, exist_ok=True)
    result = {"audits": [], "endings": []}
    driver = browser()
    axe = Axe(driver)
    try:
        wait = WebDriverWait(driver, TIMEOUT)
        for index, run in enumerate(plan.split(",")):
            lang, ending = run.split(":")
            shoot = lang == "en"
            driver.get(authorize_url(base, client_id, redirect_uri, lang, index))
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
                driver.get(base + complete)
            else:
                result["audits"] += audit(driver, axe, lang, final, shots, shoot)
                driver.find_element(By.CSS_SELECTOR, "#back a").click()
            wait.until(lambda d: d.current_url.startswith(redirect_uri + "?") and d.execute_script("return document.readyState") == "complete")
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
            result["endings"].append({"lang": lang, "ending": ending, "state": final, "progress": states,
                                      "code": bool(query.get("code")), "error": query.get("error"),
                                      "state_ok": query.get("state") == "audit-%d" % index})
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
