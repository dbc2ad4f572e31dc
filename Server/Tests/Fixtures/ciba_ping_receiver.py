"""A CIBA client's notification endpoint (CIBA Core 1.0 §10.2) for the ping tests: every POST is recorded as one
JSON line in DIR/records.jsonl (its Authorization header and JSON body) when DIR/mode is `up` (the default, answer
204); when it is `down` the POST is counted in DIR/refused and answered 503 (an outage).

    $TESSERA_TEST_PYTHON ciba_ping_receiver.py --dir DIR

The bound port is written to DIR/port once listening; the process stops when stdin reaches EOF.
"""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = None
lock = threading.Lock()


def read(name, default=""):
    try:
        with open(os.path.join(args.dir, name)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return default


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
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with lock:
            if read("mode", "up") == "down":
                refused = int(read("refused", "0") or "0") + 1
                with open(os.path.join(args.dir, "refused"), "w") as f:
                    f.write(str(refused))
                self.answer(503)
                return
            with open(os.path.join(args.dir, "records.jsonl"), "a") as f:
                f.write(json.dumps({"authorization": self.headers.get("authorization"), "type": self.headers.get("content-type"),
                                    "body": json.loads(body or b"null")}) + "\n")
        self.answer(204)


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
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
