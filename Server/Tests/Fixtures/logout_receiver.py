"""A relying party's back-channel logout endpoint (OpenID Connect Back-Channel Logout 1.0) for the logout tests:
every POST's logout_token is validated as section 2.6 says, with Authlib (PyPI) against the provider's JWKS, and
recorded as one JSON line in DIR/records.jsonl.

    $TESSERA_TEST_PYTHON logout_receiver.py --dir DIR --issuer ISSUER --jwks JWKS_URL_OR_FILE --audience CLIENT_ID

Checks: the signature (a key of the JWKS, fetched again on an unknown kid), iss, aud, iat and exp, the
`events` claim with the back-channel logout member (a JSON object), `sid` (and `sub`), no `nonce`, and the
`typ` header `logout+jwt`. Answers 200 when the token is valid, 400 with an error otherwise (2.8); DIR/mode `down`
answers 503 (an outage). The bound port is written to DIR/port once listening; the process
stops when stdin reaches EOF.
"""
import argparse
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from authlib.jose import JsonWebKey, jwt

EVENT = "http://schemas.openid.net/event/backchannel-logout"
args = None
lock = threading.Lock()


def read(name, default=""):
    try:
        with open(os.path.join(args.dir, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


def record(entry):
    with lock:
        with open(os.path.join(args.dir, "records.jsonl"), "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")


def validate(token):
    """Back-Channel Logout 1.0 2.6, steps 1-7 (jti replay is the test's to count)."""
    if args.jwks.startswith("http"):
        keys = requests.get(args.jwks, timeout=30).json()
    else:  # a file the test wrote (instances without a listener)
        with open(args.jwks) as f:
            keys = json.load(f)
    jwks = JsonWebKey.import_key_set(keys)
    claims = jwt.decode(token, jwks, claims_options={
        "iss": {"essential": True, "value": args.issuer},
        "aud": {"essential": True, "value": args.audience},
        "iat": {"essential": True},
        "exp": {"essential": True},
        "jti": {"essential": True},
    })
    claims.validate(now=int(time.time()), leeway=60)
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(EVENT), dict):
        raise ValueError("events lacks the back-channel logout member")
    if not claims.get("sid") and not claims.get("sub"):
        raise ValueError("neither sid nor sub")
    if "nonce" in claims:
        raise ValueError("a logout token must not contain nonce")
    if claims.header.get("typ") != "logout+jwt":
        raise ValueError("typ is %r, not logout+jwt" % claims.header.get("typ"))
    return dict(claims), dict(claims.header)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *a):
        sys.stdout.write("%s\n" % (format % a))
        sys.stdout.flush()

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.send_header("cache-control", "no-store")
        if body:
            self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        if read("mode", "up") == "down":
            record({"status": 503})
            self.answer(503)
            return
        entry = {"path": self.path, "contentType": self.headers.get("content-type")}
        form = urllib.parse.parse_qs(body)
        token = (form.get("logout_token") or [None])[0]
        try:
            if entry["contentType"] != "application/x-www-form-urlencoded" or not token:
                raise ValueError("expected a form with logout_token")
            entry["claims"], entry["header"] = validate(token)
            entry["verified"] = True
            entry["status"] = 200
        except Exception as error:  # the library's verdict, recorded for the test
            entry["verified"] = False
            entry["error"] = "%s: %s" % (type(error).__name__, error)
            entry["status"] = 400
        record(entry)
        if entry["status"] == 200:
            self.answer(200)
        else:
            self.answer(400, json.dumps({"error": "invalid_request", "error_description": entry["error"]}).encode())


def main():
    global args
    parser = argparse.ArgumentParser()
    for name in ("--dir", "--issuer", "--jwks", "--audience"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(args.dir, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    sys.stdin.read()  # until EOF
    os._exit(0)


if __name__ == "__main__":
    main()
