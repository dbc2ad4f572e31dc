"""Passkey sign-in on Tessera's hosted page in headless Chromium with its virtual authenticator (CDP WebAuthn
domain: ctap2, internal transport, resident keys, user verification), Authlib as the relying party.

Usage: oidc_passkey_browser.py MODE TESSERA CLIENT_ID CLIENT_SECRET REDIRECT_URI CREDENTIAL_JSON
CREDENTIAL_JSON: {"credentialId": base64url, "privateKeyPem": PKCS#8 PEM, "userHandle": base64url, "rpId": ...}, a passkey
the test registered at Tessera; the script puts it into the virtual authenticator.
MODE: autofill - the page offers passkeys as autofill (conditional mediation) as it loads; the virtual authenticator
                 (automatic presence) answers it with the passkey: the page sends the assertion, the app receives the code;
                 Authlib exchanges it and verifies the ID token through the JWKS; prints its sub and amr.
      unknown  - the authenticator holds a passkey Tessera never registered; the button ("Sign in with a passkey") gets
                 an assertion from it, which Tessera refuses (7303): the page says the passkey is not registered here.
      no-uv    - the authenticator cannot verify the user while the page requires it: after the button, no sign-in and
                 the page says so.
      journey  - (CREDENTIAL_JSON is the identifier to type) a user with no passkey signs in with the phone (the Swift test
                 approves); the page offers a passkey and the empty authenticator creates one; sign-out; autofill signs in
                 with it; sign-out; the button signs in with it (the authenticator added after the page asked for autofill);
                 sign-out; a phone sign-in again, where a second authenticator holding the passkey is asked to add one and
                 answers InvalidStateError (the passkey is in excludeCredentials); the user goes on without. Each ID token is
                 verified by Authlib.
Prints one JSON object on the last line of stdout.
"""
import base64
import json
import os
import sys
import urllib.parse

os.environ["SE_AVOID_STATS"] = "true"  # Selenium Manager must not reach the internet.

from authlib.common.security import generate_token  # noqa: E402
from authlib.integrations.requests_client import OAuth2Session  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
import requests  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oidc_browser import TIMEOUT, browser, page_status, status_text  # noqa: E402
from oidc_client import verify_id_token  # noqa: E402


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64(data):
    return base64.b64encode(data).decode("ascii")


def journey(base, client_id, secret, redirect_uri, identifier):
    meta = requests.get(base + "/.well-known/openid-configuration", timeout=30).json()
    local = lambda url: base + urllib.parse.urlsplit(url).path  # noqa: E731
    session = OAuth2Session(client_id, secret, scope="openid email", redirect_uri=redirect_uri,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    result = {"mode": "journey"}
    driver = browser()
    wait = WebDriverWait(driver, TIMEOUT)

    def authenticator(credential=None):
        driver.execute_cdp_cmd("WebAuthn.enable", {})
        added = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
        if credential:
            driver.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": added, "credential": credential})
        return added

    def credentials(authenticator_id):
        return driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator_id})["credentials"]

    def start():
        verifier, nonce = generate_token(48), generate_token(20)
        url, state = session.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce)
        driver.get(url)
        return verifier, nonce, state

    def landed(flow):
        verifier, nonce, state = flow
        wait.until(lambda d: d.current_url.startswith(redirect_uri + "?"))
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))
        assert query.get("state") == state, query
        token = session.fetch_token(local(meta["token_endpoint"]), authorization_response=driver.current_url, code_verifier=verifier)
        claims = verify_id_token(token["id_token"], meta, local, client_id, nonce, access_token=token["access_token"])
        return {"sub": claims.get("sub"), "amr": claims.get("amr"), "id_token": token["id_token"]}

    def sign_out(signed_in):
        driver.get(local(meta["end_session_endpoint"]) + "?" + urllib.parse.urlencode({"id_token_hint": signed_in.pop("id_token")}))
        wait.until(lambda d: page_status(d) == "signed-out")

    def phone(flow):
        wait.until(lambda d: page_status(d) == "identify")
        driver.find_element(By.ID, "identifier").send_keys(identifier)
        driver.find_element(By.ID, "submit").click()
        wait.until(lambda d: page_status(d) in ("waiting", "passkey-offer"))  # the Swift test approves on the phone
        wait.until(lambda d: page_status(d) == "passkey-offer")
        return driver.find_element(By.TAG_NAME, "h1").text

    try:
        first = authenticator()
        # 1. The phone approves; the page offers a passkey; the empty authenticator creates it; on to the app.
        flow = start()
        result["offer_title"] = phone(flow)
        driver.find_element(By.ID, "add-passkey").click()
        result["phone"] = landed(flow)
        stored = credentials(first)
        result["created"] = [{"resident": c["isResidentCredential"], "rpId": c["rpId"]} for c in stored]
        credential = stored[0]
        sign_out(result["phone"])
        # 2. Autofill: the page asks as it loads, the authenticator answers with the new passkey.
        flow = start()
        result["autofill"] = landed(flow)
        sign_out(result["autofill"])
        # 3. The button: the authenticator (holding the passkey) comes after the page asked for autofill.
        credential = credentials(first)[0]
        driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": first})
        flow = start()
        wait.until(lambda d: page_status(d) == "identify")
        button = driver.find_element(By.ID, "passkey")
        wait.until(lambda d: button.is_displayed())
        second = authenticator(credential)
        button.click()
        result["button"] = landed(flow)
        sign_out(result["button"])
        # 4. A phone sign-in again, the passkey on a further authenticator added once the page waits for the phone:
        #    asked to add a passkey, it holds an excluded one, and the browser says InvalidStateError.
        credential = credentials(second)[0]
        driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": second})
        flow = start()
        phone(flow)
        third = authenticator(credential)
        driver.find_element(By.ID, "add-passkey").click()
        wait.until(lambda d: page_status(d) in ("passkey-exists", "passkey-failed"))
        result["excluded_status"] = page_status(driver)
        result["excluded_text"] = status_text(driver)
        result["excluded_count"] = len(credentials(third))
        skip = driver.find_element(By.ID, "skip-passkey")
        result["skip_text"] = skip.text
        skip.click()
        result["without"] = landed(flow)
        result["without"].pop("id_token", None)
    finally:
        driver.quit()
    print(json.dumps(result))


