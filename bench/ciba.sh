#!/usr/bin/env bash
# CIBA benchmark (issue 39), loopback only, one release build of `tessera serve` on SQLite with its three embedded
# nodes. Writes bench/results/<UTC>-ciba/ and bench/CIBA.md.
#  One request = POST /oauth2/bc-authorize (client_secret_basic, login_hint, binding_message) → the user's device
#  finds the request (it polls /v1/auth/pending) and approves it with the node quorum (2 of 3) → the client's first
#  poll of the token endpoint with the CIBA grant → the ID token checked through the JWKS. Each worker first signs a
#  user up through the SDK (not measured). The server's CPU (its own and its nodes') per request is reported.
#  Then ping notifications per second (`tessera-bench ciba-ping`): the client switched to ping mode with its endpoint at
#  the load generator's own receiver; ping-mode requests (users that do not exist: no phone) made for WINDOW seconds,
#  all due within one second of the same moment; pings (each checked: bearer token, auth_req_id) counted from then.
#   env: DURATION=10 CONC=64 PORT=8099 WINDOW=10 PINGS=4000 BUILD=debug (script checks only: figures not comparable)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONC=${CONC:-64}
PORT=${PORT:-8099}
WINDOW=${WINDOW:-10}
PINGS=${PINGS:-4000}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-ciba
mkdir -p "$OUT"
source bench/lib.sh
build_release

start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
PID=$TPID
trap 'kill $PID 2>/dev/null || true' EXIT
ADMIN=(--server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN")
SECRET=$("$BIN" admin client rotate-secret "$KEY" "${ADMIN[@]}" | awk '/client secret:/{print $3}')

: > "$OUT/results.jsonl"
CPU_PIDS=()
for p in $PID $(pgrep -P "$PID" || true); do CPU_PIDS+=(--cpu-pid "$p"); done
run_json ciba-poll -- ciba --server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" --outbox "$OUT/data" \
  --duration "$DURATION" --concurrency "$CONC" --prefix c1 --run-number 1
RPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" admin client ciba "$KEY" --mode ping --notification-endpoint "http://127.0.0.1:$RPORT/ping" "${ADMIN[@]}" > /dev/null
run_json ciba-ping -- ciba-ping --server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" --receiver-port "$RPORT" \
  --count "$PINGS" --window "$WINDOW" --concurrency "$CONC"
python3 - "$OUT" "${BUILD:-release}" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, build = sys.argv[1], sys.argv[2]
rows = {r["bench"]: r for r in (json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip())}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# CIBA requests to tokens ({out.rsplit('/', 1)[-1]})\n")
if build != "release":
    print(f"**{build} build: these figures only show that the script works; they are not comparable with release figures.**\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; {build} build, SQLite WAL, 3 embedded nodes, "
      "load generator `tessera-bench ciba` on the same machine, loopback.\n")
print("One request = `POST /oauth2/bc-authorize` → the device finds the request and approves it (node quorum, 2 of 3) → the "
      "client's token request with `grant_type=urn:openid:params:grant-type:ciba` → the ID token checked through the JWKS. "
      "Server CPU: the server's and its embedded nodes' user + system time during the measured phase, per completed request. "
      "The goal (issue 39) is 400 requests/s at c=64 on SQLite.\n")
print("| mode | conc | requests/s | p50 ms | p99 ms | completed | failed | server CPU ms / request | server cores busy |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
r = rows.get("ciba-poll", {})
if "rate" in r:
    cores = r["rate"] * r.get("cpu_ms_per_op", 0) / 1000
    print(f'| poll | {r["conc"]} | {r["rate"]:.1f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["ceremonies"]} | {r["failed"]} | {r.get("cpu_ms_per_op", 0):.2f} | {cores:.2f} |')
else:
    print("| poll | – | missing (see ciba-poll.err) | | | | | | |")
p = rows.get("ciba-ping", {})
print("\n## Ping notifications (`tessera-bench ciba-ping`)\n")
print("Ping-mode requests for users that do not exist (no phone involved), made for a few seconds with a `requested_expiry` "
      "that makes them all due within one second of the same moment; from then, the pings the server's outbox sends (leased, "
      "each POST to the load generator's own receiver, which checks the bearer token and the `auth_req_id`). Rate = pings / "
      "seconds from that moment to the last ping. Server CPU over the same phase, per ping.\n")
if "rate" in p:
    print("| requests | pings | wrong | seconds | pings/s | server CPU ms / ping |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(f'| {p["requests"]} | {p["pings"]} | {p["wrong"]} | {p["seconds"]:.2f} | {p["rate"]:.1f} | {p.get("cpu_ms_per_op", 0):.2f} |')
else:
    print("missing (see ciba-ping.err)")
PY
cp "$OUT/summary.md" bench/CIBA.md
