#!/usr/bin/python3
"""Counting SMTP sink for the benchmark (aiosmtpd, Debian python3-aiosmtpd).

    /usr/bin/python3 smtp_sink.py PORT COUNT_FILE

Accepts every message, remembers the recipients and writes to COUNT_FILE (rewritten at most every 100 ms and at
exit) three numbers: the messages received so far, those of them that carry a six-digit code, and the duplicates
(messages to a recipient list already seen: the bench sends each code to an address of its own, so a message
delivered twice shows here). Stops on SIGTERM.
"""
import asyncio
import os
import signal
import sys
import threading
import time

from aiosmtpd.controller import Controller

port, count_file = int(sys.argv[1]), sys.argv[2]
state = {"count": 0, "written": 0.0, "codes_ok": 0, "duplicates": 0}
seen = set()
lock = threading.Lock()


def flush(force=False):
    now = time.monotonic()
    if force or now - state["written"] > 0.1:
        state["written"] = now
        tmp = count_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f'{state["count"]} {state["codes_ok"]} {state["duplicates"]}\n')
        os.replace(tmp, count_file)


class Counter:
    async def handle_DATA(self, server, session, envelope):
        body = envelope.original_content or b""
        with lock:
            state["count"] += 1
            recipients = ",".join(sorted(envelope.rcpt_tos))
            if recipients in seen:
                state["duplicates"] += 1
            seen.add(recipients)
            # every message must carry a six-digit code
            if any(len(w) == 6 and w.isdigit() for w in body.replace(b".", b" ").split()):
                state["codes_ok"] += 1
            flush()
        return "250 OK"


controller = Controller(Counter(), hostname="127.0.0.1", port=port)
controller.start()
flush(force=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
signal.signal(signal.SIGINT, lambda *_: stop.set())
print(f"READY {port}", flush=True)
while not stop.wait(0.5):
    with lock:
        flush(force=True)
controller.stop()
with lock:
    flush(force=True)
