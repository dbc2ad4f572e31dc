#!/usr/bin/env bash
# Introspection benchmark (POST /v1/rp/introspect, RFC 7662 form body, HTTP Basic client auth):
# ES256 result tokens and session tokens (tss_…), minted first through the public API by
# `tessera-bench tokens` (sign-ups through the SDK, each granting a device-bound session, then one
# node-quorum login each for a result token), then wrk (bench/post.lua, 1 thread) cycling through them
# at each concurrency; a good answer says "active":true.
#   env: DURATION=20 CONCS="16 64" TOKENS=200 PORT=8098 DATABASE_URL=postgres://… (instead of SQLite)
#        OUT=<dir> BIN=… BENCH=… (prebuilt binaries)
# Writes OUT/introspect_result.jsonl and OUT/introspect_session.jsonl (default OUT bench/results/<UTC>-introspect).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-20}
CONCS=${CONCS:-"16 64"}
TOKENS=${TOKENS:-200}
PORT=${PORT:-8098}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-introspect}
mkdir -p "$OUT"
source bench/lib.sh
build_release
DB_ARGS=(); [ -n "${DATABASE_URL:-}" ] && DB_ARGS=(--database-url "$DATABASE_URL")
# three node processes as in auth.sh (the logins with embedded nodes timed out on PostgreSQL)
start_tessera "$OUT/introspect-tessera.log" "$PORT" --data-dir "$OUT/introspect-data" "${DB_ARGS[@]}" --nodes-embedded 0 \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
NODE_PIDS=()
stop_server() {  # SIGTERM, then SIGKILL if it has not ended within 15 s (a hung server must not hold up the run)
  kill "$TPID" 2>/dev/null || return 0
  for _ in $(seq 150); do kill -0 "$TPID" 2>/dev/null || return 0; sleep 0.1; done
  echo "server did not stop within 15 s: SIGKILL"; kill -9 "$TPID" 2>/dev/null || true
}
stop_all() { for p in "${NODE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; stop_server; }
trap stop_all EXIT
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "server not ready"; exit 1; }
start_nodes --data-dir "$OUT/introspect-data" "${DB_ARGS[@]}"
SECRET=$(awk '/client secret:/{print $3}' "$OUT/introspect-tessera.log")
echo "== minting $TOKENS result tokens and $TOKENS session tokens"
# session tokens are written after the sign-ups, result tokens after the logins: a failure of the logins
# leaves the session-token runs
timeout 600 "$BENCH" tokens --server "http://127.0.0.1:$PORT" --client-key "$KEY" --outbox "$OUT/introspect-data" \
  --count "$TOKENS" --concurrency 16 --prefix "i$PORT" --result-tokens "$OUT/result_tokens.txt" --session-tokens "$OUT/session_tokens.txt" \
  || echo "minting failed (tokens written so far are used)"
AUTH="Basic $(printf '%s:%s' "$KEY" "$SECRET" | base64 -w0)"
: > "$OUT/ceiling.jsonl"
for KIND in result session; do
  : > "$OUT/introspect_$KIND.jsonl"
  [ -s "$OUT/${KIND}_tokens.txt" ] || { echo "no $KIND tokens: skipped"; continue; }
  for C in $CONCS; do
    echo "== introspection of $KIND tokens c=$C"
    # the result tokens' goal is a fraction of the ceiling: /healthz right before and after their runs
    if [ "$KIND" = result ]; then ceiling_json "$OUT/ceiling.jsonl" "$C" "$PORT" before; fi
    LINES=$OUT/${KIND}_tokens.txt FORM_FIELD=token REQ_PATH=/v1/rp/introspect OK_PATTERN='"active":true' AUTH=$AUTH \
      wrk_json "$OUT/introspect_$KIND.jsonl" "$C" "$TPID" -- -s bench/post.lua "http://127.0.0.1:$PORT"
    if [ "$KIND" = result ]; then ceiling_json "$OUT/ceiling.jsonl" "$C" "$PORT" after; fi
  done
done
echo "results in $OUT"
