#!/usr/bin/env bash
# Rolling upgrade on one PostgreSQL (issue 40 item 4): the previous version and the new one serve together while the
# new one migrates the schema, and logins keep going throughout. Not a CI test: it builds the previous revision
# (about 10–15 minutes for a debug build on 2 cores), so run it before a release and put its result in
# docs/production-postgresql.md ("Upgrades").
#
# It builds `tessera` of PREV and of NEW in git worktrees under /tmp (removed at the end), starts a PostgreSQL of its
# own (.ci/postgres.sh, as bench/instances.sh does) and scripts/rolling_upgrade.py: an SMTP sink that keeps every
# message, a load balancer with /readyz health checks, and CONC workers logging in by e-mail code without pause
# (POST /v1/otp/send, the code from the sink, POST /v1/otp/verify; round robin, so a send and its verify often reach
# different instances). Then, DURATION seconds of load in each phase:
#   1. instance a of PREV alone on the database;
#   2. instance b of NEW starts on the same database (it migrates while a serves) and joins when /readyz answers;
#      a (old) and b (new) serve together;
#   3. a leaves the rotation, is stopped with SIGTERM once it has no request in flight, starts again with NEW and
#      rejoins when /readyz answers (b serves alone meanwhile); a and b, both new, serve together.
# Checks (exit 1 when one fails): no 5xx and no request left without an answer, every login succeeded, every
# accepted send's mail received once (none lost, none twice), a stopped within 60 s of SIGTERM, `tessera admin
# audit verify` (of both versions) passes on the log both versions wrote, and the log holds one otp.sent per accepted
# send and one otp.verified per successful verify. The schema version (schema_migrations) is recorded after each
# start. Results in OUT: summary.md, checks.json, run.json, driver.json (every request by phase, instance and status),
# failures.jsonl (every 5xx or unanswered request, if any), the instances', the driver's and PostgreSQL's logs.
#
#   env: PREV=b4e6189 (the previous release: a tag or commit)  NEW=HEAD (the new revision)
#        PREV_BIN=… NEW_BIN=… (prebuilt binaries instead of building PREV / NEW; PREV / NEW then only name them)
#        CONFIG=debug|release (default debug)  DURATION=10 (seconds of load per phase)  CONC=8 (logins at a time)
#        SMTP_PORT=2628  OUT=<dir> (default bench/results/<UTC>-rolling-upgrade)  MAIL_WAIT=60 (s, at the end)
#        KEEP=1 (keep the worktrees and their builds; the script prints PREV_BIN / NEW_BIN for the next run)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PREV=${PREV:-b4e6189}
NEW=${NEW:-HEAD}
CONFIG=${CONFIG:-debug}
DURATION=${DURATION:-10}
CONC=${CONC:-8}
SMTP_PORT=${SMTP_PORT:-2628}
export MAIL_WAIT=${MAIL_WAIT:-60}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-rolling-upgrade}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case "$CONFIG" in debug|release) ;; *) echo "CONFIG must be debug or release" >&2; exit 2 ;; esac
/usr/bin/python3 -c "import aiosmtpd" 2>/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-aiosmtpd >/dev/null
}
PREV_REV=$(git rev-parse --short "$PREV^{commit}")
NEW_REV=$(git rev-parse --short "$NEW^{commit}")
log() { echo "[$(date -u +%H:%M:%S)] $*"; }

