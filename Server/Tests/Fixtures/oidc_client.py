"""A relying party of Tessera's OpenID Connect provider, played with Authlib (a real OIDC client library).

Usage: oidc_client.py MODE BASE_URL CLIENT_ID CLIENT_SECRET REDIRECT_URI IDENTIFIER
MODE: approve  - the full flow; the Swift test approves on the device. Also checks a wrong PKCE
                 verifier and a reused code (invalid_grant) and that reuse revokes the access token, at_hash,
                 and UserInfo with the token in a form body.
      session  - approve, then the session at Tessera the approval started (the cookie the script's browser keeps):
                 prompt=none and a plain second sign-in get a code without the phone, prompt=login and max_age=0 get
                 the page, a browser without the cookie gets login_required; then RP-initiated logout.
                 Needs LOGOUT_URI (a registered post-logout redirect URI) as the 7th argument.
      decline  - (or any other) the flow up to the page's final status; the completion must send the
                 browser back to the client with the OAuth error and the state, and no code.
Instead of a browser, the script fetches the hosted page, reads its form token and posts the
identifier, then follows the page's status endpoint like the page's script does.
Prints one JSON object on the last line of stdout.
"""
import json
import re
import sys
import urllib.parse

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken
from authlib.oidc.discovery import OpenIDProviderMetadata
from authlib.common.security import generate_token


def verify_id_token(id_token, meta, local, client_id, nonce, access_token=None):
    """The ID token's claims once its signature (through the JWKS), iss, aud, nonce, sub and exp are verified, as
    Authlib's CodeIDToken checks them (azp, and at_hash against the access token when it has one: OIDC Core 3.1.3.6)."""
    jwks = JsonWebKey.import_key_set(requests.get(local(meta["jwks_uri"]), timeout=30).json())
    params = {"client_id": client_id}
    if nonce:
        params["nonce"] = nonce
    if access_token:
        params["access_token"] = access_token
    claims = jwt.decode(id_token, jwks, claims_cls=CodeIDToken, claims_params=params, claims_options={
        "iss": {"essential": True, "value": meta["issuer"]},
        "aud": {"essential": True, "value": client_id},
        "nonce": {"essential": nonce is not None, "value": nonce},
        "sub": {"essential": True},
        "exp": {"essential": True},
    })
    claims.validate()
    return claims


def offline(session, token, first_claims, meta, local, client_id, secret):
    """offline_access: refresh-token rotation (RFC 6749 6, OIDC Core 12), introspection (RFC 7662) and revocation
    (RFC 7009) through Authlib's own client calls, and reuse detection that revokes the family (RFC 9700 4.14.2)."""
    out = {"first_refresh": bool(token.get("refresh_token"))}
    token_url, userinfo = local(meta["token_endpoint"]), local(meta["userinfo_endpoint"])
    introspect_url, revoke_url = local(meta["introspection_endpoint"]), local(meta["revocation_endpoint"])
    first_refresh = token["refresh_token"]
    # Authlib refreshes (client_secret_basic): a new access token, a new refresh token and an ID token of the same sign-in.
    refreshed = session.refresh_token(token_url, refresh_token=first_refresh)
    out["rotated"] = refreshed["refresh_token"] != first_refresh and refreshed["access_token"] != token["access_token"]
    claims = verify_id_token(refreshed["id_token"], meta, local, client_id, None, access_token=refreshed["access_token"])
    out["same_sign_in"] = all(claims[k] == first_claims[k] for k in ("iss", "sub", "aud", "auth_time", "azp"))
    out["refreshed_nonce"] = claims.get("nonce")
    out["refreshed_scope"] = refreshed.get("scope")
    out["userinfo"] = requests.get(userinfo, headers={"Authorization": "Bearer " + refreshed["access_token"]}, timeout=30).json()
    # A narrower scope for the access token; a wider one is invalid_scope.
    second_refresh = refreshed["refresh_token"]
    # ... sent with client_secret_post (oidcc-server-client-secret-post: the client authenticates in the body).
    narrow = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": second_refresh, "scope": "openid",
                                            "client_id": client_id, "client_secret": secret}, timeout=30)
    out["narrow"] = [narrow.status_code, narrow.json().get("scope")]
    third_refresh = narrow.json().get("refresh_token")
    narrow_info = requests.get(userinfo, headers={"Authorization": "Bearer " + narrow.json()["access_token"]}, timeout=30).json()
    out["narrow_userinfo"] = narrow_info
    wide = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": third_refresh, "scope": "openid profile"},
                         auth=(client_id, secret), timeout=30)
    out["wide"] = [wide.status_code, wide.json().get("error")]
    # Introspection by the client (RFC 7662) of its access and refresh tokens; garbage is inactive.
    out["introspect_access"] = session.introspect_token(introspect_url, token=refreshed["access_token"]).json()
    out["introspect_refresh"] = session.introspect_token(introspect_url, token=third_refresh, token_type_hint="refresh_token").json()
    out["introspect_used"] = session.introspect_token(introspect_url, token=first_refresh).json()
    out["introspect_garbage"] = session.introspect_token(introspect_url, token="oat_made_up").json()
    # Revocation (RFC 7009) of the refreshed access token: 200, then it is inactive and userinfo refuses it.
    revoked = session.revoke_token(revoke_url, token=refreshed["access_token"], token_type_hint="access_token")
    out["revoke_status"] = revoked.status_code
    out["revoked_userinfo"] = requests.get(userinfo, headers={"Authorization": "Bearer " + refreshed["access_token"]},
                                           timeout=30).status_code
    out["revoke_unknown"] = session.revoke_token(revoke_url, token="ort_made_up").status_code
    # The first refresh token again: invalid_grant, and the whole family is revoked: the current refresh token too.
    reuse = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": first_refresh}, auth=(client_id, secret),
                          timeout=30)
    out["reuse"] = [reuse.status_code, reuse.json().get("error")]
    after = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": third_refresh}, auth=(client_id, secret),
                          timeout=30)
    out["after_reuse"] = [after.status_code, after.json().get("error")]
    out["after_reuse_userinfo"] = requests.get(userinfo, headers={"Authorization": "Bearer " + narrow.json()["access_token"]},
                                               timeout=30).status_code
    out["after_reuse_introspect"] = session.introspect_token(introspect_url, token=third_refresh).json()
    return out


