"""Writes the summary table of bench/auth.sh (markdown) from its results directory."""
import json
import os
import platform
import subprocess
import sys

out, rss = sys.argv[1], sys.argv[2]


def rows(name):
    path = os.path.join(out, name)
    return [json.loads(line) for line in open(path) if line.strip()] if os.path.exists(path) else []


login, totp, peer = rows("login.jsonl"), rows("totp.jsonl"), [r for r in rows("privacyidea.jsonl") if r.get("scenario") == "ok"]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# Authentication and TOTP verification ({os.path.basename(out)})\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; release build, SQLite WAL, loopback, "
      "load generators on the same machine. Figures from one run of `bench/auth.sh`.\n")
print("## Login ceremonies (three `tessera node` processes, quorum 2 of 3)\n")
print("One ceremony is the SDK's full flow: open channel + start (device signature, the quorum's 2 nodes asked, the third "
      "a spare for one that fails or is slow, 2 Ed25519 attestations) + result (user-verification signature, ES256 result "
      "token): 3 signed requests per ceremony. *progress*: the same with `--progress`, each login also following its "
      "progress stream (server-sent events), as an app that shows the steps does.\n")
print("| conc | ceremonies/s | p50 ms | p99 ms | completed | failed | CPU (server + nodes, cores) | goal |")
print("|---:|---:|---:|---:|---:|---:|---:|---|")
for r in login + [dict(r, progress=True) for r in rows("login-progress.jsonl")]:
    goal = "≥ 400/s, p99 < 200 ms" if r["conc"] == 64 and not r.get("progress") else ""
    print(f'| {r["conc"]}{" progress" if r.get("progress") else ""} | {r["rate"]:.0f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | '
          f'{r["ceremonies"]} | {r["failed"]} | {r.get("server_and_nodes_cores", 0):.2f} | {goal} |')
print("\n## TOTP verification for the relying party, side by side with privacyIDEA 3.14\n")
print("Every request carries a correct code not used before (Tessera: each user's code of this step, then of the next; "
      "privacyIDEA: the peer's own body generator). Same wrk script (`../shared/peers/privacyidea/bench.lua`, 1 thread) for both; "
      "\"good\" means the answer said valid/ACCEPT.\n")
print("| conc | Tessera verifies/s | p50 ms | p99 ms | good / total | privacyIDEA /validate/check /s | p50 ms | p99 ms | good / total | ratio |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for t in totp:
    p = next((x for x in peer if x["conc"] == t["conc"]), None)
    good_rate = t["ok"] / t["duration_s"]
    if p:
        p_rate = p["ok"] / p["duration_s"]
        print(f'| {t["conc"]} | {good_rate:.0f} | {t["p50_ms"]:.2f} | {t["p99_ms"]:.2f} | {t["ok"]} / {t["requests"]} | '
              f'{p_rate:.1f} | {p["p50_ms"]:.0f} | {p["p99_ms"]:.0f} | {p["ok"]} / {p["requests"]} | {good_rate / p_rate:.0f}× |')
    else:
        print(f'| {t["conc"]} | {good_rate:.0f} | {t["p50_ms"]:.2f} | {t["p99_ms"]:.2f} | {t["ok"]} / {t["requests"]} | – | – | – | – | – |')
print("\nGoal: TOTP verify ≥ 100× privacyIDEA with p99 < 20 ms at c=64.")
print(f"\nTessera server peak RSS during the run: {rss} MiB.")
