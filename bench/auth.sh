#!/usr/bin/env bash
# Node-quorum authentication and TOTP verification benchmark (release build, SQLite, loopback):
#   1. login ceremonies: three `tessera node` processes, `tessera-bench login` (the public SDK's full
#      flow: open channel, signed challenge fanned out to the nodes, quorum 2 of 3, user-verification
#      signature, result token) at each concurrency; then once more at the highest concurrency with
#      `--progress`, each login also following its progress stream (login-progress.jsonl; PROGRESS=0 skips it);
#   2. TOTP verification for the relying party (POST /v1/rp/totp/verify, HTTP Basic), wrk with the
#      privacyIDEA peer's own wrk script, every request a correct, unused code;
#   3. privacyIDEA 3.14 /validate/check with correct TOTP codes (../shared/peers/privacyidea), same run.
# Each server runs alone while it is measured. Writes bench/results/<UTC>-auth/ and bench/AUTH.md.
#   env: DURATION=20 CONCS="16 64" PEER=1 (0 skips privacyIDEA) TOTP_USERS=25000 PORT=8097
#        DATABASE_URL=postgres://… runs Tessera on PostgreSQL instead of SQLite (LOGIN=0 skips the logins, TOTP=0 the TOTP runs)
#        OUT=<dir> (results directory) REPORT=0 (leave bench/AUTH.md alone) BIN=… BENCH=… (prebuilt binaries)
#        NODES_DURING_TOTP=1 (leave the nodes enabled while TOTP is measured; see below)
#        SERVE_ARGS="--nodes-per-authentication 2" (more flags for `tessera serve`, split on spaces; for experiments)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-20}
CONCS=${CONCS:-"16 64"}
PEER=${PEER:-1}
PORT=${PORT:-8097}
TOTP_USERS=${TOTP_USERS:-25000}   # per run: each user is verified twice (this step, the next)
PEER_DIR=${PEER_DIR:-$ROOT/../shared/peers/privacyidea}
[ -f "$PEER_DIR/bench.lua" ] || { echo "auth.sh: $PEER_DIR/bench.lua not found (the privacyIDEA kit's wrk script, which Tessera's TOTP step uses too): set PEER_DIR" >&2; exit 2; }
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-auth}
mkdir -p "$OUT"
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

source bench/lib.sh
build_release

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

echo "== Tessera with three node processes"
DATA=$OUT/data
DB_ARGS=(); [ -n "${DATABASE_URL:-}" ] && DB_ARGS=(--database-url "$DATABASE_URL")
ADMIN_DB=(--data-dir "$DATA" "${DB_ARGS[@]}")
start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$DATA" "${DB_ARGS[@]}" --nodes-embedded 0 \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 ${SERVE_ARGS:-}
PIDS+=($TPID)
SECRET=$(awk '/client secret:/{print $3}' "$OUT/tessera.log")
start_nodes "${ADMIN_DB[@]}"
PIDS+=("${NODE_PIDS[@]}")

# login_run: one `tessera-bench login` run at concurrency C, appended to OUT/LOGIN_FILE with the server's
# and the nodes' CPU (PROGRESS_FLAG: --progress or empty).
login_run() {
  RUN=$((RUN + 1))
  echo "== login ceremonies c=$C $PROGRESS_FLAG"
  local dbp d0 d1 dbnew; dbp=$(db_pids); d0=$(cpu_ticks $dbp)
  s0=$(cpu_ticks $TPID); c0=$(cpu_ticks $TPID "${NODE_PIDS[@]}"); t0=$(date +%s.%N)
  line=$(timeout $((DURATION + 120)) "$BENCH" login --server "http://127.0.0.1:$PORT" --client-key "$KEY" --outbox "$DATA" \
    --concurrency "$C" --duration "$DURATION" --prefix "l$RUN" --run-number "$RUN" $PROGRESS_FLAG | sed -n 's/^RESULT //p')
  s1=$(cpu_ticks $TPID); c1=$(cpu_ticks $TPID "${NODE_PIDS[@]}"); t1=$(date +%s.%N)
  d1=$(cpu_ticks $dbp); dbnew=$(comm -13 <(tr ' ' '\n' <<< "$dbp" | sort) <(db_pids | tr ' ' '\n' | sort)); d1=$((d1 + $(cpu_ticks $dbnew)))
  local db_cores=None; [ -n "$dbp$dbnew" ] && db_cores="round(($d1-$d0)/$HZ/($t1-$t0),3)"
  echo "$line" | python3 -c "import json,sys;d=json.load(sys.stdin);d['server_and_nodes_cores']=round(($c1-$c0)/$HZ/($t1-$t0),2);d['server_cores']=round(($s1-$s0)/$HZ/($t1-$t0),3);d['db_cores']=$db_cores;print(json.dumps(d))" \
    | tee -a "$OUT/$LOGIN_FILE"
}
: > "$OUT/login.jsonl"; : > "$OUT/login-progress.jsonl"
RUN=0
LOGIN_FILE=login.jsonl PROGRESS_FLAG=
for C in $CONCS; do
  [ "${LOGIN:-1}" = 1 ] || break
  login_run
