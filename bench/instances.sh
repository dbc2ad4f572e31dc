#!/usr/bin/env bash
# Several instances on one PostgreSQL (issue 40 item 2): OTP e-mail sends (`POST /v1/otp/send`, every one delivered
# to a real SMTP sink) first against one `tessera serve` alone, then against two behind HAProxy (round robin), all
# on one PostgreSQL of the script's own (`fsync=off`, as .ci/postgres.sh starts it). For each run: sends per second,
# and the CPU per send of each process (each instance, HAProxy, PostgreSQL's backends), so the scaling can be read
# even on a 2-core machine where the pair cannot run faster than one. Writes bench/results/<UTC>-instances/ and
# bench/INSTANCES.md. Not a CI test.
#   env: DURATION=10 CONC=64 PORT=8111 SMTP_PORT=2627 BIN=… BENCH=… (prebuilt) OUT=<dir> REPORT=0 (leave bench/INSTANCES.md
#        alone; bench/all.sh runs it so and reports it in bench/ALL.md)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONC=${CONC:-64}
PORT=${PORT:-8111}
SMTP_PORT=${SMTP_PORT:-2627}
OUT=${OUT:-$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-instances}
mkdir -p "$OUT"
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v haproxy >/dev/null || missing+=(haproxy)
/usr/bin/python3 -c "import aiosmtpd" 2>/dev/null || missing+=(python3-aiosmtpd)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
source bench/lib.sh
build_release

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PIDS=()
PGPORT=$(free_port)
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  PGDATA=$OUT/pg PGPORT=$PGPORT bash .ci/postgres.sh stop || true
}
trap cleanup EXIT
PGDATA=$OUT/pg PGPORT=$PGPORT bash .ci/postgres.sh start
URL=postgres://postgres:secret@127.0.0.1:$PGPORT/tessera_test
MASTER=$(head -c 32 /dev/urandom | base64)
ADMIN_TOKEN=tat_$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
/usr/bin/python3 bench/smtp_sink.py "$SMTP_PORT" "$OUT/sink.count" > "$OUT/sink.log" 2>&1 & PIDS+=($!)

# start_instance NAME PORT: a `tessera serve` on the shared database (same master key and admin token).
start_instance() {
  "$BIN" serve --port "$2" --data-dir "$OUT/$1" --database-url "$URL" --master-key "$MASTER" --admin-token "$ADMIN_TOKEN" \
    --nodes-embedded 0 --log-level warning --smtp-host 127.0.0.1 --smtp-port "$SMTP_PORT" --smtp-security none \
    --smtp-from bench@tessera.local --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 \
    --courier-poll-interval-ms 200 > "$OUT/$1.log" 2>&1 &
  LAST=$!; PIDS+=($LAST)
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$2/healthz" >/dev/null && return; sleep 0.1; done
  echo "instance $1 did not start: $(cat "$OUT/$1.log")" >&2; exit 1
}
PA=$(free_port); start_instance a "$PA"; APID=$LAST
PB=$(free_port); start_instance b "$PB"; BPID=$LAST
CLIENT_KEY=$(awk '/client key:/{print $3}' "$OUT/a.log" "$OUT/b.log" | head -1)
[ -n "$CLIENT_KEY" ] || { echo "no demo client in the instances' logs" >&2; exit 1; }

cat > "$OUT/haproxy.cfg" <<EOF
global
  maxconn 4096
defaults
  mode http
  timeout connect 5s
  timeout client 60s
  timeout server 60s
frontend tessera
  bind 127.0.0.1:$PORT
  default_backend instances
backend instances
  balance roundrobin
  http-reuse always
  server a 127.0.0.1:$PA
  server b 127.0.0.1:$PB
EOF
haproxy -f "$OUT/haproxy.cfg" -db > "$OUT/haproxy.log" 2>&1 & HPID=$!; PIDS+=($HPID)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done

sink_count() { awk '{print $1}' "$OUT/sink.count" 2>/dev/null || echo 0; }
pg_pids() { pgrep -u postgres -f "postgres: postgres tessera_test" | tr '\n' ' '; }
ticks() { local p s=0; for p in "$@"; do [ -r "/proc/$p/stat" ] && s=$((s + $(cut -d' ' -f14 "/proc/$p/stat") + $(cut -d' ' -f15 "/proc/$p/stat"))); done; echo $s; }

