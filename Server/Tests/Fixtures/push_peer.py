"""A loopback APNs + FCM peer for the push tests: HTTP/2 over TLS (hypercorn), one process.

    $TESSERA_TEST_PYTHON push_peer.py --dir DIR --cert cert.pem --key key.pem \
        --apns-key apns-public.pem --apns-kid KEYID --apns-team TEAM --apns-topic com.example.app \
        --fcm-key fcm-public.pem --fcm-email svc@example.iam.gserviceaccount.com [--apns-script 503,200] [--fcm-script 404]

APNs: POST /3/device/<token> checks the ES256 provider token (signature against the public key, kid, iss, iat)
and the apns-* headers; answers the next status of --apns-script (then 200): 410 Unregistered, 400 BadDeviceToken,
429/503 (a status written 429@120 adds Retry-After: 120). FCM: POST /token checks the RS256 assertion (iss, sub,
aud = this URL, scope) and issues an access token; POST /v1/projects/<id>/messages:send checks it and answers the
next status of --fcm-script (404 = UNREGISTERED). Every request is one JSON line in DIR/records.jsonl. The bound
port is written to DIR/port once listening; the process stops when stdin reaches EOF (the test ended or died).
"""
import argparse
import asyncio
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

import jwt
from hypercorn.asyncio import serve
from hypercorn.config import Config

args = None
records_lock = threading.Lock()
apns_script = []
fcm_script = []
issued = set()


def record(entry):
    with records_lock:
        with open(os.path.join(args.dir, "records.jsonl"), "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")
            f.flush()


def next_status(script):
    text = script.pop(0) if script else "200"
    status, _, retry_after = text.partition("@")
    return int(status), retry_after or None


async def read_body(receive):
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def respond(send, status, payload, headers=()):
    data = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")] + [(k.encode(), v.encode()) for k, v in headers]})
    await send({"type": "http.response.body", "body": data})


async def apns(scope, headers, body, send):
    token = scope["path"][len("/3/device/"):]
    problems = []
    claims = {}
    auth = headers.get("authorization", "")
    try:
        if not auth.startswith("bearer "):
            raise ValueError("no bearer provider token")
        provider = auth[len("bearer "):]
        header = jwt.get_unverified_header(provider)
        if header.get("alg") != "ES256" or header.get("kid") != args.apns_kid:
            raise ValueError(f"bad header {header}")
        claims = jwt.decode(provider, open(args.apns_key).read(), algorithms=["ES256"], options={"require": ["iss", "iat"]})
        if claims["iss"] != args.apns_team:
            raise ValueError("bad iss")
    except Exception as error:  # noqa: BLE001 - any failure is a refused provider token
        problems.append(f"provider token: {error}")
    expected = {"apns-topic": args.apns_topic, "apns-push-type": "alert", "apns-priority": "10"}
    for name, value in expected.items():
        if headers.get(name) != value:
            problems.append(f"{name}={headers.get(name)!r}")
    if not headers.get("apns-expiration", "").isdigit():
        problems.append("apns-expiration")
    if not headers.get("apns-collapse-id"):
        problems.append("apns-collapse-id")
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
        problems.append("payload is not JSON")
    entry = {"provider": "apns", "token": token, "httpVersion": scope.get("http_version"), "payload": payload,
             "headers": {k: v for k, v in headers.items() if k.startswith("apns-")}, "claims": claims,
             "authorization": auth, "problems": problems, "received": time.time()}
    if problems:
        entry["status"] = 403
        record(entry)
        return await respond(send, 403, {"reason": "InvalidProviderToken"})
    status, retry_after = next_status(apns_script)
    entry["status"] = status
    record(entry)
    reasons = {410: "Unregistered", 400: "BadDeviceToken", 429: "TooManyRequests", 503: "ServiceUnavailable"}
    extra = [("retry-after", retry_after)] if retry_after else []
    if status == 200:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"apns-id", b"00000000-0000-0000-0000-000000000000")]})
        return await send({"type": "http.response.body", "body": b""})
    await respond(send, status, {"reason": reasons.get(status, "BadRequest")}, extra)