done
if [ "${LOGIN:-1}" = 1 ] && [ "${PROGRESS:-1}" = 1 ]; then
  LOGIN_FILE=login-progress.jsonl PROGRESS_FLAG=--progress
  C=${CONCS##* }
  login_run
fi
[ "${TOTP:-1}" = 1 ] || exit 0

# TOTP verification does not involve the verifier nodes, but every device created is queued for delivery to every
# enabled node: with the nodes enabled, the server would be sending the hundreds of thousands of devices created
# below to the three nodes (and checking their signed receipts) while TOTP is measured, which stalled it for up to
# 170 ms at a time. So the nodes are disabled first; NODES_DURING_TOTP=1 keeps them.
if [ "${NODES_DURING_TOTP:-0}" = 0 ]; then
  NODE_IDS=$("$BIN" admin node list "${ADMIN_DB[@]}" --server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN" --json \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(n["nodeId"] for n in (d["nodes"] if isinstance(d, dict) else d)))')
  for id in $NODE_IDS; do
    "$BIN" admin node disable "$id" "${ADMIN_DB[@]}" --server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN" > /dev/null
  done
  echo "== nodes disabled for the TOTP runs: $NODE_IDS"
fi

NCONCS=$(echo $CONCS | wc -w)
echo "== TOTP users ($TOTP_USERS per run, $((TOTP_USERS * NCONCS)) in all)"
"$BENCH" totp-bodies --create --count $((TOTP_USERS * NCONCS)) --client-key "$KEY" --output "$OUT/totp_all.txt" "${ADMIN_DB[@]}"
FIRST=0
AUTH="Basic $(printf '%s:%s' "$KEY" "$SECRET" | base64 -w0)"
WRK_LUA=$PEER_DIR/bench.lua
: > "$OUT/totp.jsonl"; : > "$OUT/ceiling.jsonl"
for C in $CONCS; do
  echo "== Tessera TOTP verify c=$C (the /healthz ceiling right before and after it)"
  ceiling_json "$OUT/ceiling.jsonl" "$C" "$PORT" before
  # fresh codes (this step and the next, each user once per step) right before the run
  "$BENCH" totp-bodies --first $FIRST --count "$TOTP_USERS" --client-key "$KEY" --output "$OUT/totp_c$C.txt" "${ADMIN_DB[@]}"
  FIRST=$((FIRST + TOTP_USERS))
  BODIES=$OUT/totp_c$C.txt REQ_PATH=/v1/rp/totp/verify OK_PATTERN='"valid":true' AUTH=$AUTH \
    wrk_json "$OUT/totp.jsonl" "$C" "$TPID" -- -s "$WRK_LUA" "http://127.0.0.1:$PORT"
  ceiling_json "$OUT/ceiling.jsonl" "$C" "$PORT" after
done
RSS=$(awk '/^VmHWM/{print int($2/1024)}' /proc/$TPID/status)
cleanup; PIDS=()

if [ "$PEER" = 1 ]; then
  echo "== privacyIDEA /validate/check, correct TOTP (same machine, Tessera stopped)"
  DURATION=$DURATION CONCS="$CONCS" SCENARIOS=ok bash "$PEER_DIR/bench.sh" > "$OUT/privacyidea.txt" 2>&1 || { tail -20 "$OUT/privacyidea.txt"; exit 1; }
  PI_OUT=$(sed -n 's/^results in \([^ ]*\).*/\1/p' "$OUT/privacyidea.txt")
  cp "$PI_OUT/results.jsonl" "$OUT/privacyidea.jsonl"
  bash "$PEER_DIR/server.sh" stop >/dev/null 2>&1 || true
fi

python3 bench/auth_report.py "$OUT" "$RSS" | tee "$OUT/summary.md"
if [ "${REPORT:-1}" = 1 ]; then cp "$OUT/summary.md" bench/AUTH.md; echo "results in $OUT; bench/AUTH.md updated"; fi
