#!/usr/bin/env bash
# Registration-flow and password log-in benchmark through the public SDK against a release build on
# SQLite, at concurrency 16 and 64, loopback only. Three scenarios in one run:
#   flow sign-up without a password, flow sign-up with a password (one scrypt hash each), and password
#   log-in (one scrypt verification and a new device key each).
# Writes bench/results/<UTC>-flows/ and bench/FLOWS.md.   env: DURATION=20 CONCS="16 64" PORT=8099
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-20}
CONCS=${CONCS:-"16 64"}
PORT=${PORT:-8099}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-flows
mkdir -p "$OUT"
source bench/lib.sh
build_release
start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 \
  --flows-per-ip-hourly-limit 1000000 --passwords-per-ip-hourly-limit 1000000
PID=$TPID
trap 'kill $PID 2>/dev/null || true' EXIT
RUN=0
: > "$OUT/results.jsonl"
run() {  # scenario, extra args…
  local scenario=$1; shift
  for C in $CONCS; do
    RUN=$((RUN + 1))
    timeout $((DURATION + 120)) "$BENCH" "$@" --server "http://127.0.0.1:$PORT" --client-key "$KEY" --outbox "$OUT/data" \
      --concurrency "$C" --duration "$DURATION" --prefix "r$RUN" --run-number "$((RUN % 10))" \
      | sed -n 's/^RESULT //p' | python3 -c "import json,sys;[print(json.dumps({**json.loads(l),'scenario':'$scenario'})) for l in sys.stdin]" \
      | tee -a "$OUT/results.jsonl"
  done
}
run "flow sign-up, no password" flow-signup
run "flow sign-up with password" flow-signup --password "bench-Passw0rd"
run "password log-in" password-login
PEAK=$(awk '/^VmHWM/{print int($2/1024)}' /proc/$PID/status)
python3 - "$OUT" "$PEAK" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, peak = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip()]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# Registration flows and password log-in ({out.rsplit('/', 1)[-1]})\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; release build, SQLite WAL, development file outbox, "
      "three embedded verifier nodes, load generator `tessera-bench flow-signup` / `password-login` (the public SDK) on the same machine. "
      "A flow sign-up is 5 HTTP calls (create, send code, verify, finish, device key) and 2 key generations on the client; a password "
      "log-in is 2 calls (log-in, device key). Passwords: scrypt N = 2^15, r = 8, p = 1.\n")
print("| scenario | conc | ceremonies/s | p50 ms | p99 ms | completed | failed |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f'| {r["scenario"]} | {r["conc"]} | {r["rate"]:.0f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["ceremonies"]} | {r["failed"]} |')
print(f"\nServer peak RSS: {peak} MiB.")
PY
cp "$OUT/summary.md" bench/FLOWS.md
echo "results in $OUT; bench/FLOWS.md updated"
