#!/usr/bin/python3
"""Load driver and SMTP sink for scripts/rolling-upgrade.sh (not a CI test).

    /usr/bin/python3 scripts/rolling_upgrade.py OUT_DIR SMTP_PORT CONC

Runs, in one process:
- an SMTP sink (aiosmtpd, Debian python3-aiosmtpd) on 127.0.0.1:SMTP_PORT that keeps every message received (its
  recipients and the six-digit code in its body);
- a load balancer with health checks: the instances named in OUT_DIR/control.json (written by the shell script) are
  in rotation while their GET /readyz answers 200 (checked every 0.25 s). An instance the control file no longer
  names leaves the rotation at once (the script waits until it has no request in flight, then stops it);
- CONC workers that log in by e-mail code without pause: POST /v1/otp/send to an address of its own, the code read
  from the sink, POST /v1/otp/verify. Each request goes to the next instance in rotation (round robin, no
  stickiness: a send and its verify often reach different instances, and in phase 2 different versions).

control.json: {"gen": N, "phase": "…", "client_key": "…", "instances": {"a": {"url": "http://…", "version": "old"}},
"stop": false}. The driver writes OUT_DIR/state.json (the generation applied, the rotation, requests in flight per
instance) every 0.1 s. With "stop": true it starts no more logins, finishes those under way, waits up to MAIL_WAIT s
(env, default 60) for every accepted send's message, writes OUT_DIR/driver.json and exits.

Every request is counted under the phase current when it was sent and the instance that answered it
("a-old", "b-new", …), by HTTP status or by "conn-error" (no answer: refused, reset, timed out).
"""
import email
import email.policy
import http.client
import itertools
import json
import os
import re
import sys
import threading
import time
from collections import defaultdict

from aiosmtpd.controller import Controller

OUT, SMTP_PORT, CONC = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MAIL_WAIT = float(os.environ.get("MAIL_WAIT", "60"))
CODE_WAIT = float(os.environ.get("CODE_WAIT", "30"))
RUN = time.strftime("%H%M%S")
CODE = re.compile(rb"(?<!\d)(\d{6})(?!\d)")

lock = threading.Condition()
mail = defaultdict(list)          # recipient -> [code, …], one entry a message received
control = {"gen": 0, "phase": "starting", "instances": {}, "stop": False}
healthy = {}                      # name -> bool (last /readyz)
rotation = []                     # [(name, url, version)] enabled by control.json and healthy
inflight = defaultdict(int)       # name -> requests in flight
rr = itertools.count()
stats = defaultdict(lambda: defaultdict(int))   # (phase, instance) -> counter -> n
logins = defaultdict(lambda: defaultdict(int))  # phase -> counter -> n
accepted = {}                     # recipient -> (phase, instance) of the 202
events = []                       # rotation changes, for the record
done = threading.Event()
t0 = time.monotonic()


class Sink:
    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or b""
        try:
            message = email.message_from_bytes(raw, policy=email.policy.default)
            part = message.get_body(preferencelist=("plain", "html")) or message
            text = part.get_content()
            body = text.encode() if isinstance(text, str) else bytes(text)
        except Exception:
            body = raw
        found = CODE.search(body)
        with lock:
            for rcpt in envelope.rcpt_tos:
                mail[rcpt.lower()].append(found.group(1).decode() if found else None)
            lock.notify_all()
        return "250 OK"


def log_event(text):
    events.append({"t": round(time.monotonic() - t0, 2), "event": text})
    print(f"[driver {time.monotonic() - t0:7.2f}s] {text}", flush=True)


def update_rotation():
    """Called with the lock held: the rotation is what control.json names and /readyz vouches for."""
    global rotation
    new = [(n, i["url"], i["version"]) for n, i in sorted(control["instances"].items()) if healthy.get(n)]
    if [r[0] for r in new] != [r[0] for r in rotation] or new != rotation:
        log_event(f"rotation: {[f'{n}-{v}' for n, _, v in new]} (phase {control['phase']})")
    rotation = new


def read_control():
    try:
        with open(os.path.join(OUT, "control.json")) as f:
            c = json.load(f)
    except (OSError, ValueError):
        return
    with lock:
        if c.get("gen", 0) > control["gen"]:
            for name in list(healthy):
                if name not in c["instances"] or c["instances"][name] != control["instances"].get(name):
                    healthy.pop(name)   # a new or replaced instance enters only when its /readyz answers
            control.update(c)
            update_rotation()
            lock.notify_all()


def ready(url):
    try:
        conn = http.client.HTTPConnection(url.split("//", 1)[1], timeout=2)
        conn.request("GET", "/readyz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def health_loop():
    while not done.is_set():
        read_control()
        with lock:
            targets = dict(control["instances"])
        for name, inst in targets.items():
            ok = ready(inst["url"])
            with lock:
                if control["instances"].get(name) == inst and healthy.get(name) != ok:
                    healthy[name] = ok
                    update_rotation()
                    lock.notify_all()
        time.sleep(0.25)


def state_loop():
    while not done.is_set():
        with lock:
            state = {"gen": control["gen"], "phase": control["phase"], "rotation": [r[0] for r in rotation],
                     "inflight": dict(inflight), "logins": sum(v["attempted"] for v in logins.values())}
        tmp = os.path.join(OUT, "state.json.tmp")
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, os.path.join(OUT, "state.json"))
        time.sleep(0.1)