async def fcm_token(scope, headers, body, send):
    form = urllib.parse.parse_qs(body.decode())
    problems = []
    claims = {}
    own_url = f"https://localhost:{args.port}/token"
    try:
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            raise ValueError("grant_type")
        assertion = form["assertion"][0]
        if jwt.get_unverified_header(assertion).get("alg") != "RS256":
            raise ValueError("alg")
        claims = jwt.decode(assertion, open(args.fcm_key).read(), algorithms=["RS256"], audience=[own_url, own_url.replace("localhost", "127.0.0.1")],
                            options={"require": ["iss", "sub", "aud", "iat", "exp"]})
        if claims["iss"] != args.fcm_email or claims["sub"] != args.fcm_email:
            raise ValueError("iss/sub")
        if claims.get("scope") != "https://www.googleapis.com/auth/firebase.messaging":
            raise ValueError("scope")
    except Exception as error:  # noqa: BLE001
        problems.append(f"assertion: {error}")
    record({"provider": "fcm-token", "claims": claims, "problems": problems, "httpVersion": scope.get("http_version")})
    if problems:
        return await respond(send, 400, {"error": "invalid_grant"})
    access = f"ya29.test-{len(issued) + 1}"
    issued.add(access)
    await respond(send, 200, {"access_token": access, "expires_in": 3600, "token_type": "Bearer"})


async def fcm_send(scope, headers, body, send):
    auth = headers.get("authorization", "")
    problems = []
    if not auth.startswith("Bearer ") or auth[len("Bearer "):] not in issued:
        problems.append("access token")
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
        problems.append("payload is not JSON")
    token = (payload or {}).get("message", {}).get("token")
    entry = {"provider": "fcm", "path": scope["path"], "token": token, "payload": payload, "problems": problems,
             "httpVersion": scope.get("http_version")}
    if problems:
        entry["status"] = 401
        record(entry)
        return await respond(send, 401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}})
    status, retry_after = next_status(fcm_script)
    entry["status"] = status
    record(entry)
    if status == 200:
        return await respond(send, 200, {"name": f"{scope['path'].split(':')[0]}/messages/1"})
    if status == 404:
        return await respond(send, 404, {"error": {"code": 404, "status": "NOT_FOUND",
                                                   "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}})
    extra = [("retry-after", retry_after)] if retry_after else []
    await respond(send, status, {"error": {"code": status, "status": "UNAVAILABLE"}}, extra)


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    body = await read_body(receive)
    path = scope["path"]
    if scope["method"] == "POST" and path.startswith("/3/device/"):
        return await apns(scope, headers, body, send)
    if scope["method"] == "POST" and path == "/token":
        return await fcm_token(scope, headers, body, send)
    if scope["method"] == "POST" and path.startswith("/v1/projects/") and path.endswith("/messages:send"):
        return await fcm_send(scope, headers, body, send)
    await respond(send, 404, {"reason": "NotFound"})


def main():
    global args, apns_script, fcm_script
    parser = argparse.ArgumentParser()
    for name in ["--dir", "--cert", "--key", "--apns-key", "--apns-kid", "--apns-team", "--apns-topic", "--fcm-key", "--fcm-email"]:
        parser.add_argument(name, required=True)
    parser.add_argument("--apns-script", default="")
    parser.add_argument("--fcm-script", default="")
    args = parser.parse_args()
    apns_script = [s for s in args.apns_script.split(",") if s]
    fcm_script = [s for s in args.fcm_script.split(",") if s]
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.set_inheritable(True)
    args.port = sock.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{sock.fileno()}"]
    config.certfile = args.cert
    config.keyfile = args.key
    config.alpn_protocols = ["h2"]
    config.accesslog = None
    config.errorlog = "-"

    stop = asyncio.Event()

    async def run():
        loop = asyncio.get_running_loop()
        threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.set)), daemon=True).start()

        async def announce():
            # hypercorn binds the inherited socket at once; the port file tells the test it may connect.
            await asyncio.sleep(0)
            with open(os.path.join(args.dir, "port.tmp"), "w") as f:
                f.write(str(args.port))
            os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))

        loop.create_task(announce())
        await serve(app, config, shutdown_trigger=stop.wait)

    asyncio.run(run())


if __name__ == "__main__":
    main()
