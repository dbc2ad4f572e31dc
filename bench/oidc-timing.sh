#!/usr/bin/env bash
# Does the hosted sign-in page's identifier POST tell by its time whether an account exists?
# Starts one `tessera serve` (SQLite, embedded nodes), signs up users with an active device, then times
# identifier POSTs for known and unknown e-mail addresses, alternating, one at a time, and prints the
# medians and their ratio (`tessera-bench oidc-timing`). A measurement, not a test: run it on a quiet machine.
# With CIBA=1 it times CIBA's backchannel authentication request (POST /oauth2/bc-authorize, login_hint) instead.
#   env: SAMPLES=200 PORT=8098 BUILD=release|debug DATABASE_URL=postgres://… (optional; else SQLite) CIBA=1
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SAMPLES=${SAMPLES:-200}
PORT=${PORT:-8098}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-oidc-timing
mkdir -p "$OUT"
source bench/lib.sh
build_release
DB=()
if [ -n "${DATABASE_URL:-}" ]; then DB=(--database-url "$DATABASE_URL"); fi
TESSERA_HTTP_TRUSTED_PROXIES=127.0.0.1 start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" "${DB[@]}" \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
PID=$TPID
trap 'kill $PID 2>/dev/null || true' EXIT
ADMIN=(--server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN")
"$BIN" admin client oidc set "$KEY" --redirect-uri http://127.0.0.1:9/callback "${ADMIN[@]}" > /dev/null
EXTRA=()
if [ -n "${CIBA:-}" ]; then
  EXTRA=(--ciba-secret "$("$BIN" admin client rotate-secret "$KEY" "${ADMIN[@]}" | awk '/client secret:/{print $3}')")
fi
"$BENCH" oidc-timing --server "http://127.0.0.1:$PORT" --client-key "$KEY" --outbox "$OUT/data" --samples "$SAMPLES" \
  --prefix "t$(date +%s)" "${EXTRA[@]}" | tee "$OUT/result.txt"
