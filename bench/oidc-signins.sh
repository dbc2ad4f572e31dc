#!/usr/bin/env bash
# OpenID Connect sign-ins per second (`tessera-bench oidc`, the scenario of bench/oidc.sh's step 1) on SQLite or, with
# DATABASE_URL, PostgreSQL: authorize (PKCE S256) → the hosted page's form → the user's device (the SDK) approves →
# page status → complete → token exchange → ID token checked through the JWKS. One release `tessera serve` and three
# `tessera node` processes (as bench/auth.sh); the server's CPU per sign-in (the nodes' apart, not counted).
# bench/all.sh runs it on both databases.
#   env: DURATION=10 CONC=64 USERS=<100 × DURATION × 5> PORT=8096 DATABASE_URL=postgres://… OUT=<dir> BIN=… BENCH=…
# Writes OUT/results.jsonl (one row, bench "oidc-<CONC>").
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONC=${CONC:-64}
USERS=${USERS:-$((DURATION * 500))}   # each signs in at most 5 times; a run that runs out says "stopped"
PORT=${PORT:-8096}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-oidc-signins}
mkdir -p "$OUT"
source bench/lib.sh
build_release

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
DB_ARGS=(); [ -n "${DATABASE_URL:-}" ] && DB_ARGS=(--database-url "$DATABASE_URL")
TESSERA_HTTP_TRUSTED_PROXIES=127.0.0.1 start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" "${DB_ARGS[@]}" \
  --nodes-embedded 0 --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
PID=$TPID
PIDS+=("$PID")
start_nodes --data-dir "$OUT/data" "${DB_ARGS[@]}"
PIDS+=("${NODE_PIDS[@]}")
ADMIN=(--server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN")
SECRET=$("$BIN" admin client rotate-secret "$KEY" "${ADMIN[@]}" | awk '/client secret:/{print $3}')
"$BIN" admin client oidc set "$KEY" --redirect-uri http://127.0.0.1:9/callback "${ADMIN[@]}" > /dev/null

: > "$OUT/results.jsonl"
CPU_PIDS=(--cpu-pid "$PID")
run_json "oidc-$CONC" -- oidc --server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" --outbox "$OUT/data" \
  --duration "$DURATION" --concurrency "$CONC" --users "$USERS" --prefix s1 --run-number 1
echo "results in $OUT"
