"""Markdown table of one otp-send.sh run: Tessera vs privacyIDEA, ratios from the same run."""
import json
import platform
import subprocess
import sys
from pathlib import Path

out = Path(sys.argv[1])
ours = [json.loads(x) for x in (out / "tessera.jsonl").read_text().splitlines() if x.strip()]
# otp-send.sh writes: idle RSS, peak RSS, sink messages, with a code, accepted in total, duplicates, sent (n/a on SQLite)
idle, peak, sink, sink_codes, accepted_total, *extra = (out / "tessera_rss.txt").read_text().split()
duplicates = extra[0] if extra else "?"
peer = {}
if (out / "peer.jsonl").exists():
    for line in (out / "peer.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            peer[r["conc"]] = r
peer_idle = peer_peak = None
if (out / "peer_rss.txt").exists():
    for line in (out / "peer_rss.txt").read_text().splitlines():
        k, tot, *_ = line.split()
        if k == "rss_idle_fresh":
            peer_idle = int(tot)
    peak_vals = [r["rss_peak_total_mib"] for r in peer.values()]
    peer_peak = max(peak_vals) if peak_vals else None

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# OTP e-mail sends: Tessera vs privacyIDEA ({out.name})\n")
print(f"Machine: {subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}. Loopback only, one run, "
      "wrk -t2 for Tessera (release build, SQLite WAL, SMTP to an aiosmtpd sink), privacyIDEA 3.14 as set up by "
      "`../shared/peers/privacyidea` (gunicorn 2 sync workers, SQLite, SMTP to an aiosmtpd sink). "
      "Tessera's rate counts accepted sends (HTTP 202); every accepted send was then delivered and counted at the "
      "sink before the next run. Delivered can exceed accepted: wrk does not count the requests still in flight when "
      "it stops (at most the concurrency), which the server accepted and delivered too.\n")
print("| operation | conc | Tessera sends/s | p50 ms | p99 ms | delivered / accepted | privacyIDEA triggerchallenge/s | p99 ms | ratio |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in ours:
    p = peer.get(r["conc"])
    prate = f'{p["rps"]:.1f}' if p else "—"
    pp99 = f'{p["p99_ms"]:.0f}' if p else "—"
    ratio = f'**{r["rps"] / p["rps"]:.0f}×**' if p and p["rps"] else "—"
    print(f'| OTP e-mail send | {r["conc"]} | {r["rps"]:.0f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | '
          f'{r["delivered"]} / {r["accepted"]} | {prate} | {pp99} | {ratio} |')
print()
print("| memory | Tessera | privacyIDEA | ratio |")
print("|---|---:|---:|---:|")
ri = f"{peer_idle / int(idle):.1f}× less" if peer_idle else "—"
rp = f"{peer_peak / int(peak):.1f}× less" if peer_peak else "—"
print(f"| idle RSS (MiB) | {idle} | {peer_idle or '—'} | {ri} |")
print(f"| peak RSS under load (MiB) | {peak} | {peer_peak or '—'} | {rp} |")
print()
print(f"Sink total: {sink} messages received, {sink_codes} carrying a six-digit code, {duplicates} to a recipient seen "
      f"before; {accepted_total} sends accepted (warm-up included). Goal (issue 3): ≥ 25× privacyIDEA's rate with every mail delivered; idle RSS ≤ 1/5.")
PEER_README_TRIGGER = 40.7  # ../shared/peers/privacyidea/README.md, measured there on 2026-11-22
if peer:
    measured = sum(p["rps"] for p in peer.values()) / len(peer)
    best = max(r["rps"] for r in ours)
    print(f"\nCaveat: the peer's own README reports {PEER_README_TRIGGER}/s for triggerchallenge on this machine class; "
          f"this run measured {measured:.1f}/s. Against the README's figure Tessera's best rate here would be "
          f"{best / PEER_README_TRIGGER:.0f}×, short of the 25× goal; the table's ratios are the same-run figures.")
for r in ours:
    if r["other"] or r["socket_errors"] or r["refused"]:
        print(f'\nc={r["conc"]}: {r["refused"]} refused (429), {r["other"]} other answers, {r["socket_errors"]} socket errors.')
