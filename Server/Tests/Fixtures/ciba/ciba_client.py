#!/usr/bin/env python3
"""An OpenID CIBA Core 1.0 client in poll mode, written against the specification with `requests` and PyJWT (not
Tessera's code): discovery (§4), the backchannel authentication request (§7.1) with client_secret_basic, the token
request with grant_type urn:openid:params:grant-type:ciba (§10.1), polling at the interval it was given (§7.3) and
backing off on slow_down (§11), the ID token verified through the JWKS (OIDC Core §3.1.3.7). Prints one JSON line.

Usage: ciba_client.py <issuer> <client_id> <client_secret> <scenario> <login_hint>
Scenarios: poll (until tokens or an error), fast (two polls at once: the second must be slow_down), reuse (poll
until tokens, then once more), expire (requested_expiry=1, poll until the answer is final), refused (the request
itself is refused: the reason is in the extra arguments), ping (ping mode, §10.2: a notification endpoint of the
client's own on the loopback port in the first extra argument, answering 503 to the first ping when the second is
"flaky"; the token endpoint is called once, after the ping), push (push mode, §10.3: the same receiver gets the
tokens or the error; the ID token's auth_req_id claim, at_hash and rt_hash are checked as §10.3.1 says, and the token
endpoint, which a push client must not use, is called once).

More scenarios, with the client's signing key (a PEM file of a P-256 key whose public half the test registered with
kid "client-es256") in the extra argument key=PATH:
  pkjwt: poll mode with private_key_jwt (OIDC Core §9, RFC 7523) at both endpoints, a fresh jti each time; then the
         same assertion again (a replay), and one for another audience: both invalid_client.
  lht:   login_hint_token (CIBA §7.1): a JWT the client signs naming the user by sub_id {format: email}; the phone
         approves; then an expired one (expired_login_hint_token) and one signed by a key not registered
         (invalid_request).
  usercode: the client requires user_code (discovery says backchannel_user_code_parameter_supported): without one
         missing_user_code, a wrong one invalid_user_code, an unknown user with a code invalid_user_code too; then
         with the user's code (the extra argument code=…) the request reaches the phone and the tokens come."""
import base64
import hashlib
import http.server
import json
import secrets
import sys
import threading
import time

import jwt
import requests

issuer, client_id, secret, scenario, hint = sys.argv[1:6]
extra = sys.argv[6:]
options = dict(item.partition("=")[::2] for item in extra if item.startswith(("key=", "code=")))
signing_key = open(options["key"]).read() if "key" in options else None
session = requests.Session()
session.auth = (client_id, secret)
log = []


def out(**result):
    result["log"] = log
    print(json.dumps(result))
    sys.exit(0)


discovery = session.get(issuer + "/.well-known/openid-configuration", timeout=30).json()
assert discovery["issuer"] == issuer, discovery["issuer"]
assert "poll" in discovery["backchannel_token_delivery_modes_supported"]
assert "urn:openid:params:grant-type:ciba" in discovery["grant_types_supported"]
endpoint, token_endpoint = discovery["backchannel_authentication_endpoint"], discovery["token_endpoint"]

def assertion(audience, jti=None):
    """A private_key_jwt client assertion (RFC 7523 §3)."""
    now = int(time.time())
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "jti": jti or secrets.token_urlsafe(16), "iat": now, "exp": now + 60}
    return jwt.encode(claims, signing_key, algorithm="ES256", headers={"kid": "client-es256"})