def sessions(browser, first, first_claims, meta, local, client_id, secret, redirect_uri, logout_uri):
    """Sessions at Tessera (OIDC Core 3.1.2.1 prompt and max_age) and RP-Initiated Logout 1.0, as a relying party
    drives them with Authlib, in the browser (a requests.Session keeping the cookie) that approved the first sign-in."""
    out = {"cookie": bool(browser.cookies.get("tessera_browser"))}
    token_url, userinfo = local(meta["token_endpoint"]), local(meta["userinfo_endpoint"])

    def authorize(agent, **extra):
        rp = OAuth2Session(client_id, secret, scope="openid email", redirect_uri=redirect_uri,
                           code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
        verifier, nonce = generate_token(48), generate_token(20)
        url, state = rp.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce, **extra)
        answer = agent.get(url, allow_redirects=False, timeout=30)
        location = answer.headers.get("Location", "")
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        return {"rp": rp, "answer": answer, "location": location, "query": query, "verifier": verifier, "nonce": nonce, "state": state}

    def exchange(step):
        token = step["rp"].fetch_token(token_url, authorization_response=step["location"], code_verifier=step["verifier"])
        claims = verify_id_token(token["id_token"], meta, local, client_id, step["nonce"], access_token=token["access_token"])
        return token, claims

    # prompt=none in the browser that approved: a code at once; the same session (sid) and approval (auth_time).
    silent = authorize(browser, prompt="none")
    out["none"] = [silent["answer"].status_code, silent["query"].get("state") == silent["state"], "code" in silent["query"]]
    token, claims = exchange(silent)
    out["first_sid"], out["none_sid"] = first_claims.get("sid"), claims.get("sid")
    out["none_auth_time_same"] = claims["auth_time"] == first_claims["auth_time"]
    # prompt=none with the first ID token as id_token_hint (oidcc-id-token-hint): silent re-authentication.
    out["hint_none_code"] = "code" in authorize(browser, prompt="none", id_token_hint=first["id_token"])["query"]
    # A sign-in without prompt: single sign-on, no phone.
    out["sso_code"] = "code" in authorize(browser)["query"]
    # prompt=login and max_age=0 ask the phone again (the page); a max_age not yet exceeded does not.
    out["login_page"] = authorize(browser, prompt="login")["answer"].status_code
    out["max_age_0_page"] = authorize(browser, max_age="0")["answer"].status_code
    out["max_age_3600_code"] = "code" in authorize(browser, max_age="3600")["query"]
    # A browser without the cookie: login_required, with the state.
    fresh = authorize(requests.Session(), prompt="none")
    out["fresh_none"] = [fresh["query"].get("error"), fresh["query"].get("state") == fresh["state"]]
    end = local(meta["end_session_endpoint"])
    # Without an ID token the user is asked first; the session stays until they confirm.
    asked = browser.get(end, params={"client_id": client_id}, allow_redirects=False, timeout=30)
    out["asked"] = [asked.status_code, 'name="csrf"' in asked.text, 'id="logout"' in asked.text]
    forged = browser.post(end, data={"client_id": client_id, "csrf": "forged"}, allow_redirects=False, timeout=30)
    out["forged_confirm"] = forged.status_code
    out["still_signed_in"] = "code" in authorize(browser, prompt="none")["query"]
    # An unregistered post_logout_redirect_uri: an error page, never a redirect.
    bad = browser.get(end, params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": logout_uri + "x", "state": "ls-1"},
                      allow_redirects=False, timeout=30)
    out["bad_uri"] = [bad.status_code, bad.headers.get("Location")]
    # RP-initiated logout with the ID token: back at the registered URI with the state; the cookie is cleared.
    done = browser.get(end, params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": logout_uri, "state": "ls-1"},
                       allow_redirects=False, timeout=30)
    out["logout"] = [done.status_code, done.headers.get("Location")]
    out["cookie_after"] = browser.cookies.get("tessera_browser")
    out["after_none"] = authorize(browser, prompt="none")["query"].get("error")
    # The session's tokens no longer work: userinfo refuses both sign-ins' access tokens.
    out["userinfo_after"] = [requests.get(userinfo, headers={"Authorization": "Bearer " + t["access_token"]}, timeout=30).status_code
                             for t in (first, token)]
    return out


