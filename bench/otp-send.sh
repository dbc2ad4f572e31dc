#!/usr/bin/env bash
# OTP e-mail send benchmark: Tessera (release build, SQLite, real SMTP sink) side by side with
# privacyIDEA 3.14's /validate/triggerchallenge (../shared/peers/privacyidea), on loopback only.
# Every accepted send must reach the SMTP sink; the script waits for the outbox to drain and counts.
#   env: DURATION=20 CONCS="16 64" PEER=1 (0 skips privacyIDEA) PORT=8099 SMTP_PORT=2626 WRK_THREADS=2
#        DATABASE_URL=postgres://… (Tessera on PostgreSQL) OUT=<dir> REPORT=0 (leave bench/RESULTS.md alone)
#        BIN=… BENCH=… (prebuilt binaries, no build)
# Writes bench/results/<UTC>/ and rewrites bench/RESULTS.md. Not a CI test.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-20}
CONCS=${CONCS:-"16 64"}
PEER=${PEER:-1}
PORT=${PORT:-8099}
SMTP_PORT=${SMTP_PORT:-2626}
PEER_DIR=${PEER_DIR:-$ROOT/../shared/peers/privacyidea}
TS=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${OUT:-$ROOT/bench/results/$TS}
WRK_THREADS=${WRK_THREADS:-2}
mkdir -p "$OUT"

command -v wrk >/dev/null && /usr/bin/python3 -c "import aiosmtpd" 2>/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk python3-aiosmtpd >/dev/null; }

source bench/lib.sh
build_release
DB_ARGS=(); [ -n "${DATABASE_URL:-}" ] && DB_ARGS=(--database-url "$DATABASE_URL")

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

echo "== starting SMTP sink and Tessera"
/usr/bin/python3 bench/smtp_sink.py "$SMTP_PORT" "$OUT/sink.count" > "$OUT/sink.log" 2>&1 & PIDS+=($!)
DATA=$OUT/data
"$BIN" serve --data-dir "$DATA" "${DB_ARGS[@]}" --port "$PORT" --log-level warning \
  --smtp-host 127.0.0.1 --smtp-port "$SMTP_PORT" --smtp-security none --smtp-from bench@tessera.local \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 --courier-poll-interval-ms 200 \
  > "$OUT/tessera.log" 2>&1 & TPID=$!; PIDS+=($TPID)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
CLIENT_KEY=$(awk '/client key:/{print $3}' "$OUT/tessera.log")
[ -n "$CLIENT_KEY" ] || { echo "no demo client in $OUT/tessera.log"; exit 1; }
rss() { awk "/^$2/{print int(\$2/1024)}" /proc/$1/status; }
sleep 3
IDLE_RSS=$(rss $TPID VmRSS)
echo "Tessera idle RSS: ${IDLE_RSS} MiB"

sink_count() { awk '{print $1}' "$OUT/sink.count"; }
sink_codes() { awk '{print $2}' "$OUT/sink.count"; }
sink_duplicates() { awk '{print $3}' "$OUT/sink.count"; }

# warm-up, not reported
CLIENT_KEY=$CLIENT_KEY RUN=warm timeout 60 wrk -t2 -c4 -d3s -s bench/otp_send.lua "http://127.0.0.1:$PORT" > "$OUT/warmup.txt" 2>&1
ACCEPTED_TOTAL=$(sed -n 's/^RESULT //p' "$OUT/warmup.txt" | python3 -c 'import json,sys;print(json.load(sys.stdin)["accepted"])')

: > "$OUT/tessera.jsonl"
for C in $CONCS; do
  echo "== Tessera c=$C"
  before=$(sink_count)
  t0=$(date +%s.%N); c0=$(cpu_ticks $TPID)
  CLIENT_KEY=$CLIENT_KEY RUN="c$C" timeout $((DURATION + 60)) wrk -t"$WRK_THREADS" -c"$C" -d"${DURATION}s" --latency \
    -s bench/otp_send.lua "http://127.0.0.1:$PORT" > "$OUT/wrk_c$C.txt" 2>&1
  line=$(sed -n 's/^RESULT //p' "$OUT/wrk_c$C.txt")
  accepted=$(echo "$line" | python3 -c 'import json,sys;print(json.load(sys.stdin)["accepted"])')
  ACCEPTED_TOTAL=$((ACCEPTED_TOTAL + accepted))
  # wait until every accepted send of this run reached the sink (bounded)
  for _ in $(seq 3000); do [ "$(sink_count)" -ge "$ACCEPTED_TOTAL" ] && break; sleep 0.1; done
  t1=$(date +%s.%N); c1=$(cpu_ticks $TPID)
  delivered=$(( $(sink_count) - before ))
  echo "$line" | python3 -c "
import json,sys
d=json.load(sys.stdin); d.update(conc=$C, delivered=$delivered, end_to_end_s=round($t1-$t0,2), server_cpu_s=round(($c1-$c0)/$HZ,2))
print(json.dumps(d))" | tee -a "$OUT/tessera.jsonl"
done
PEAK_RSS=$(rss $TPID VmHWM)
# wrk counts the answers it read; the requests still in flight when it stops (up to its concurrency per run) are
# served and their messages sent all the same, so the sink may hold a few more messages than wrk counted. The
# server's own count of sent messages (its outbox, SQLite only) and the sink's duplicates settle it.
SENT=n/a
if [ -z "${DATABASE_URL:-}" ] && command -v sqlite3 >/dev/null; then
  SENT=$(sqlite3 "file:$DATA/tessera.sqlite?mode=ro" "SELECT count(*) FROM outbox WHERE status = 'sent'" 2>/dev/null || echo n/a)
fi
echo "Tessera peak RSS: ${PEAK_RSS} MiB; sink: $(sink_count) messages, $(sink_codes) with a code, $(sink_duplicates) to a recipient seen before; accepted in total: $ACCEPTED_TOTAL (wrk), sent: $SENT (the server's outbox)"
echo "$IDLE_RSS $PEAK_RSS $(sink_count) $(sink_codes) $ACCEPTED_TOTAL $(sink_duplicates) $SENT" > "$OUT/tessera_rss.txt"
cleanup; PIDS=()

PEER_OUT=""
if [ "$PEER" = 1 ]; then
  echo "== privacyIDEA (setup, then /validate/triggerchallenge)"
  bash "$PEER_DIR/setup.sh" > "$OUT/peer_setup.log" 2>&1
  SCENARIOS=trigger DURATION=$DURATION CONCS="$CONCS" bash "$PEER_DIR/bench.sh" > "$OUT/peer_bench.log" 2>&1 || true
  PEER_OUT=$(sed -n 's/^results in \([^ ]*\) .*/\1/p' "$OUT/peer_bench.log" | tail -1)
  bash "$PEER_DIR/server.sh" stop > /dev/null 2>&1 || true
  [ -n "$PEER_OUT" ] && cp "$PEER_OUT/results.jsonl" "$OUT/peer.jsonl" && cp "$PEER_OUT/rss.txt" "$OUT/peer_rss.txt" \
    && cp "$PEER_OUT/meta.txt" "$OUT/peer_meta.txt"
fi

python3 bench/report.py "$OUT" | tee "$OUT/summary.md"
if [ "${REPORT:-1}" = 1 ]; then cp "$OUT/summary.md" bench/RESULTS.md; echo "results in $OUT; bench/RESULTS.md updated"; fi
