#!/usr/bin/python3
"""A real SMTP server for the SMTPClient tests, built on aiosmtpd (Debian: python3-aiosmtpd).

    /usr/bin/python3 smtp_server.py --port 2525 --mode plain|starttls|tls --mailbox DIR
        [--cert cert.pem --key key.pem] [--user U --password P] [--exclude-auth PLAIN] [--no-8bitmime]

Every accepted message is written to DIR as N.eml (the raw bytes received, dot-unstuffed) and then N.json
(envelope, TLS/AUTH facts, and headers and body as decoded by Python's email package). The server prints
"READY <port>" when it listens, and stops on SIGTERM/SIGINT or when its stdin reaches EOF (the test died).
"""
import argparse
import errno
import email
import email.policy
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class SaveHandler:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content  # bytes, whatever decode_data is
        message = email.message_from_bytes(raw, policy=email.policy.default)
        self.count += 1
        base = os.path.join(self.directory, str(self.count))
        with open(base + ".eml", "wb") as f:
            f.write(raw)
        date = message["Date"]
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "mail_options": envelope.mail_options,
            "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            "authenticated": bool(session.authenticated),
            "peer_port": session.peer[1] if session.peer else None,  # one per client connection (session reuse)
            "auth_mechanism": getattr(session.auth_data, "mechanism", None),
            "from": str(message["From"]),
            "to": str(message["To"]),
            "subject": str(message["Subject"]),
            "date_valid": date is not None and getattr(date, "datetime", None) is not None,
            "message_id": str(message["Message-ID"]),
            "mime_version": str(message["MIME-Version"]),
            "content_type": message.get_content_type(),
            "charset": message.get_content_charset(),
            "transfer_encoding": str(message["Content-Transfer-Encoding"]),
            "body": message.get_content().replace("\r\n", "\n"),  # CRLF on the wire -> LF
            "defects": [type(d).__name__ for d in message.defects],
        }
        with open(base + ".tmp", "w", encoding="utf-8") as f:
            json.dump(record, f, ensure_ascii=False, indent=1)
        os.rename(base + ".tmp", base + ".json")  # the .json appears complete or not at all
        return "250 OK: message accepted"


class Credentials:
    """aiosmtpd authenticator accepting exactly one username/password; remembers the mechanism used."""

    def __init__(self, user, password):
        self.user, self.password = user.encode(), password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login == self.user and auth_data.password == self.password)
        if not ok:
            return AuthResult(success=False, handled=False)  # aiosmtpd replies 535 5.7.8
        auth_data = argparse.Namespace(login=auth_data.login, mechanism=mechanism)
        return AuthResult(success=True, auth_data=auth_data)


def main():
    # A parent may hand down a blocked signal mask (Foundation's Process on Linux does): unblock, or SIGTERM is lost.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["plain", "starttls", "tls"], default="plain")
    parser.add_argument("--mailbox", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--exclude-auth", action="append", default=[])
    parser.add_argument("--no-8bitmime", action="store_true", help="decode_data=True: 8BITMIME not offered")
    args = parser.parse_args()

    kwargs = {}
    if args.mode != "plain":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        if args.mode == "tls":
            kwargs["ssl_context"] = context
        else:
            kwargs["tls_context"] = context
            kwargs["require_starttls"] = True
    if args.user:
        kwargs["authenticator"] = Credentials(args.user, args.password or "")
        kwargs["auth_required"] = True
        kwargs["auth_exclude_mechanism"] = args.exclude_auth
        # auth_require_tls: AUTH is offered only after STARTTLS. aiosmtpd 1.4 does not count implicit TLS as TLS
        # for this (it checks for a STARTTLS layer), so it is off for "tls"; and off for "plain", where the client
        # allows AUTH because the server is on loopback.
        kwargs["auth_require_tls"] = args.mode == "starttls"

    os.makedirs(args.mailbox, exist_ok=True)
    controller = Controller(SaveHandler(args.mailbox), hostname="127.0.0.1", port=args.port,
                            decode_data=args.no_8bitmime, **kwargs)
    try:
        controller.start()
    except OSError as error:  # the test picked a port that another process took meanwhile: it retries
        if error.errno == errno.EADDRINUSE or "address already in use" in str(error).lower():
            print(f"PORT IN USE {args.port}", flush=True)
            sys.exit(75)
        raise
    print(f"READY {args.port}", flush=True)

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    while not stop.wait(0.5):
        pass
    controller.stop()


if __name__ == "__main__":
    main()