def client_auth(audience):
    """The form fields of private_key_jwt (the pkjwt scenario), else nothing (HTTP Basic through the session)."""
    if scenario != "pkjwt":
        return {}
    return {"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "client_assertion": assertion(audience)}


if scenario == "pkjwt":
    session.auth = None
    assert "private_key_jwt" in discovery["token_endpoint_auth_methods_supported"], discovery["token_endpoint_auth_methods_supported"]

form = {"scope": "openid email offline_access" if scenario == "push" else "openid email", "login_hint": hint, "binding_message": "Order 4711"}
pings, arrived = [], threading.Event()
if scenario in ("ping", "push"):
    assert scenario in discovery["backchannel_token_delivery_modes_supported"]
    form["client_notification_token"] = notification_token = secrets.token_urlsafe(24)
    flaky = len(extra) > 1 and extra[1] == "flaky"

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            pings.append({"authorization": self.headers.get("Authorization"), "type": self.headers.get("Content-Type"), "body": body.decode()})
            if flaky and len(pings) == 1:
                self.send_response(503)
                self.end_headers()
                return
            self.send_response(204)
            self.end_headers()
            arrived.set()

        def log_message(self, *args):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", int(extra[0])), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
if scenario == "expire":
    form["requested_expiry"] = "1"
if scenario in ("ping", "push"):
    # Extra arguments after the port and flaky/steady: name=value added to the request.
    for item in extra[2:]:
        name, _, value = item.partition("=")
        form[name] = value
if scenario == "lht":
    now = int(time.time())
    del form["login_hint"]
    form["login_hint_token"] = jwt.encode({"sub_id": {"format": "email", "email": hint}, "aud": issuer, "exp": now + 120},
                                          signing_key, algorithm="ES256", headers={"kid": "client-es256"})
if scenario == "usercode":
    assert discovery.get("backchannel_user_code_parameter_supported") is True
    base = {"scope": "openid", "login_hint": hint, "binding_message": "Order 4711"}
    checks = {"missing": session.post(endpoint, data=base, timeout=30).json().get("error"),
              "wrong": session.post(endpoint, data={**base, "user_code": "not-the-code"}, timeout=30).json().get("error"),
              "nobody": session.post(endpoint, data={**base, "login_hint": "nobody@example.com", "user_code": options["code"]},
                                     timeout=30).json().get("error")}
    form["user_code"] = options["code"]
if scenario == "refused":
    # extra: pairs of name=value replacing the form (name= alone removes it).
    for item in extra:
        name, _, value = item.partition("=")
        if value:
            form[name] = value
        else:
            form.pop(name, None)
started = session.post(endpoint, data={**form, **client_auth(endpoint)}, timeout=30)
log.append(["bc-authorize", started.status_code, started.text[:300]])
if started.status_code != 200:
    body = started.json()
    out(stage="bc-authorize", status=started.status_code, error=body.get("error"), cache=started.headers.get("Cache-Control"))
answer = started.json()
auth_req_id, interval = answer["auth_req_id"], answer["interval"]
assert isinstance(answer["expires_in"], int) and answer["expires_in"] > 0
print(json.dumps({"started": auth_req_id, "expires_in": answer["expires_in"], "interval": interval}), flush=True)


def poll():
    response = session.post(token_endpoint, data={"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": auth_req_id,
                                                  **client_auth(token_endpoint)}, timeout=30)
    log.append(["token", response.status_code, response.text[:200]])
    return response


if scenario == "ping":
    if not arrived.wait(120):
        out(stage="ping", error="no ping", pings=pings)
    last = pings[-1]
    bearer_ok = last["authorization"] == "Bearer " + notification_token
    body_ok = json.loads(last["body"]) == {"auth_req_id": auth_req_id}
    response = poll()
    body = response.json()
    if response.status_code != 200:
        out(stage="token", status=response.status_code, error=body.get("error"), pings=len(pings), bearer_ok=bearer_ok, body_ok=body_ok)
    keys = jwt.PyJWKClient(discovery["jwks_uri"])
    key = keys.get_signing_key_from_jwt(body["id_token"])
    claims = jwt.decode(body["id_token"], key.key, algorithms=discovery["id_token_signing_alg_values_supported"], audience=client_id, issuer=issuer)
    out(stage="tokens", sub=claims["sub"], pings=len(pings), bearer_ok=bearer_ok, body_ok=body_ok, content_type=last["type"])

def half_hash(token):
    digest = hashlib.sha256(token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()


if scenario == "push":
    if not arrived.wait(120):
        out(stage="push", error="no push", pings=pings)
    last = pings[-1]
    bearer_ok = last["authorization"] == "Bearer " + notification_token
    body = json.loads(last["body"])
    result = {"stage": "push", "pushes": len(pings), "bearer_ok": bearer_ok, "content_type": last["type"],
              "auth_req_id_ok": body.get("auth_req_id") == auth_req_id, "error": body.get("error")}
    if "id_token" in body:
        keys = jwt.PyJWKClient(discovery["jwks_uri"])
        key = keys.get_signing_key_from_jwt(body["id_token"])
        claims = jwt.decode(body["id_token"], key.key, algorithms=discovery["id_token_signing_alg_values_supported"], audience=client_id, issuer=issuer)
        result.update(sub=claims["sub"], token_type=body.get("token_type"),
                      claim_ok=claims.get("urn:openid:params:jwt:claim:auth_req_id") == auth_req_id,
                      at_hash_ok=claims.get("at_hash") == half_hash(body["access_token"]),
                      rt_hash_ok="refresh_token" in body and claims.get("urn:openid:params:jwt:claim:rt_hash") == half_hash(body["refresh_token"]))
        userinfo = requests.get(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + body["access_token"]}, timeout=30)
        result["userinfo_sub"] = userinfo.json().get("sub") if userinfo.status_code == 200 else userinfo.status_code
    polled = poll()
    result["token_endpoint"] = polled.json().get("error")
    out(**result)

if scenario == "fast":
    first, second = poll(), poll()
    out(first=first.json().get("error"), second=second.json().get("error"), status=second.status_code)

polls = 0
while True:
    time.sleep(interval)
    polls += 1
    response = poll()
    body = response.json()
    if response.status_code == 200:
        break
    if body.get("error") == "slow_down":
        interval += 5
        continue
    if body.get("error") == "authorization_pending" and polls < 120:
        continue
    out(stage="token", status=response.status_code, error=body.get("error"), polls=polls, expires_in=answer["expires_in"])

keys = jwt.PyJWKClient(discovery["jwks_uri"])
id_token = body["id_token"]
key = keys.get_signing_key_from_jwt(id_token)
claims = jwt.decode(id_token, key.key, algorithms=discovery["id_token_signing_alg_values_supported"], audience=client_id, issuer=issuer)
result = {"stage": "tokens", "sub": claims["sub"], "amr": claims.get("amr"), "nodes": claims.get("nodes"), "email": claims.get("email"), "auth_time": claims.get("auth_time"),
          "token_type": body["token_type"], "scope": body["scope"], "polls": polls}
userinfo = requests.get(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + body["access_token"]}, timeout=30)
result["userinfo_sub"] = userinfo.json().get("sub") if userinfo.status_code == 200 else userinfo.status_code
if scenario == "usercode":
    result.update(checks)