def main():
    mode, base, client_id, secret, redirect_uri, credential_path = sys.argv[1:7]
    if mode == "journey":
        return journey(base, client_id, secret, redirect_uri, credential_path)
    credential = json.load(open(credential_path))
    if mode == "unknown":
        key = ec.generate_private_key(ec.SECP256R1())
        credential_id = os.urandom(32)
    else:
        key = serialization.load_pem_private_key(credential["privateKeyPem"].encode("ascii"), password=None)
        credential_id = b64url_decode(credential["credentialId"])
    pkcs8 = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    meta = requests.get(base + "/.well-known/openid-configuration", timeout=30).json()
    local = lambda url: base + urllib.parse.urlsplit(url).path  # noqa: E731
    session = OAuth2Session(client_id, secret, scope="openid email", redirect_uri=redirect_uri,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    verifier, nonce = generate_token(48), generate_token(20)
    url, state = session.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce)
    result = {"mode": mode}
    driver = browser()
    try:
        def add_authenticator():
            driver.execute_cdp_cmd("WebAuthn.enable", {})
            authenticator = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
                "isUserVerified": mode != "no-uv", "automaticPresenceSimulation": True}})["authenticatorId"]
            driver.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": {
                "credentialId": b64(credential_id), "isResidentCredential": True, "rpId": credential["rpId"],
                "privateKey": b64(pkcs8), "userHandle": b64(b64url_decode(credential["userHandle"])), "signCount": 0}})
            return authenticator

        wait = WebDriverWait(driver, TIMEOUT)
        # In button mode the authenticator comes after the page asked for autofill, which then has nothing to offer.
        authenticator = add_authenticator() if mode != "button" else None
        driver.get(url)
        if mode != "autofill":
            wait.until(lambda d: page_status(d) == "identify")
            button = driver.find_element(By.ID, "passkey")
            wait.until(lambda d: button.is_displayed())
            result["button"] = button.text
            if mode == "button":
                authenticator = add_authenticator()
            button.click()
        if mode in ("autofill", "button"):
            wait.until(lambda d: d.current_url.startswith(redirect_uri + "?"))
            callback = driver.current_url
            query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
            result["state_matches"] = query.get("state") == state
            token = session.fetch_token(local(meta["token_endpoint"]), authorization_response=callback, code_verifier=verifier)
            claims = verify_id_token(token["id_token"], meta, local, client_id, nonce, access_token=token["access_token"])
            result["sub"] = claims.get("sub")
            result["amr"] = claims.get("amr")
            credentials = driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
            result["sign_count"] = credentials[0]["signCount"] if credentials else None
        else:
            wait.until(lambda d: page_status(d) == "passkey-failed")
            result["status"] = page_status(driver)
            result["text"] = status_text(driver)
            result["url"] = driver.current_url
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