def pick():
    """The next instance in rotation, counted in flight (None when stopping); waits while the rotation is empty."""
    with lock:
        while not rotation and not control["stop"]:
            lock.wait(0.1)
        if control["stop"] and not rotation:
            return None
        name, url, version = rotation[next(rr) % len(rotation)]
        inflight[name] += 1
        return name, url, version, control["phase"]


def call(path, body):
    """One request to the next instance in rotation: (instance label, phase, status or None, parsed JSON or None)."""
    picked = pick()
    if picked is None:
        return None
    name, url, version, phase = picked
    label = f"{name}-{version}"
    status, answer = None, None
    try:
        conn = http.client.HTTPConnection(url.split("//", 1)[1], timeout=30)
        conn.request("POST", path, json.dumps(body), {
            "Content-Type": "application/json", "X-Tessera-Client-Key": control["client_key"],
            "X-Tessera-Bundle-Id": "dev.tessera.demo", "Connection": "close"})
        response = conn.getresponse()
        status, data = response.status, response.read()
        conn.close()
        try:
            answer = json.loads(data)
        except ValueError:
            answer = data[:300].decode(errors="replace")
    except (OSError, http.client.HTTPException) as error:
        answer = repr(error)
    finally:
        with lock:
            inflight[name] -= 1
    with lock:
        s = stats[(phase, label)]
        kind = "send" if path.endswith("send") else "verify"
        s[f"{kind}"] += 1
        s[f"{kind} {status if status is not None else 'conn-error'}"] += 1
        if status is None or status >= 500:
            with open(os.path.join(OUT, "failures.jsonl"), "a") as f:
                f.write(json.dumps({"phase": phase, "instance": label, "path": path, "status": status, "answer": answer}) + "\n")
    return label, phase, status, answer


def worker(wid):
    for n in itertools.count():
        with lock:
            if control["stop"]:
                return
        address = f"r{RUN}-w{wid}-{n}@rolling.example.com"
        result = call("/v1/otp/send", {"sendType": "email", "sendTarget": address})
        if result is None:
            return
        label, phase, status, _ = result
        with lock:
            logins[phase]["attempted"] += 1
            logins[phase][f"started on {label}"] += 1
            if status == 202:
                accepted[address] = (phase, label)
        if status != 202:
            with lock:
                logins[phase]["failed: send"] += 1
            continue
        deadline = time.monotonic() + CODE_WAIT
        with lock:
            while not mail.get(address) and time.monotonic() < deadline:
                lock.wait(0.2)
            codes = list(mail.get(address, []))
        if not codes or codes[0] is None:
            with lock:
                logins[phase]["failed: no code by mail"] += 1
            continue
        result = call("/v1/otp/verify", {"sendType": "email", "sendTarget": address, "otpNumber": codes[0]})
        if result is None:
            return
        vlabel, _, vstatus, answer = result
        ok = vstatus == 200 and isinstance(answer, dict) and "disposeToken" in answer
        with lock:
            if ok:
                logins[phase]["succeeded"] += 1
                if vlabel != label:
                    logins[phase]["succeeded across instances"] += 1
            else:
                logins[phase]["failed: verify"] += 1


controller = Controller(Sink(), hostname="127.0.0.1", port=SMTP_PORT)
controller.start()
print(f"READY {SMTP_PORT}", flush=True)
for target in (health_loop, state_loop):
    threading.Thread(target=target, daemon=True).start()
workers = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(CONC)]
for w in workers:
    w.start()
while True:
    with lock:
        if control["stop"]:
            break
    time.sleep(0.1)
for w in workers:
    w.join(120)
log_event("load stopped; waiting for the mail of every accepted send")
deadline = time.monotonic() + MAIL_WAIT
with lock:
    while any(not mail.get(a) for a in accepted) and time.monotonic() < deadline:
        lock.wait(0.2)
time.sleep(2)   # a message delivered twice usually comes within the courier's next polls
done.set()
controller.stop()
with lock:
    lost = sorted(a for a in accepted if not mail.get(a))
    twice = sorted(a for a, m in mail.items() if len(m) > 1)
    unexpected = sorted(a for a in mail if a not in accepted)
    result = {
        "phases": {p: dict(v) for p, v in logins.items()},
        "requests": [{"phase": p, "instance": i, **dict(v)} for (p, i), v in stats.items()],
        "mail": {"accepted": len(accepted), "received": sum(len(m) for m in mail.values()),
                 "received_for_accepted": sum(1 for a in accepted if mail.get(a)), "lost": lost, "twice": twice,
                 "unexpected": unexpected, "without_code": sorted(a for a, m in mail.items() if None in m)},
        "events": events,
    }
with open(os.path.join(OUT, "driver.json"), "w") as f:
    json.dump(result, f, indent=1)
log_event(f"done: {len(accepted)} sends accepted, {len(lost)} without mail, {len(twice)} delivered twice")
