"""A Standard Webhooks receiver for the webhook tests: every POST is verified with the published
`standardwebhooks` library (PyPI), once per secret listed in DIR/secrets (one a line), and recorded
as one JSON line in DIR/records.jsonl.

    $TESSERA_TEST_PYTHON webhook_receiver.py --dir DIR

DIR/mode: `up` (default) answers 204 when a secret verifies the request (400 when none does);
`down` answers 503 without reading further (an outage). DIR/now, when present, holds the unix time
(seconds) the library's timestamp check compares with, so a test that moves its server's clock
(ManualClock) hours ahead keeps the five-minute tolerance meaningful. The bound port is written to
DIR/port once listening; the process stops when stdin reaches EOF (the test ended or died).
"""
import argparse
import datetime as real_datetime
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import standardwebhooks.webhooks as webhooks_module
from standardwebhooks.webhooks import Webhook

args = None


def read(name, default=""):
    try:
        with open(os.path.join(args.dir, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


class TestClock(real_datetime.datetime):
    """The library's `datetime`, whose now() is DIR/now when the test set it."""

    @classmethod
    def now(cls, tz=None):
        text = read("now")
        if text:
            return real_datetime.datetime.fromtimestamp(float(text), tz=tz)
        return real_datetime.datetime.now(tz=tz)


webhooks_module.datetime = TestClock


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *a):
        sys.stdout.write("%s\n" % (format % a))
        sys.stdout.flush()

    def answer(self, status):
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        entry = {
            "id": headers.get("webhook-id"), "timestamp": headers.get("webhook-timestamp"),
            "signature": headers.get("webhook-signature"), "path": self.path,
            "contentType": headers.get("content-type"),
        }
        if read("mode", "up") == "down":
            entry["status"] = 503
            record(entry)
            self.answer(503)
            return
        verified, errors = [], []
        for secret in [s for s in read("secrets").split("\n") if s]:
            try:
                payload = Webhook(secret).verify(body, headers)
                verified.append(True)
                errors.append(None)
                entry["payload"] = payload
            except Exception as error:  # the library's verdict, recorded for the test
                verified.append(False)
                errors.append("%s: %s" % (type(error).__name__, error))
        entry["verified"] = verified
        entry["errors"] = errors
        entry["status"] = 204 if any(verified) else 400
        if "payload" not in entry:
            entry["body"] = body.decode("utf-8", "replace")
        record(entry)
        self.answer(entry["status"])


lock = threading.Lock()


def record(entry):
    with lock:
        with open(os.path.join(args.dir, "records.jsonl"), "a") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
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
