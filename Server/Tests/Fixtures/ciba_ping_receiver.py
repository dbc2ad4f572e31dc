"""A CIBA client's notification endpoint (CIBA Core 1.0 §10.2) for the ping tests: every POST is recorded as one
JSON line in DIR/records.jsonl (its Authorization header and JSON body) when DIR/mode is `up` (the default, answer
204); when it is `down` the POST is counted in DIR/refused and answered 503 (an outage).

    $TESSERA_TEST_PYTHON ciba_ping_receiver.py --dir DIR

With --tls it serves HTTPS with a self-signed certificate for 127.0.0.1, written to DIR/cert.pem first (the
server under test trusts it through webhooks.caFile). The bound port is written to DIR/port once listening; the
process stops when stdin reaches EOF.
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


def tls_context():
    """A self-signed certificate for 127.0.0.1 (cryptography), written to DIR/cert.pem, and a server context with it."""
    import datetime
    import ipaddress
    import ssl
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(args.dir, "cert.pem"), os.path.join(args.dir, "key.pem")
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--tls", action="store_true")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if args.tls:
        server.socket = tls_context().wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(os.path.join(args.dir, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
