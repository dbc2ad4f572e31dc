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


def main():
    mode, base, client_id, secret, redirect_uri, credential_path = sys.argv[1:7]
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
