"""The browser end-to-end sign-in: Authlib (a real OIDC client library) builds the authorization request,
headless Debian Chromium driven by Selenium uses Tessera's hosted sign-in page, a device (the Swift test) approves
or declines, and Authlib exchanges the code and verifies the ID token through the JWKS.

Usage: oidc_browser.py MODE BASE_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI IDENTIFIER SHOTS_DIR LABEL
MODE: approve - Chromium must land on REDIRECT_URI with a code and the state; the code is exchanged and the
                ID token verified (signature, iss, aud, nonce).
      decline - (or cancel) the page must end with its own message and a way back, then return to REDIRECT_URI
                with error=access_denied and the state, and no code.
Screenshots go to SHOTS_DIR/LABEL-<state>.png. LABEL-waiting.png appears (written whole, then renamed) once the
page waits for the phone: the Swift test waits for that file before the device answers.
Prints one JSON object on the last line of stdout.
"""
import json
import os
import sys
import urllib.parse

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
import requests  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oidc_client import verify_id_token  # noqa: E402

# Bounds against a hung run only (a busy machine may be slow); every wait is on a condition.
TIMEOUT = 300


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1", "--window-size=1280,800"]:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def screenshot(driver, shots, name):
    """Writes the screenshot whole, then renames it: a reader never sees half a file."""
    path = os.path.join(shots, name + ".png")
    partial = os.path.join(shots, name + ".partial.png")
    assert driver.save_screenshot(partial), "screenshot failed"
    os.replace(partial, path)
    return path


def page_status(driver):
    """The page's status, read in one script call: the form's submit navigates, and an element found before the new
    page loads goes stale before its attribute is read. None while no page with a status is loaded."""
    return driver.execute_script(
        'var el = document.getElementById("status");'
        ' return document.readyState === "complete" && el ? el.getAttribute("data-status") : null;')


def status_text(driver):
    """The status element's visible text, read in one script call (see page_status)."""
    return driver.execute_script('var el = document.getElementById("status"); return el ? el.innerText : null;')


def main():
    mode, base, client_id, secret, redirect_uri, identifier, shots, label = sys.argv[1:9]
    os.makedirs(shots, exist_ok=True)
    meta = requests.get(base + "/.well-known/openid-configuration", timeout=30).json()
    # The issuer may name the configured public URL; this test talks to the loopback server.
    local = lambda url: base + urllib.parse.urlsplit(url).path  # noqa: E731
    session = OAuth2Session(client_id, secret, scope="openid email", redirect_uri=redirect_uri,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce)

    driver = browser()
    try:
        wait = WebDriverWait(driver, TIMEOUT)
        driver.get(url)
        wait.until(lambda d: page_status(d) == "identify")
        driver.find_element(By.ID, "identifier").send_keys(identifier)
        driver.find_element(By.ID, "submit").click()
        wait.until(lambda d: page_status(d) == "waiting")
        result = {"waiting_text": status_text(driver)}
        result["screenshots"] = [screenshot(driver, shots, label + "-waiting")]

        if mode != "approve":
            # The device declined or cancelled: the page says so and offers the way back, then goes back to the
            # relying party by itself with the OAuth error and the state (OIDC Core 3.1.2.6).
            wait.until(lambda d: d.current_url.startswith(redirect_uri) or page_status(d) not in ("waiting", "verifying"))
            result["page_status"] = page_status(driver)
            result["page_text"] = status_text(driver)
            result["back_shown"] = driver.execute_script(
                'var b = document.getElementById("back"); return b ? !b.hidden && b.querySelector("a").innerText : null;')
            result["url"] = driver.current_url
            result["screenshots"].append(screenshot(driver, shots, label + "-" + str(result["page_status"])))
            wait.until(lambda d: d.current_url.startswith(redirect_uri + "?") and d.execute_script("return document.readyState") == "complete")
            result["landed"] = driver.current_url.split("?")[0]
            result["callback"] = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
            result["state_matches"] = result["callback"].get("state") == state
            print(json.dumps(result))
            return

        wait.until(lambda d: d.current_url.startswith(redirect_uri + "?") and d.execute_script("return document.readyState") == "complete")
        callback = driver.current_url
        result["landed"] = callback.split("?")[0]
        result["screenshots"].append(screenshot(driver, shots, label + "-approved"))
    finally:
        driver.quit()

    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    assert query.get("state") == state, (query, state)
    # The library exchanges the code (client_secret_basic, PKCE verifier) and the ID token is verified through the JWKS.
    token = session.fetch_token(local(meta["token_endpoint"]), authorization_response=callback, code_verifier=verifier)
    claims = verify_id_token(token["id_token"], meta, local, client_id, nonce)
    result["alg"] = claims.header["alg"]
    result["claims"] = dict(claims)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
