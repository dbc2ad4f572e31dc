#!/usr/bin/env bash
# Sign-up benchmark: full ceremonies (OTP send, code from the development outbox, verify, sign-up
# signed by a fresh device key) through the public SDK against a release build on SQLite, at
# concurrency 16 and 64. Loopback only; writes bench/results/<UTC>-signup/ and bench/SIGNUP.md.
#   env: DURATION=20 CONCS="16 64" PORT=8098
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-20}
CONCS=${CONCS:-"16 64"}
PORT=${PORT:-8098}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-signup
mkdir -p "$OUT"
source bench/lib.sh
build_release
start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
PID=$TPID
trap 'kill $PID 2>/dev/null || true' EXIT
RUN=0
: > "$OUT/results.jsonl"
for C in $CONCS; do
  RUN=$((RUN + 1))
  timeout $((DURATION + 60)) "$BENCH" signup --server "http://127.0.0.1:$PORT" --client-key "$KEY" --outbox "$OUT/data" \
    --concurrency "$C" --duration "$DURATION" --prefix "r$RUN" --run-number "$RUN" | sed -n 's/^RESULT //p' | tee -a "$OUT/results.jsonl"
done
PEAK=$(awk '/^VmHWM/{print int($2/1024)}' /proc/$PID/status)
python3 - "$OUT" "$PEAK" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, peak = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip()]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# Sign-up ceremonies ({out.rsplit('/', 1)[-1]})\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; release build, SQLite WAL, development file outbox, "
      "load generator `tessera-bench signup` (the public SDK: OTP send, code read from the outbox, verify, sign-up signed by a new P-256 key) "
      "on the same machine. One ceremony = 3 HTTP calls and 2 key generations plus 1 signature on the client side.\n")
print("| conc | ceremonies/s | p50 ms | p99 ms | completed | failed |")
print("|---:|---:|---:|---:|---:|---:|")
for r in rows:
    print(f'| {r["conc"]} | {r["rate"]:.0f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["ceremonies"]} | {r["failed"]} |')
print(f"\nServer peak RSS: {peak} MiB.")
PY
cp "$OUT/summary.md" bench/SIGNUP.md
echo "results in $OUT; bench/SIGNUP.md updated"
