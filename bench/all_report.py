"""bench/all.sh's report: one JSONL per scenario in the results directory (every system side by side,
normalised), bench/ALL.md (one table per scenario, the goals of issue 14 checked from the figures),
bench/charts/<scenario>.svg (throughput and p99 against concurrency) and the README's block between
the bench-all markers.   usage: python bench/all_report.py bench/results/<UTC>-all
"""
import json
import os
import statistics
import sys
from pathlib import Path

out = Path(sys.argv[1])
bench = Path(__file__).resolve().parent
root = bench.parent
meta = json.loads((out / "meta.json").read_text())


def jsonl(path):
    path = out / path
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip().startswith("{")] if path.exists() else []


def row(system, r, good, rate=None, cpu_s=None, **extra):
    """A normalised row: good answers per second, p50/p99, CPU ms per good operation."""
    dur = r.get("duration_s") or 1
    rate = good / dur if rate is None else rate
    if cpu_s is None:
        cores = r.get("server_cores", r.get("server_cpu_cores"))
        cpu_s = None if cores is None else cores * dur
    cpu_ms = None if cpu_s is None or not good else 1000 * cpu_s / good
    # PostgreSQL's own backends, where the run measured them (bench/lib.sh: db_cores)
    db_ms = None if r.get("db_cores") is None or not good else 1000 * r["db_cores"] * dur / good
    return dict(dict(system=system, conc=r["conc"], rate=rate, p50_ms=r.get("p50_ms"), p99_ms=r.get("p99_ms"), good=good,
                     total=r.get("requests", good), cpu_ms_per_op=cpu_ms, db_cpu_ms_per_op=db_ms), **extra)


SYSTEMS = {"sqlite": "Tessera SQLite", "postgres": "Tessera PostgreSQL"}
scen = {k: [] for k in ("ceiling", "totp", "introspect_result", "introspect_session", "login", "otp_email")}
for r in jsonl("ceiling-wrk.jsonl"):
    scen["ceiling"].append(row("ceiling (Tessera /healthz)", r, r["ok"]))
for db, name in SYSTEMS.items():
    for r in jsonl(f"tessera-{db}-auth/totp.jsonl"):
        scen["totp"].append(row(name, r, r["ok"]))
    for file, label in (("login", name), ("login-progress", f"{name}, progress stream")):
        for r in jsonl(f"tessera-{db}-auth/{file}.jsonl"):
            dur = r["duration_s"]
            scen["login"].append(row(label, dict(r, requests=r["ceremonies"] + r["failed"]), r["ceremonies"], rate=r["rate"],
                                     cpu_s=r.get("server_cores", 0) * dur,
                                     nodes_cpu_ms_per_op=1000 * (r["server_and_nodes_cores"] - r.get("server_cores", 0)) * dur / max(r["ceremonies"], 1)))
    for kind in ("result", "session"):
        for r in jsonl(f"tessera-{db}-introspect/introspect_{kind}.jsonl"):
            scen[f"introspect_{kind}"].append(row(name, r, r["ok"]))
    for r in jsonl(f"tessera-{db}-otp/tessera.jsonl"):
        scen["otp_email"].append(row(name, r, r["accepted"], rate=r["rps"], cpu_s=r.get("server_cpu_s"),
                                     delivered=r["delivered"],
                                     delivered_rate=r["delivered"] / r["end_to_end_s"] if r.get("end_to_end_s") else None))
for r in jsonl("privacyidea/results.jsonl"):
    if r["scenario"] == "ok":
        scen["totp"].append(row("privacyIDEA 3.14", r, r["ok"]))
    elif r["scenario"] == "trigger":
        scen["otp_email"].append(row("privacyIDEA 3.14", r, r["ok"]))
for r in jsonl("glewlwyd/results.jsonl"):
    s = r["scenario"]
    if s == "totp":
        scen["totp"].append(row("Glewlwyd 2.7.5 (WAL)", r, r["ok"]))
    elif s == "trigger":
        scen["otp_email"].append(row("Glewlwyd 2.7.5 (WAL)", r, r["ok"], delivered=r.get("mails")))
    elif s.startswith("introspect_"):
        how = "client Basic" if s.endswith("basic") else "Bearer"
        for kind in ("result", "session"):
            scen[f"introspect_{kind}"].append(row(f"Glewlwyd 2.7.5 ({how})", r, r["ok"]))
