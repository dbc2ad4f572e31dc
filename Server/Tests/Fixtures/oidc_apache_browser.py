"""Two independent relying parties in one browser: Apache httpd with mod_auth_openidc (apache_rp.py) and Authlib,
both clients of one Tessera client, driven through headless Debian Chromium with Selenium.

Usage: oidc_apache_browser.py MODE TESSERA APACHE CLIENT_ID CLIENT_SECRET IDENTIFIER SHOTS_DIR AUTHLIB_REDIRECT
MODE: approve     - Chromium opens the Apache RP's protected page, signs in on Tessera's page (the Swift test approves
                    once SHOTS_DIR/apache-waiting.png appears), lands on the protected page; mod_auth_openidc's session
                    shows the ID token (sub, sid). Then Authlib's authorization URL with prompt=none in the same
                    browser gets a code without the phone (the session at Tessera), exchanged and verified, with the
                    same sid. Then logout through mod_auth_openidc (RP-initiated, to Tessera's end_session_endpoint)
                    lands on Apache's signed-out page, and the protected page asks to sign in again.
      decline     - the device declines: the page says so and sends the browser back to mod_auth_openidc with
                    error=access_denied, which shows its error page.
      expire      - the same when the phone's request expires (the test moves the server's clock): login_required.
      cancel      - Cancel on the waiting page: back at mod_auth_openidc with access_denied.
      notyou      - "Not you?" on the waiting page: the identifier form again (the phone's request is cancelled);
                    then Cancel there: back at mod_auth_openidc with access_denied.
      backchannel - approve as above, then sign out at Tessera itself (its question page, confirmed): Tessera's
                    back-channel logout token ends mod_auth_openidc's session. After the sign-out the script writes
                    SHOTS_DIR/signed-out and waits for SHOTS_DIR/delivered (the test saw the logout delivered).
Prints one JSON object on the last line of stdout.
"""
import json
import os
import sys
import time
import urllib.parse

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
import requests  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oidc_browser import TIMEOUT, browser, page_status, screenshot, status_text  # noqa: E402
from oidc_client import verify_id_token  # noqa: E402


def loaded(driver, prefix):
    return driver.current_url.startswith(prefix) and driver.execute_script("return document.readyState") == "complete"


def sign_in_at_apache(driver, wait, apache, identifier, shots):
    driver.get(apache + "/protected/")
    wait.until(lambda d: page_status(d) == "identify")
    driver.find_element(By.ID, "identifier").send_keys(identifier)
    driver.find_element(By.ID, "submit").click()
    wait.until(lambda d: page_status(d) == "waiting")
    screenshot(driver, shots, "apache-waiting")


def session_info(driver, apache):
    driver.get(apache + "/protected/redirect_uri?info=json")
    return json.loads(driver.find_element(By.TAG_NAME, "body").text)


def wait_for_file(path):
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(path)
        time.sleep(0.05)


def main():
    mode, tessera, apache, client_id, secret, identifier, shots, authlib_redirect = sys.argv[1:9]
    os.makedirs(shots, exist_ok=True)
    meta = requests.get(tessera + "/.well-known/openid-configuration", timeout=30).json()
    result = {}
    driver = browser()
    try:
        wait = WebDriverWait(driver, TIMEOUT)
        sign_in_at_apache(driver, wait, apache, identifier, shots)
        if mode in ("decline", "expire", "cancel", "notyou"):
            if mode == "notyou":
                driver.find_element(By.ID, "not-you").click()
                wait.until(lambda d: page_status(d) == "identify")
                result["restarted"] = page_status(driver)
            if mode in ("cancel", "notyou"):
                driver.find_element(By.ID, "cancel").click()
            # The page says what happened, then goes back to the RP with the OAuth error (OIDC Core 3.1.2.6).
            wait.until(lambda d: d.current_url.startswith(apache) or page_status(d) not in ("waiting", "verifying", "identify"))
            result["page_status"] = page_status(driver)
            wait.until(lambda d: loaded(d, apache + "/protected/redirect_uri?"))
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
            result["callback_error"] = query.get("error")
            result["callback_has_state"] = bool(query.get("state"))
            result["rp_page"] = driver.find_element(By.TAG_NAME, "body").text[:2000]
            print(json.dumps(result))
            return
        wait.until(lambda d: loaded(d, apache + "/protected/") and d.find_elements(By.ID, "rp"))
        result["apache_signed_in"] = driver.find_element(By.ID, "rp").text
        screenshot(driver, shots, "apache-approved")
        info = session_info(driver, apache)
        claims = info.get("id_token") or {}
        result["apache_claims"] = {k: claims.get(k) for k in ("sub", "sid", "iss", "aud", "auth_time", "amr")}
        driver.get(apache + "/protected/")
        if mode == "backchannel":
            # Sign out at Tessera itself: no ID token, so its page asks; confirmed, every session of the browser ends.
            driver.get(tessera + "/oauth2/logout")
            wait.until(lambda d: page_status(d) == "logout")
            driver.find_element(By.ID, "logout").click()
            wait.until(lambda d: page_status(d) == "signed-out")
            result["tessera_text"] = status_text(driver)
            open(os.path.join(shots, "signed-out"), "w").close()
            wait_for_file(os.path.join(shots, "delivered"))
            # mod_auth_openidc ended its session on the logout token: the protected page asks to sign in again.
            driver.get(apache + "/protected/")
            try:
                wait.until(lambda d: page_status(d) == "identify")
            except Exception:
                print("DEBUG", driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:500], flush=True)
                raise
            result["after"] = page_status(driver)
            print(json.dumps(result))
            return
        # The second RP (Authlib), same browser, prompt=none: a code from the session at Tessera, no phone.
        local = lambda url: tessera + urllib.parse.urlsplit(url).path  # noqa: E731
        rp = OAuth2Session(client_id, secret, scope="openid email", redirect_uri=authlib_redirect,
                           code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        verifier, nonce = generate_token(48), generate_token(20)
        url, state = rp.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce,
                                                 prompt="none")
        driver.get(url)
        wait.until(lambda d: d.current_url.startswith(authlib_redirect + "?"))
        callback = driver.current_url
        token = rp.fetch_token(local(meta["token_endpoint"]), authorization_response=callback, code_verifier=verifier)
        second = verify_id_token(token["id_token"], meta, local, client_id, nonce, access_token=token["access_token"])
        result["authlib_claims"] = {k: second.get(k) for k in ("sub", "sid", "auth_time")}
        # RP-initiated logout through mod_auth_openidc: to Tessera's end_session_endpoint and back to Apache.
        driver.get(apache + "/protected/redirect_uri?logout=" + urllib.parse.quote(apache + "/signed-out.html", safe=""))
        wait.until(lambda d: loaded(d, apache + "/signed-out.html"))
        result["logged_out_at"] = driver.current_url
        # Both sessions ended: the protected page leads to Tessera's identifier form again.
        driver.get(apache + "/protected/")
        try:
            wait.until(lambda d: page_status(d) == "identify")
        except Exception:
            print("DEBUG", driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:500], flush=True)
            raise
        result["after"] = page_status(driver)
        result["authlib_userinfo_after"] = requests.get(
            local(meta["userinfo_endpoint"]), headers={"Authorization": "Bearer " + token["access_token"]}, timeout=30).status_code
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