# Warm-up through both paths (connections to PostgreSQL opened, caches filled), not reported.
CLIENT_KEY=$CLIENT_KEY RUN=warm timeout 60 wrk -t2 -c8 -d3s -s bench/otp_send.lua "http://127.0.0.1:$PORT" > "$OUT/warmup.txt" 2>&1
ACCEPTED_TOTAL=$(sed -n 's/^RESULT //p' "$OUT/warmup.txt" | python3 -c 'import json,sys;print(json.load(sys.stdin)["accepted"])')
for _ in $(seq 600); do [ "$(sink_count)" -ge "$ACCEPTED_TOTAL" ] && break; sleep 0.1; done

: > "$OUT/results.jsonl"
# run NAME URL: OTP sends at CONC for DURATION through URL; every accepted send awaited at the sink.
run() {
  local name=$1 url=$2 pg a0 b0 h0 p0 a1 b1 h1 p1 line accepted t0 t1
  pg=$(pg_pids)
  a0=$(ticks $APID); b0=$(ticks $BPID); h0=$(ticks $HPID); p0=$(ticks $pg); t0=$(date +%s.%N)
  CLIENT_KEY=$CLIENT_KEY RUN=$name timeout $((DURATION + 60)) wrk -t2 -c"$CONC" -d"${DURATION}s" -s bench/otp_send.lua "$url" \
    > "$OUT/wrk_$name.txt" 2>&1
  line=$(sed -n 's/^RESULT //p' "$OUT/wrk_$name.txt")
  accepted=$(echo "$line" | python3 -c 'import json,sys;print(json.load(sys.stdin)["accepted"])')
  ACCEPTED_TOTAL=$((ACCEPTED_TOTAL + accepted))
  for _ in $(seq 3000); do [ "$(sink_count)" -ge "$ACCEPTED_TOTAL" ] && break; sleep 0.1; done
  t1=$(date +%s.%N)
  a1=$(ticks $APID); b1=$(ticks $BPID); h1=$(ticks $HPID); p1=$(ticks $pg)
  echo "$line" | python3 -c "
import json,sys
d=json.load(sys.stdin); n=max(d['accepted'],1); hz=$HZ
d.update(run='$name', conc=$CONC, delivered_all=$(sink_count) >= $ACCEPTED_TOTAL, end_to_end_s=round($t1-$t0,2),
  cpu_ms={'a': round(($a1-$a0)/hz*1000/n,3), 'b': round(($b1-$b0)/hz*1000/n,3), 'haproxy': round(($h1-$h0)/hz*1000/n,3),
          'postgres': round(($p1-$p0)/hz*1000/n,3)})
print(json.dumps(d))" | tee -a "$OUT/results.jsonl"
}
run one "http://127.0.0.1:$PA"
run pair "http://127.0.0.1:$PORT"

python3 - "$OUT" "$DURATION" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, duration = sys.argv[1], sys.argv[2]
rows = {r["run"]: r for r in (json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip())}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# Two instances on one PostgreSQL ({out.rsplit('/', 1)[-1]})\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; release build; PostgreSQL of the script's own "
      "(fsync=off); wrk on the same machine, loopback; OTP e-mail sends (`POST /v1/otp/send`, each to its own address), "
      f"{duration} s at c=64 per run, every accepted send awaited at the SMTP sink.\n")
print("| run | sends/s | accepted | all delivered | CPU ms / send: instance a | instance b | HAProxy | PostgreSQL |")
print("|---|---:|---:|---|---:|---:|---:|---:|")
for name, label in (("one", "one instance, directly"), ("pair", "two instances behind HAProxy")):
    r = rows.get(name)
    if not r:
        print(f"| {label} | missing | | | | | | |"); continue
    c = r["cpu_ms"]
    print(f'| {label} | {r["rps"]:.1f} | {r["accepted"]} | {"yes" if r["delivered_all"] else "no"} | {c["a"]:.3f} | {c["b"]:.3f} | {c["haproxy"]:.3f} | {c["postgres"]:.3f} |')
print("\nOn 2 cores the pair shares the same CPU as one instance, so its rate says how much a second instance costs, not how "
      "far it scales; the CPU per send of each process is the figure that carries to a larger machine.")
PY
if [ "${REPORT:-1}" = 1 ]; then cp "$OUT/summary.md" bench/INSTANCES.md; echo "results in $OUT; bench/INSTANCES.md updated"; fi