startup = jsonl("startup.jsonl")
ceiling = {r["conc"]: r["rate"] for r in scen["ceiling"]}
for rows in scen.values():
    for r in rows:
        r["ceiling_fraction"] = r["rate"] / ceiling[r["conc"]] if ceiling.get(r["conc"]) else None


def bracket(path):
    """The ceiling of a scenario's own minutes: per concurrency, the mean /healthz rate of the runs right before and
    right after it on the same server (bench/lib.sh ceiling_json)."""
    by = {}
    for r in jsonl(path):
        by.setdefault(r["conc"], []).append(r["ok"] / (r.get("duration_s") or 1))
    return {c: sum(v) / len(v) for c, v in by.items()}


for db, name in SYSTEMS.items():
    for key, path in (("totp", f"tessera-{db}-auth/ceiling.jsonl"), ("introspect_result", f"tessera-{db}-introspect/ceiling.jsonl")):
        near = bracket(path)
        for r in scen[key]:
            if r["system"] == name and near.get(r["conc"]):
                r["bracket_ceiling"] = near[r["conc"]]
                r["bracket_fraction"] = r["rate"] / near[r["conc"]]
for name, rows in scen.items():
    (out / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

TITLES = {
    "ceiling": "HTTP ceiling: `GET /healthz` of Tessera",
    "totp": "TOTP verification for a relying party",
    "introspect_result": "Introspection of ES256 result tokens",
    "introspect_session": "Introspection of session tokens (`tss_…`)",
    "login": "Node-quorum login ceremonies (three `tessera node` processes)",
    "otp_email": "OTP e-mail sends, delivered at an SMTP sink",
}
NOTES = {
    "ceiling": "wrk, 1 thread, `bench/post.lua`; the same wrk and thread count as every scenario below.",
    "totp": "Tessera: `POST /v1/rp/totp/verify`, HTTP Basic, every code correct and unused (`bench/auth.sh`, the privacyIDEA "
            "kit's wrk script); privacyIDEA: `/validate/check` with correct TOTP codes; Glewlwyd: `POST /api/auth/` TOTP "
            "scheme, `SQLITE_JOURNAL=wal`. Good = valid / ACCEPT / HTTP 200.",
    "introspect_result": "Tessera: `POST /v1/rp/introspect` (RFC 7662 form body, HTTP Basic client auth) cycling through "
                         "tokens minted by `tessera-bench tokens` (a login each); good = `\"active\":true`. Glewlwyd: its "
                         "introspection of `client_credentials` access tokens, by client Basic auth (PBKDF2 of the client "
                         "password each time) and by Bearer token.",
    "introspect_session": "Tessera: as above with the sessions granted at sign-up (`tss_…`, looked up by keyed hash, "
                          "revocation and idle checks). Glewlwyd's figures are the same runs as in the result-token table "
                          "(its access tokens are looked up by hash too).",
    "login": "`tessera-bench login`: the SDK's full flow (open channel, start with the nodes' quorum 2 of 3, "
             "user-verification signature, result token), one enrolled device per concurrent ceremony, all in one process, "
             "as `authenticate(localAuthenticator:reason:)` without `onProcess`: no progress stream is opened (3 HTTP exchanges "
             "from the client per ceremony). *progress stream*: each login also follows its progress "
             "(`onProcess`, `tessera-bench login --progress`), as an app that shows the steps does: the SDK reads each stream to "
             "its end (one more exchange, held open until the result). The SDK keeps its connections (calls and streams, up to 64 each). "
             "CPU per ceremony is the server's alone; the nodes' is in its own column. "
             "The fraction of the ceiling compares ceremonies (3 or 4 HTTP exchanges from the client each) with single requests.",
    "otp_email": "Tessera: `POST /v1/otp/send` (`bench/otp-send.sh`, wrk 1 thread), the run waits until every accepted send "
                 "reached the sink; CPU per send includes the courier's delivery. privacyIDEA: `/validate/triggerchallenge` "
                 "(admin JWT, mail sent inline); Glewlwyd: `POST /api/auth/scheme/trigger/` (mail sent inline). "
                 "\"delivered\" = messages at the sink.",
}


def fmt(v, digits=0, suffix=""):
    if v is None:
        return "–"
    if isinstance(v, float) and digits == 0 and abs(v) < 100:
        digits = 1 if abs(v) >= 10 else 2
    return f"{v:,.{digits}f}{suffix}"


def at(rows, system_prefix, conc=64):
    """The row of the system named system_prefix (else the first starting with it) at conc (or the largest concurrency run)."""
    mine = [r for r in rows if r["system"] == system_prefix] or [r for r in rows if r["system"].startswith(system_prefix)]
    exact = [r for r in mine if r["conc"] == conc]
    return exact[0] if exact else (max(mine, key=lambda r: r["conc"]) if mine else None)


def fraction(r):
    """A scenario's fraction of the ceiling: of the ceiling measured right before and after it when the bench did,
    else of the run's opening ceiling."""
    return r.get("bracket_fraction", r["ceiling_fraction"])


def of_ceiling(r):
    opening = f'{fmt(100 * (r["ceiling_fraction"] or 0), 1)} %'
    if "bracket_fraction" not in r:
        return f"{opening} of the ceiling"
    return (f'{fmt(100 * r["bracket_fraction"], 1)} % of the /healthz ceiling right before and after it '
            f'({fmt(r["bracket_ceiling"])}/s; {opening} of the run\'s opening ceiling)')


def check(ok, text, figure):
    return f"| {'✅' if ok else '❌'} | {text} | {figure} |"


goals = []
t, c = at(scen["totp"], "Tessera SQLite"), None
if t:
    goals.append(check(fraction(t) and fraction(t) >= 0.45 and t["p99_ms"] < 15,
                       "TOTP verification ≥ 45 % of the ceiling, p99 < 15 ms",
                       f'{fmt(t["rate"])}/s = {of_ceiling(t)} at c={t["conc"]}, p99 {fmt(t["p99_ms"], 1)} ms'
                       + (f' (the prepared codes ran out before the end: {t["good"]:,} of {t["total"]:,} answers good, so the rate is'
                          ' a floor; raise TOTP_USERS)' if t["good"] < t["total"] else "")))
    for peer, factor in (("Glewlwyd", 20), ("privacyIDEA", 250)):
        p = at([r for r in scen["totp"] if r["conc"] == t["conc"]], peer)
        goals.append(check(bool(p and p["rate"] and t["rate"] / p["rate"] >= factor), f"TOTP ≥ {factor}× {peer} (same run)",
                           f'{fmt(t["rate"] / p["rate"], 0)}× ({fmt(p["rate"], 1)}/s)' if p and p["rate"] else "peer not measured"))
i = at(scen["introspect_result"], "Tessera SQLite")
if i:
    goals.append(check(fraction(i) and fraction(i) >= 0.60 and i["p99_ms"] < 10,
                       "Introspection of a result token ≥ 60 % of the ceiling, p99 < 10 ms",
                       f'{fmt(i["rate"])}/s = {of_ceiling(i)} at c={i["conc"]}, p99 {fmt(i["p99_ms"], 1)} ms'))
lg = at(scen["login"], "Tessera SQLite")
if lg:
    goals.append(check(lg["rate"] >= 400 and lg["p99_ms"] < 200, "Login ceremonies ≥ 400/s, p99 < 200 ms",
                       f'{fmt(lg["rate"])}/s at c={lg["conc"]}, p99 {fmt(lg["p99_ms"], 1)} ms'))
    goals.append(check(lg["cpu_ms_per_op"] is not None and lg["cpu_ms_per_op"] <= 2.5, "Server CPU ≤ 2.5 ms per ceremony",
                       f'{fmt(lg["cpu_ms_per_op"], 2)} ms (nodes {fmt(lg["nodes_cpu_ms_per_op"], 2)} ms)'))
lp = at(scen["login"], "Tessera SQLite, progress stream")
if lp:
    goals.append(f'| ℹ️ | The same logins following their progress stream (`--progress`; not a goal of its own) | '
                 f'{fmt(lp["rate"])}/s at c={lp["conc"]}, p99 {fmt(lp["p99_ms"], 1)} ms, server {fmt(lp["cpu_ms_per_op"], 2)} ms '
                 f'(nodes {fmt(lp["nodes_cpu_ms_per_op"], 2)} ms) |')
o = at(scen["otp_email"], "Tessera SQLite")
if o:
    # Accepted and delivered: the courier keeps delivering after the load stops, so the sustained rate is
    # the messages at the sink over the time from the first send to the last delivery.
    # "Every one delivered" is judged over the whole run (warm-up and every step): a step's count is the sink's
    # growth during it, and messages of requests still in flight when the previous step stopped land in the
    # next one, so a step alone can be off by up to its concurrency either way.
    dr = o.get("delivered_rate")
    totals = out / "tessera-sqlite-otp/tessera_rss.txt"
    fields = totals.read_text().split() if totals.exists() else []
    at_sink, accepted_total = (int(fields[2]), int(fields[4])) if len(fields) >= 5 else (o["delivered"], o["good"])
    # The sink's duplicates (a recipient seen before; each send has an address of its own) and the server's own
    # count of sent messages: wrk does not count the requests in flight when it stops, which are sent all the same.
    duplicates = int(fields[5]) if len(fields) >= 6 else None
    sent = int(fields[6]) if len(fields) >= 7 and fields[6].isdigit() else None
    exact = "" if sent is None else (f' ({sent:,} sent by the server: wrk does not count the requests in flight when it stops)'
                                      if sent != accepted_total else "")
    dup = "" if duplicates is None else f', {duplicates:,} delivered twice'
    goals.append(check(o["rate"] >= 1500 and dr is not None and dr >= 1500 and at_sink >= accepted_total and not duplicates
                       and (sent is None or at_sink == sent),
                       "OTP e-mail sends ≥ 1,500/s, every one delivered",
                       f'{fmt(o["rate"])}/s accepted at c={o["conc"]}, delivered at {fmt(dr)}/s end to end; over the run '
                       f'{at_sink:,} messages at the sink for {accepted_total:,} sends accepted{exact}{dup}' if dr else f'{fmt(o["rate"])}/s at c={o["conc"]}'))
    p = at([r for r in scen["otp_email"] if r["conc"] == o["conc"]], "Glewlwyd")
    goals.append(check(bool(p and p["rate"] and o["rate"] / p["rate"] >= 5), "OTP e-mail ≥ 5× Glewlwyd's e-mail trigger",
                       f'{fmt(o["rate"] / p["rate"], 1)}× ({fmt(p["rate"], 1)}/s)' if p and p["rate"] else "peer not measured"))
def rss_mib(s):  # runs before session 12 wrote whole MiB only
    return s["idle_rss_kib"] / 1024 if "idle_rss_kib" in s else s["idle_rss_mib"]


def startup_of(label, binary):
    tries = [s for s in startup if s.get("serve", "default") == label and s.get("binary", "cached") == binary]
    if not tries:
        return None
    return dict(tries=tries, rss=statistics.median(rss_mib(s) for s in tries),
                ready=statistics.median(s["ready_ms"] for s in tries), kids=statistics.median(s["children_rss_mib"] for s in tries))


BINARY = {"cached": "binary as the build left it in the page cache", "disk": "binary read from disk, as after a reboot"}
for label, text in (("default", "zero-config `tessera serve`"), ("no-embedded-nodes", "`tessera serve --nodes-embedded 0`")):
    for binary, how in BINARY.items():
        st = startup_of(label, binary)
        if not st:
            continue
        kids = f" (its {st['tries'][0]['children']} embedded node processes {st['kids']:.0f} MiB more)" if st["tries"][0]["children"] else ""
        goals.append(check(st["rss"] <= 40, f"Idle RSS ≤ 40 MiB: {text}, {how}", f"{st['rss']:.1f} MiB{kids}"))
        goals.append(check(st["ready"] <= 300, f"Start to ready ≤ 300 ms on an existing data directory: {text}, {how}",
                           f"median {st['ready']:.0f} ms of {len(st['tries'])} ({', '.join(str(s['ready_ms']) for s in st['tries'])})"))

# The goals of issue 40: the same scenarios on PostgreSQL at c=64, beside SQLite's figure.
pg_goals = []
def beside(scenario):
    s = at(scen[scenario], "Tessera SQLite")
    return "" if not s else f' (SQLite {fmt(s["rate"])}/s' + (f', {fmt(100 * fraction(s), 1)} %' if fraction(s) else "") + ")"
def db_ms(r):
    return "" if r.get("db_cpu_ms_per_op") is None else f', PostgreSQL {fmt(r["db_cpu_ms_per_op"], 3)} ms'
for scenario, share, text in (("totp", 0.20, "TOTP verification ≥ 20 % of the ceiling"),
                              ("introspect_result", 0.30, "Introspection of a result token ≥ 30 % of the ceiling")):
    p = at(scen[scenario], "Tessera PostgreSQL")
    if p:
        pg_goals.append(check(bool(fraction(p) and fraction(p) >= share), text,
                              f'{fmt(p["rate"])}/s = {of_ceiling(p)} at c={p["conc"]}; server {fmt(p["cpu_ms_per_op"], 3)} ms{db_ms(p)} '
                              f'per operation{beside(scenario)}'))
p = at(scen["otp_email"], "Tessera PostgreSQL")
if p:
    pg_goals.append(check(bool(fraction(p) and fraction(p) >= 0.08 and p.get("delivered", 0) >= p["good"]),
                          "OTP e-mail sends ≥ 8 % of the ceiling, every one delivered, no row that every send updates",
                          f'{fmt(p["rate"])}/s = {of_ceiling(p)} at c={p["conc"]}, {p.get("delivered", 0):,} delivered for {p["good"]:,} accepted; '
                          f'server {fmt(p["cpu_ms_per_op"], 3)} ms per send{beside("otp_email")}. The app\'s and the address\'s hourly counters '
                          'are counted per instance in memory and flushed every 100 ms, a send is one statement shared by the '
                          'sends that arrive together, and audit appends go to rows of their own (the sequencer chains them)'))
p = at(scen["login"], "Tessera PostgreSQL")
if p:
    pg_goals.append(check(p["rate"] >= 400 and p["cpu_ms_per_op"] is not None and p["cpu_ms_per_op"] <= 3,
                          "Login ceremonies ≥ 400/s with ≤ 3 ms of server CPU each",
                          f'{fmt(p["rate"])}/s at c={p["conc"]}, server {fmt(p["cpu_ms_per_op"], 2)} ms{beside("login")}'))
signins = {db: next(iter(jsonl(f"tessera-{db}-oidc/results.jsonl")), None) for db in ("postgres", "sqlite")}
def signin_figure(r):
    if not r or not r.get("rate"):
        return "not measured"
    stopped = " (stopped: out of users)" if r.get("stopped") else ""
    return (f'{fmt(r["rate"])}/s{stopped} at c={r["conc"]}, p99 {fmt(r["p99_ms"])} ms, server {fmt(r["cpu_ms_per_op"], 2)} ms per sign-in, '
            f'{r.get("failed", 0)} failed')
if signins["postgres"] or pg_goals:
    pg_goals.append(f'| ℹ️ | OIDC sign-ins (`bench/oidc-signins.sh`: authorize → hosted page → the device approves → token → ID token '
                    f'checked) | PostgreSQL {signin_figure(signins["postgres"])} (SQLite {signin_figure(signins["sqlite"])}) |')
instances = {r["run"]: r for r in jsonl("instances/results.jsonl")}
if instances:
    one, pair = instances.get("one"), instances.get("pair")
    pg_goals.append(f'| ℹ️ | Two instances on one PostgreSQL behind HAProxy (OTP sends) | one instance {fmt(one["rps"]) if one else "–"}/s, '
                    f'the pair {fmt(pair["rps"]) if pair else "–"}/s; CPU per send in the table below |')

lines = [f"# All scenarios in one run ({out.name})", "",
         f"- date: {meta['date_utc']} UTC; commit {meta['commit']} ({meta['version']})",
         f"- machine: {meta['cores']} cores, {meta['cpu']}, kernel {meta['kernel']}; load average at start {meta['loadavg_start']} "
         "(the machine is shared: figures are indicative, one run)",
         f"- `DURATION={meta['duration_s']} CONCS=\"{meta['concs']}\" bash bench/all.sh`; release build, loopback, load generator "
         "on the same machine, each server alone while measured; CPU per operation from /proc (server apart from the load generator)",
         "- Tessera PostgreSQL: a local PostgreSQL started by `.ci/postgres.sh`, which sets `fsync=off`; SQLite runs "
         "in WAL mode with `synchronous=NORMAL`, which does not flush at each commit either (both survive a killed "
         "process, not a power cut). A production PostgreSQL with `fsync=on` adds a WAL flush to every commit",
         *([f"- note: {n}" for n in (out / "notes.txt").read_text().splitlines() if n.strip()] if (out / "notes.txt").exists() else []),
         "", "## Goals of issue 14 (c=64, SQLite)", "", "| | goal | figure |", "|---|---|---|", *goals]
if pg_goals:
    lines += ["", "## Goals of issue 40 (c=64, PostgreSQL)", "", "| | goal | figure |", "|---|---|---|", *pg_goals]
if instances:
    lines += ["", "## Two instances on one PostgreSQL (`bench/instances.sh`)", "",
              "OTP e-mail sends (`POST /v1/otp/send`, every accepted one awaited at the SMTP sink) at c=64: one `tessera serve` "
              "alone, then two behind HAProxy (round robin) on the same PostgreSQL. On 2 cores the pair shares the CPU of one, "
              "so the CPU per send of each process is the figure that carries to a larger machine.", "",
              "| run | sends/s | accepted | all delivered | CPU ms / send: instance a | instance b | HAProxy | PostgreSQL |",
              "|---|---:|---:|---|---:|---:|---:|---:|"]
    for name, label in (("one", "one instance, directly"), ("pair", "two instances behind HAProxy")):
        r = instances.get(name)
        if r:
            c = r["cpu_ms"]
            lines.append(f'| {label} | {fmt(r["rps"], 1)} | {r["accepted"]:,} | {"yes" if r["delivered_all"] else "no"} | '
                         f'{c["a"]:.3f} | {c["b"]:.3f} | {c["haproxy"]:.3f} | {c["postgres"]:.3f} |')
for name, rows in scen.items():
    if not rows:
        continue
    lines += ["", f"## {TITLES[name]}", "", NOTES[name], ""] + ([] if name == "ceiling" else [f"![{TITLES[name]}](charts/{name}.svg)", ""])
    extra = " delivered |" if name == "otp_email" else (" nodes CPU ms/op |" if name == "login" else "")
    lines += ["| system | conc | good/s | p50 ms | p99 ms | good / total | of ceiling | server CPU ms/op | PostgreSQL CPU ms/op |" + extra,
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|" if extra else "")]
    for r in sorted(rows, key=lambda r: (r["conc"], list(dict.fromkeys(x["system"] for x in rows)).index(r["system"]))):
        cells = [r["system"], str(r["conc"]), fmt(r["rate"]), fmt(r["p50_ms"], 2), fmt(r["p99_ms"], 2), f'{r["good"]:,} / {r["total"]:,}',
                 fmt(None if r["ceiling_fraction"] is None else 100 * r["ceiling_fraction"], 1, " %")
                 + (f' ({fmt(100 * r["bracket_fraction"], 1)} % of its own¹)' if "bracket_fraction" in r else ""), fmt(r["cpu_ms_per_op"], 3),
                 fmt(r.get("db_cpu_ms_per_op"), 3)]
        if name == "otp_email":
            cells.append("–" if r.get("delivered") is None else f'{r["delivered"]:,}'
                         + (f' ({fmt(r["delivered_rate"])}/s end to end)' if r.get("delivered_rate") else ""))
        if name == "login":
            cells.append(fmt(r.get("nodes_cpu_ms_per_op"), 2))
        lines.append("| " + " | ".join(cells) + " |")
    if any("bracket_fraction" in r for r in rows):
        lines += ["", "¹ Of the ceiling of its own minutes: the mean of the server's `/healthz` runs (same wrk, same concurrency) "
                  "right before and right after this one. The opening ceiling was measured at the start of a run that lasts "
                  "over an hour on a machine shared with other work, and moved by up to a quarter between two 5-second runs "
                  "(bench/PROFILE.md); the goals are judged against the ceiling of the scenario's own minutes."]
if startup:
    lines += ["", "## Start to ready and idle RSS of `tessera serve` (existing data directory)", "",
              "Time from exec to the first answer of `/healthz` (polled every 5 ms), RSS 3 s later. *cached*: the binary's "
              "pages in the page cache as the build wrote them; *disk*: those pages dropped first (posix_fadvise), so the "
              "start reads what it touches from disk. The kernel maps a whole cached folio (up to 2 MiB on ext4) around a "
              "page that is touched, so the same binary shows more resident text when the linker's large folios are cached.", "",
              "| serve | binary | try | ready ms | idle RSS MiB | embedded nodes' RSS MiB |", "|---|---|---:|---:|---:|---:|"]
    lines += [f'| {s.get("serve", "default")} | {s.get("binary", "cached")} | {s["try"]} | {s["ready_ms"]} | {rss_mib(s):.1f} | {s["children_rss_mib"]} |'
              for s in startup]
text = "\n".join(lines) + "\n"
(out / "ALL.md").write_text(text)
(bench / "ALL.md").write_text(text)
print(text)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib missing: no charts")
    sys.exit(0)
matplotlib.rcParams["svg.hashsalt"] = "tessera-bench"  # stable ids in the SVG
charts = bench / "charts"
charts.mkdir(exist_ok=True)
for name, rows in scen.items():
    if name == "ceiling" or not rows:
        continue
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    systems = list(dict.fromkeys(r["system"] for r in rows))
    for s in systems:
        pts = sorted((r["conc"], r["rate"], r["p99_ms"]) for r in rows if r["system"] == s)
        a1.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=s)
        a2.plot([p[0] for p in pts], [p[2] for p in pts], marker="o", label=s)
    cpts = sorted((r["conc"], r["rate"]) for r in scen["ceiling"])
    if cpts:
        a1.plot([p[0] for p in cpts], [p[1] for p in cpts], "k--", marker="x", label="ceiling (/healthz)")
    for a, label in ((a1, "good answers / s"), (a2, "p99 latency, ms")):
        a.set_xlabel("concurrency (connections)")
        a.set_ylabel(label)
        a.set_yscale("log")
        a.set_xscale("log", base=2)
        a.set_xticks(sorted({r["conc"] for r in rows}))
        a.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        a.grid(True, which="both", alpha=0.3)
    a1.legend(fontsize=8)
    fig.suptitle(f"{TITLES[name].replace('`', '')} — {meta['date_utc'][:10]}, {meta['cores']} cores {meta['cpu']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(charts / f"{name}.svg", metadata={"Date": None})
    if os.environ.get("PNG_TOO"):  # for looking at the charts where no SVG viewer is at hand
        fig.savefig(out / f"{name}.png", dpi=80)
    plt.close(fig)

# README: the block between the markers in the Performance section
readme = root / "README.md"
start, end = "<!-- bench-all:start -->", "<!-- bench-all:end -->"
body = readme.read_text()
if start in body and end in body:
    block = [start, "### All scenarios in one run (`bench/all.sh`)", "",
             f"{meta['date_utc']} UTC, {meta['cores']} cores ({meta['cpu']}, kernel {meta['kernel']}), load average at start "
             f"{meta['loadavg_start']}; one run of `bench/all.sh` (DURATION={meta['duration_s']} s), figures indicative on a shared "
             "machine. Tables, CPU per operation and the goals of issue 14: [bench/ALL.md](bench/ALL.md).", "",
             *([f"Note: {n}" for n in (out / "notes.txt").read_text().splitlines() if n.strip()] + [""] if (out / "notes.txt").exists() else []),
             "| | goal | figure |", "|---|---|---|", *goals, ""]
    block += [f"![{TITLES[n]}](bench/charts/{n}.svg)" for n, rows in scen.items() if n != "ceiling" and rows]
    block.append(end)
    readme.write_text(body[:body.index(start)] + "\n".join(block) + body[body.index(end) + len(end):])
