"""Keycloak's side of the CIBA "HTTP Authentication Channel" contract, for the tests of Tessera as that channel.

Written from Keycloak's documented behaviour (HttpAuthenticationChannelProvider and
BackchannelAuthenticationCallbackEndpoint), not from Tessera's code:
- Keycloak POSTs an AuthenticationChannelRequest as JSON (`login_hint`, `scope`, `is_consent_required`,
  `binding_message`, `acr_values`) to the channel's URI with `Authorization: Bearer <JWT>`. The JWT is an
  AccessToken that the realm signs (RS256, the realm key's `kid`): `typ` Bearer, `iss` and `aud` the realm's
  issuer, `jti` the authentication result ID, `azp` the client, `sub`, `iat`, `exp`. Keycloak wants 201.
- The channel later POSTs `{"status": "SUCCEED" | "UNAUTHORIZED" | "CANCELLED"}` to the realm's
  `/protocol/openid-connect/ext/ciba/auth/callback` with `Authorization: Bearer <the same JWT>`; Keycloak checks the
  token (its signature, issuer, audience, expiry) and answers 200.

    $TESSERA_TEST_PYTHON keycloak_channel_stub.py --dir DIR

The realm's keys (an RS256 signing key and, as Keycloak's certs endpoint also lists one, an RSA-OAEP encryption key)
are written to DIR/jwks.json, the bound port to DIR/port. The realm's issuer is http://127.0.0.1:PORT/realms/demo.
`POST /start` (the test's control call, JSON: tessera, client_key, login_hint, binding_message, and optionally jti,
exp_in, foreign_key) plays Keycloak's request to the channel and answers Tessera's status and body. Each callback is
recorded as one JSON line in DIR/records.jsonl (its status, whether the bearer token is a valid one this realm
issued, its jti). The process stops when stdin reaches EOF.
"""
import argparse
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

args = None
lock = threading.Lock()
realm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
foreign_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
encryption_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = "realm-rs256"
issuer = None


def jwk(key, kid, alg, use):
    entry = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    entry.update(kid=kid, alg=alg, use=use)
    return entry


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *a):
        sys.stdout.write("%s\n" % (format % a))
        sys.stdout.flush()

    def answer(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"null")
        if self.path == "/start":
            self.answer(200, start(body))
        elif self.path == "/realms/demo/protocol/openid-connect/ext/ciba/auth/callback":
            self.callback(body)
        else:
            self.answer(404, {"error": "not_found"})

    def callback(self, body):
        """BackchannelAuthenticationCallbackEndpoint: the bearer token checked as Keycloak checks it."""
        auth = self.headers.get("authorization") or ""
        token_ok, jti = False, None
        if auth.startswith("Bearer "):
            try:
                # The test's server may run on an injected clock past the token's expiry: the expiry is checked
                # and reported separately from the signature, issuer and audience.
                claims = jwt.decode(auth[7:], realm_key.public_key(), algorithms=["RS256"], audience=issuer, issuer=issuer,
                                    options={"verify_exp": False})
                token_ok, jti = claims.get("typ") == "Bearer", claims["jti"]
            except jwt.PyJWTError as error:
                sys.stdout.write(f"callback token refused: {error}\n")
        status = body.get("status") if isinstance(body, dict) else None
        with lock:
            with open(os.path.join(args.dir, "records.jsonl"), "a") as f:
                f.write(json.dumps({"status": status, "token_ok": token_ok, "jti": jti,
                                    "type": self.headers.get("content-type")}) + "\n")
        if not token_ok:
            self.answer(403, {"error": "invalid_token", "error_description": "Invalid token"})
        elif status not in ("SUCCEED", "UNAUTHORIZED", "CANCELLED"):
            self.answer(400, {"error": "invalid_request", "error_description": "Invalid authentication status"})
        else:
            self.answer(200, {})


def start(options):
    """HttpAuthenticationChannelProvider.requestAuthentication: the bearer token and the channel request."""
    now = int(time.time())
    claims = {"typ": "Bearer", "iss": issuer, "aud": issuer, "jti": options.get("jti") or str(uuid.uuid4()),
              "azp": "ciba-client", "sub": "f:realm-user", "iat": now, "exp": now + int(options.get("exp_in", 120))}
    key = foreign_key if options.get("foreign_key") else realm_key
    token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": KID})
    request = {"binding_message": options.get("binding_message"), "login_hint": options["login_hint"],
               "is_consent_required": False, "acr_values": None, "scope": "openid profile"}
    answer = requests.post(f"{options['tessera']}/v1/ciba/channel/{options['client_key']}", json=request,
                           headers={"authorization": "Bearer " + token}, timeout=60)
    try:
        body = answer.json() if answer.content else None
    except ValueError:
        body = answer.text
    return {"status": answer.status_code, "body": body, "jti": claims["jti"]}


def main():
    global args, issuer
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    issuer = f"http://127.0.0.1:{server.server_address[1]}/realms/demo"
    with open(os.path.join(args.dir, "jwks.json"), "w") as f:
        json.dump({"keys": [jwk(realm_key, KID, "RS256", "sig"), jwk(encryption_key, "realm-enc", "RSA-OAEP", "enc")]}, f)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(args.dir, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