def main():
    mode, base, client_id, secret, redirect_uri, identifier = sys.argv[1:7]
    meta = requests.get(base + "/.well-known/openid-configuration", timeout=30).json()
    # OIDC Discovery 3 as Authlib's metadata model checks it (oidcc-discovery-endpoint-verification): required fields,
    # RS256 among the ID token algorithms, response and subject types, the endpoints' auth methods.
    try:
        OpenIDProviderMetadata(meta).validate()
        discovery_valid = True
    except ValueError as error:
        discovery_valid = str(error)
    # The issuer may name the configured public URL; this test talks to the loopback server.
    local = lambda url: base + urllib.parse.urlsplit(url).path
    # oidcc-scope-all: every standard scope (address is accepted and has no claims: Tessera keeps no postal address).
    scope = "openid email offline_access" if mode == "offline" else "openid profile email address phone"
    session = OAuth2Session(client_id, secret, scope=scope, redirect_uri=redirect_uri,
                            code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")
    verifier = generate_token(48)
    nonce = generate_token(20)
    url, state = session.create_authorization_url(local(meta["authorization_endpoint"]), code_verifier=verifier, nonce=nonce)

    browser = requests.Session()
    page = browser.get(url, allow_redirects=False, timeout=30)
    assert page.status_code == 200, (page.status_code, page.text)
    assert page.headers["X-Frame-Options"] == "DENY" and "no-store" in page.headers["Cache-Control"], page.headers
    assert "default-src 'self'" in page.headers["Content-Security-Policy"], page.headers
    action = re.search(r'<form method="post" action="([^"]+)"', page.text).group(1)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)
    assert 'id="identifier"' in page.text and 'id="submit"' in page.text
    # A wrong form token is refused.
    forged = browser.post(base + action, data={"csrf": "csrf_forged", "identifier": identifier}, timeout=30)
    assert forged.status_code == 404, forged.status_code
    waiting = browser.post(base + action, data={"csrf": csrf, "identifier": identifier}, timeout=30)
    assert waiting.status_code == 200, (waiting.status_code, waiting.text)
    status_url = re.search(r'data-status-url="([^"]+)"', waiting.text).group(1).replace("&amp;", "&")
    complete_url = re.search(r'data-complete-url="([^"]+)"', waiting.text).group(1).replace("&amp;", "&")
    print("IDENTIFIED", flush=True)

    seen = []
    while True:
        status = browser.get(base + status_url + "&wait=25", timeout=60).json()["status"]
        seen.append(status)
        if status not in ("waiting", "verifying"):
            break
    done = browser.get(base + complete_url, allow_redirects=False, timeout=30)
    result = {"statuses": seen, "complete_status": done.status_code, "location": done.headers.get("Location"),
              "discovery_valid": discovery_valid}
    if mode not in ("approve", "offline", "session"):
        # OIDC Core 3.1.2.6: the user goes back to the client with the error and the state.
        if done.headers.get("Location"):
            result["callback"] = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(done.headers["Location"]).query))
            result["callback_base"] = done.headers["Location"].split("?")[0]
            result["state_matches"] = result["callback"].get("state") == state
            # The ended sign-in cannot be completed again.
            again = browser.get(base + complete_url, allow_redirects=False, timeout=30)
            result["complete_again"] = again.status_code
        print(json.dumps(result))
        return

    callback = done.headers["Location"]
    assert callback.startswith(redirect_uri + "?"), callback
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
    assert query["state"] == state, (query, state)
    token_url = local(meta["token_endpoint"])

    # A wrong PKCE verifier: invalid_grant.
    wrong = requests.post(token_url, data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect_uri,
                                           "code_verifier": generate_token(48)}, auth=(client_id, secret), timeout=30)
    result["wrong_verifier"] = [wrong.status_code, wrong.json(), wrong.headers.get("Cache-Control")]
    # Another redirect URI than the code was issued for: invalid_grant.
    other = requests.post(token_url, data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect_uri + "x",
                                           "code_verifier": verifier}, auth=(client_id, secret), timeout=30)
    result["wrong_redirect"] = [other.status_code, other.json()]
    # A wrong client secret: invalid_client, 401 with WWW-Authenticate.
    bad = requests.post(token_url, data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect_uri,
                                         "code_verifier": verifier}, auth=(client_id, secret + "x"), timeout=30)
    result["wrong_secret"] = [bad.status_code, bad.json(), bad.headers.get("WWW-Authenticate")]
    # The same in the form body (client_secret_post): still a challenge of a scheme the server supports (RFC 6749 5.2).
    bad = requests.post(token_url, data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect_uri,
                                         "code_verifier": verifier, "client_id": client_id, "client_secret": secret + "x"}, timeout=30)
    result["wrong_secret_post"] = [bad.status_code, bad.json(), bad.headers.get("WWW-Authenticate")]

    # The library exchanges the code (client_secret_basic, PKCE verifier).
    token = session.fetch_token(token_url, authorization_response=callback, code_verifier=verifier)
    claims = verify_id_token(token["id_token"], meta, local, client_id, nonce, access_token=token["access_token"])
    result["alg"] = claims.header["alg"]
    result["claims"] = dict(claims)
    result["userinfo"] = session.get(local(meta["userinfo_endpoint"]), timeout=30).json()
    # UserInfo by POST with the token in the header (oidcc-userinfo-post-header).
    by_header = requests.post(local(meta["userinfo_endpoint"]), headers={"Authorization": "Bearer " + token["access_token"]}, timeout=30)
    result["userinfo_post_header"] = [by_header.status_code, by_header.json()]
    # UserInfo by POST with the token in the form body (RFC 6750 2.2), and in both places (invalid_request).
    by_body = requests.post(local(meta["userinfo_endpoint"]), data={"access_token": token["access_token"]}, timeout=30)
    result["userinfo_post_body"] = [by_body.status_code, by_body.json()]
    both = requests.post(local(meta["userinfo_endpoint"]), data={"access_token": token["access_token"]},
                         headers={"Authorization": "Bearer " + token["access_token"]}, timeout=30)
    result["userinfo_both"] = [both.status_code, both.json().get("error")]

    if mode == "offline":
        result["offline"] = offline(session, token, claims, meta, local, client_id, secret)
        print(json.dumps(result))
        return
    if mode == "session":
        result["session"] = sessions(browser, token, claims, meta, local, client_id, secret, redirect_uri, sys.argv[7])
        print(json.dumps(result))
        return

    # The same code again: invalid_grant, and the access token it gave no longer works.
    again = requests.post(token_url, data={"grant_type": "authorization_code", "code": query["code"], "redirect_uri": redirect_uri,
                                           "code_verifier": verifier, "client_id": client_id, "client_secret": secret}, timeout=30)
    result["reused"] = [again.status_code, again.json()]
    after = requests.get(local(meta["userinfo_endpoint"]), headers={"Authorization": "Bearer " + token["access_token"]}, timeout=30)
    result["userinfo_after_reuse"] = after.status_code
    print(json.dumps(result))


if __name__ == "__main__":
    main()