if scenario == "pkjwt":
    # RFC 7523 §3 (7): a jti used once is refused; §3 (3): the audience must be this server.
    used = assertion(token_endpoint, jti="once-" + secrets.token_hex(4))
    fields = {"grant_type": "urn:openid:params:grant-type:ciba", "auth_req_id": auth_req_id,
              "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
    first = session.post(token_endpoint, data={**fields, "client_assertion": used}, timeout=30)
    replay = session.post(token_endpoint, data={**fields, "client_assertion": used}, timeout=30)
    foreign = session.post(token_endpoint, data={**fields, "client_assertion": assertion("https://elsewhere.example.com/token")}, timeout=30)
    result.update(first=first.json().get("error"), replay=replay.json().get("error"), replay_status=replay.status_code,
                  foreign=foreign.json().get("error"))
if scenario == "lht":
    now = int(time.time())
    stale = jwt.encode({"sub_id": {"format": "email", "email": hint}, "exp": now - 60}, signing_key, algorithm="ES256",
                       headers={"kid": "client-es256"})
    from cryptography.hazmat.primitives.asymmetric import ec
    other = jwt.encode({"sub_id": {"format": "email", "email": hint}, "exp": now + 60}, ec.generate_private_key(ec.SECP256R1()),
                       algorithm="ES256", headers={"kid": "client-es256"})
    base = {"scope": "openid", "binding_message": "Order 4711"}
    result["stale"] = session.post(endpoint, data={**base, "login_hint_token": stale}, timeout=30).json().get("error")
    result["unsigned"] = session.post(endpoint, data={**base, "login_hint_token": other}, timeout=30).json().get("error")
if scenario == "reuse":
    again = poll()
    result["again"] = again.json().get("error")
    result["again_status"] = again.status_code
out(**result)