WT_BASE=$(mktemp -d /tmp/tessera-rolling.XXXXXX)
WORKTREES=()
PIDS=()
PGPORT=
cleanup() {
  local p w
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [ -n "$PGPORT" ]; then
    cp "$OUT/pg/server.log" "$OUT/postgres.log" 2>/dev/null || true
    PGDATA=$OUT/pg PGPORT=$PGPORT bash .ci/postgres.sh stop || true
    rm -rf -- "${OUT:?}/pg"
  fi
  if [ "${KEEP:-0}" = 1 ]; then
    [ ${#WORKTREES[@]} -gt 0 ] && echo "worktrees kept: ${WORKTREES[*]} (git worktree remove --force <dir> when done)"
  else
    for w in "${WORKTREES[@]}"; do git worktree remove --force "$w" 2>/dev/null || true; done
    rmdir "$WT_BASE" 2>/dev/null || true
    rm -f "/tmp/$(tr / _ <<< "${WT_BASE:?}")_"*.lock   # SwiftPM's lock files for the worktrees' build directories
  fi
}
trap cleanup EXIT

# build NAME REV: `tessera` of REV, built in a worktree $WT_BASE/NAME (with this checkout's dependency pins, which
# SwiftPM resolves again if they do not fit REV); sets BUILT to the binary's path.
build() {
  local dir=$WT_BASE/$1
  git worktree add --detach "$dir" "$2" >/dev/null 2>&1
  WORKTREES+=("$dir")
  [ -f Server/Package.resolved ] && cp Server/Package.resolved "$dir/Server/Package.resolved"
  log "building $1 ($2, $CONFIG) in $dir (log: $OUT/build-$1.log)"
  if ! swift build --package-path "$dir/Server" -c "$CONFIG" --product tessera > "$OUT/build-$1.log" 2>&1; then
    tail -20 "$OUT/build-$1.log" >&2; echo "build of $2 failed" >&2; exit 1
  fi
  BUILT=$(swift build --package-path "$dir/Server" -c "$CONFIG" --show-bin-path)/tessera
}
if [ -z "${PREV_BIN:-}" ]; then build prev "$PREV_REV"; PREV_BIN=$BUILT; fi
if [ -z "${NEW_BIN:-}" ]; then build new "$NEW_REV"; NEW_BIN=$BUILT; fi
[ -x "$PREV_BIN" ] && [ -x "$NEW_BIN" ] || { echo "no binary at $PREV_BIN or $NEW_BIN" >&2; exit 1; }
[ "${KEEP:-0}" = 1 ] && echo "next run: PREV_BIN=$PREV_BIN NEW_BIN=$NEW_BIN"
log "previous: $PREV_REV ($PREV_BIN); new: $NEW_REV ($NEW_BIN)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PGPORT=$(free_port)
PGDATA=$OUT/pg PGPORT=$PGPORT bash .ci/postgres.sh start
URL=postgres://postgres:secret@127.0.0.1:$PGPORT/tessera_test
psql_q() { PGPASSWORD=secret psql -h 127.0.0.1 -p "$PGPORT" -U postgres -d tessera_test -Atc "$1"; }
schema() { psql_q "SELECT coalesce(max(version), 0) || ' (' || count(*) || ' migrations)' FROM schema_migrations" 2>/dev/null || echo "none"; }
MASTER=$(head -c 32 /dev/urandom | base64)
ADMIN_TOKEN=tat_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')

# The driver (SMTP sink, load balancer, workers) runs from before the first instance to the end.
/usr/bin/python3 scripts/rolling_upgrade.py "$OUT" "$SMTP_PORT" "$CONC" > "$OUT/driver.log" 2>&1 & DRIVER=$!; PIDS+=($DRIVER)
for _ in $(seq 100); do grep -q '^READY' "$OUT/driver.log" && break; sleep 0.1; done
grep -q '^READY' "$OUT/driver.log" || { cat "$OUT/driver.log" >&2; exit 1; }

# control PHASE STOP NAME=VERSION…: tells the driver the phase and which instances it may send to.
GEN=0
declare -A PORTS
control() {
  local phase=$1 stop=$2; shift 2
  GEN=$((GEN + 1))
  python3 - "$OUT/control.json" "$GEN" "$phase" "$stop" "${CLIENT_KEY:-}" "$@" <<EOF
import json, os, sys
path, gen, phase, stop, key = sys.argv[1:6]
ports = {$(for n in "${!PORTS[@]}"; do printf '"%s": %s, ' "$n" "${PORTS[$n]}"; done)}
inst = {}
for arg in sys.argv[6:]:
    name, version = arg.split("=")
    inst[name] = {"url": f"http://127.0.0.1:{ports[name]}", "version": version}
with open(path + ".tmp", "w") as f:
    json.dump({"gen": int(gen), "phase": phase, "stop": stop == "stop", "client_key": key, "instances": inst}, f)
os.replace(path + ".tmp", path)
EOF
  log "phase $phase: instances $* ${stop/go/}"
}
# wait_state PYTHON_CONDITION [SECONDS]: waits until the driver has applied the last control and the condition
# (on s, its state.json) holds.
wait_state() {
  local cond=$1 limit=${2:-120}
  for _ in $(seq $((limit * 10))); do
    python3 -c "import json,sys; s=json.load(open('$OUT/state.json')); sys.exit(0 if s['gen'] >= $GEN and ($cond) else 1)" \
      2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for: $cond (state: $(cat "$OUT/state.json"))" >&2; return 1
}

# start_instance NAME VERSION BIN: `tessera serve` on the shared database (same master key, admin token and SMTP sink
# for every instance; a signed audit checkpoint every 10 s (the least allowed), so both versions sign some), log in OUT/NAME-VERSION.log;
# waits until it answers /readyz.
declare -A PID
start_instance() {
  local name=$1 version=$2 bin=$3 port=${PORTS[$1]}
  "$bin" serve --port "$port" --data-dir "$OUT/$name" --database-url "$URL" --master-key "$MASTER" --admin-token "$ADMIN_TOKEN" \
    --nodes-embedded 0 --log-level warning --smtp-host 127.0.0.1 --smtp-port "$SMTP_PORT" --smtp-security none \
    --smtp-from rolling@tessera.local --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 \
    --courier-poll-interval-ms 200 --audit-checkpoint-interval 10 > "$OUT/$name-$version.log" 2>&1 &
  PID[$name]=$!; PIDS+=($!)
  for _ in $(seq 1200); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && { log "$name ($version) ready on port $port"; return; }
    kill -0 "${PID[$name]}" 2>/dev/null || break
    sleep 0.1
  done
  echo "instance $name ($version) did not start: $(tail -20 "$OUT/$name-$version.log")" >&2; exit 1
}
# stop_instance NAME: SIGTERM, then waits up to 60 s for the process to end; sets STOP_SECONDS and STOP_STATUS.
stop_instance() {
  local pid=${PID[$1]} t0 i
  t0=$(date +%s.%N)
  kill -TERM "$pid"
  STOP_STATUS=timeout
  for i in $(seq 600); do kill -0 "$pid" 2>/dev/null || { STOP_STATUS=exited; break; }; sleep 0.1; done
  if [ "$STOP_STATUS" = exited ]; then wait "$pid" && STOP_STATUS="exited 0" || STOP_STATUS="exited $?"; else kill -9 "$pid" 2>/dev/null || true; fi
  STOP_SECONDS=$(python3 -c "print(round($(date +%s.%N) - $t0, 2))")
  log "$1 stopped after ${STOP_SECONDS}s ($STOP_STATUS)"
}

PORTS[a]=$(free_port); PORTS[b]=$(free_port)
SCHEMA_START=$(schema)
start_instance a old "$PREV_BIN"
CLIENT_KEY=$(awk '/client key:/{print $3}' "$OUT/a-old.log" | head -1)
[ -n "$CLIENT_KEY" ] || { echo "no demo client in a's log" >&2; exit 1; }
SCHEMA_OLD=$(schema)

# 1: the old version alone.
control 1-old-alone go a=old
wait_state "s['rotation'] == ['a']"
sleep "$DURATION"

# 2: the new version starts on the same database (it migrates while a serves), joins when ready; both serve.
control 2a-new-b-starting go a=old b=new
start_instance b new "$NEW_BIN"
wait_state "s['rotation'] == ['a', 'b']"
SCHEMA_NEW=$(schema)
control 2-old-and-new go a=old b=new
sleep "$DURATION"

# 3: a leaves the rotation, is stopped once nothing is in flight to it, starts again with the new version and rejoins.
control 3a-a-restarting go b=new
wait_state "'a' not in s['rotation'] and s['inflight'].get('a', 0) == 0"
stop_instance a
start_instance a new "$NEW_BIN"
control 3a-a-restarting go a=new b=new
wait_state "s['rotation'] == ['a', 'b']"
control 3-new-and-new go a=new b=new
sleep "$DURATION"

control end stop a=new b=new
log "load stopped; waiting for the driver (every accepted send's mail, up to ${MAIL_WAIT}s)"
wait "$DRIVER" || true
SCHEMA_END=$(schema)

# The audit log both versions wrote, checked by each version's `tessera admin audit verify` through the final a.
verify_audit() {
  "$1" admin audit verify --server "http://127.0.0.1:${PORTS[a]}" --admin-token "$ADMIN_TOKEN" > "$OUT/audit-verify-$2.txt" 2>&1 \
    && echo ok || echo failed
}
AUDIT_NEW=$(verify_audit "$NEW_BIN" new)
AUDIT_OLD=$(verify_audit "$PREV_BIN" old)
AUDIT_COUNTS=$(psql_q "SELECT type || '=' || count(*) FROM audit_log WHERE type LIKE 'otp.%' GROUP BY type" | tr '\n' ' ')
PENDING=$(psql_q "SELECT count(*) FROM audit_pending" 2>/dev/null || echo "no table")

python3 - "$OUT" <<EOF
import json, sys
out = sys.argv[1]
json.dump({
    "prev": "$PREV_REV", "new": "$NEW_REV", "config": "$CONFIG", "duration_s": $DURATION, "conc": $CONC,
    "schema": {"empty database": "$SCHEMA_START", "after a (old) started": "$SCHEMA_OLD",
               "after b (new) started": "$SCHEMA_NEW", "at the end": "$SCHEMA_END"},
    "stop_a": {"seconds": $STOP_SECONDS, "status": "$STOP_STATUS"},
    "audit_verify": {"new": "$AUDIT_NEW", "old": "$AUDIT_OLD"},
    "audit_counts": dict(kv.split("=") for kv in "$AUDIT_COUNTS".split()),
    "audit_pending": "$PENDING",
}, open(f"{out}/run.json", "w"), indent=1)
EOF
set +e
python3 - "$OUT" <<'PY' | tee "$OUT/summary.md"
import json, sys
from collections import defaultdict
out = sys.argv[1]
run, drv = json.load(open(f"{out}/run.json")), json.load(open(f"{out}/driver.json"))
phases = ["1-old-alone", "2a-new-b-starting", "2-old-and-new", "3a-a-restarting", "3-new-and-new"]
label = {"1-old-alone": "1: a old alone", "2a-new-b-starting": "2 (b new starting, migrating)", "2-old-and-new": "2: a old + b new",
         "3a-a-restarting": "3 (a stopped and restarted new)", "3-new-and-new": "3: a new + b new"}
req = defaultdict(list)
for r in drv["requests"]:
    req[r["phase"]].append(r)
checks = {}
print(f"# Rolling upgrade {run['prev']} → {run['new']} ({out.rsplit('/', 1)[-1]})\n")
print(f"{run['config']} builds; one PostgreSQL (.ci/postgres.sh); {run['conc']} logins at a time (e-mail code: send, code from the "
      f"SMTP sink, verify), round robin over the instances in rotation; {run['duration_s']} s of load per phase. A request "
      "counts under the phase it was sent in, a login under the phase of its send.\n")
print("| phase | logins attempted | succeeded | of which verified on the other instance | requests per instance (send / verify: statuses) |")
print("|---|---:|---:|---:|---|")
total_5xx = total_conn = 0
for p in phases:
    l = drv["phases"].get(p, {})
    cells = []
    for r in sorted(req[p], key=lambda r: r["instance"]):
        st = {k: v for k, v in r.items() if k.startswith(("send ", "verify "))}
        total_5xx += sum(v for k, v in st.items() if k.split()[1].isdigit() and int(k.split()[1]) >= 500)
        total_conn += sum(v for k, v in st.items() if k.endswith("conn-error"))
        cells.append(f"{r['instance']}: " + ", ".join(f"{k} ×{v}" for k, v in sorted(st.items())))
    print(f"| {label[p]} | {l.get('attempted', 0)} | {l.get('succeeded', 0)} | {l.get('succeeded across instances', 0)} | {'; '.join(cells)} |")
    if p in ("1-old-alone", "2-old-and-new", "3-new-and-new"):
        checks[f"phase {p}: logins succeeded"] = l.get("succeeded", 0) > 0
fails = {k: v for p in drv["phases"].values() for k, v in p.items() if k.startswith("failed")}
m = drv["mail"]
checks["no 5xx"] = total_5xx == 0
checks["no request without an answer"] = total_conn == 0
checks["every login succeeded"] = not fails
checks["no mail lost"] = not m["lost"]
checks["no mail twice"] = not m["twice"]
checks["no unexpected mail"] = not m["unexpected"] and not m["without_code"]
checks["a stopped within 60 s of SIGTERM"] = run["stop_a"]["status"].startswith("exited")
checks["audit verify (new tessera)"] = run["audit_verify"]["new"] == "ok"
checks["audit verify (old tessera)"] = run["audit_verify"]["old"] == "ok"
sends = sum(v for r in drv["requests"] for k, v in r.items() if k == "send 202")
verified = sum(v for r in drv["requests"] for k, v in r.items() if k == "verify 200")
ac = run["audit_counts"]
checks["audit: one otp.sent per accepted send"] = int(ac.get("otp.sent", 0)) == sends
checks["audit: one otp.verified per verified code"] = int(ac.get("otp.verified", 0)) == verified
checks["audit: nothing left pending"] = run["audit_pending"] in ("0", "no table")
print(f"\nMail: {m['accepted']} sends accepted (202), {m['received']} messages received, {m['received_for_accepted']} of the "
      f"accepted sends' addresses got theirs; lost {len(m['lost'])}, twice {len(m['twice'])}, unexpected {len(m['unexpected'])}.")
print(f"5xx: {total_5xx}; requests without an answer: {total_conn}; failed logins: {fails or 0}.")
print("Schema (`schema_migrations`): " + "; ".join(f"{k}: {v}" for k, v in run["schema"].items()) + ".")
print(f"a stopped {run['stop_a']['seconds']} s after SIGTERM ({run['stop_a']['status']}).")
print(f"`tessera admin audit verify` on the final log: new version {run['audit_verify']['new']}, old version "
      f"{run['audit_verify']['old']}; audit_log holds {ac} for {sends} accepted sends and {verified} verified codes; "
      f"audit_pending rows left: {run['audit_pending']}.")
for v in ("new", "old"):
    text = " ".join(open(f"{out}/audit-verify-{v}.txt").read().split())
    print(f"- {v} `tessera admin audit verify`: {text}")
print()
print("| check | result |\n|---|---|")
for k, v in checks.items():
    print(f"| {k} | {'ok' if v else '**FAILED**'} |")
json.dump(checks, open(f"{out}/checks.json", "w"), indent=1)
sys.exit(0 if all(checks.values()) else 1)
PY
status=${PIPESTATUS[0]}
set -e
log "results in $OUT"
exit "$status"
