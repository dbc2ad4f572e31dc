# Shared by the bench scripts (source it after `cd` to the project root, with ROOT set).

# Builds `tessera` and the bench-only `tessera-bench` (release, into .build-release) and sets BIN and
# BENCH. BUILD=debug uses the debug build in .build instead (quick checks of the scripts; not for figures).
# With both BIN and BENCH set in the environment (prebuilt binaries), nothing is built.
build_release() {
  if [ -n "${BIN:-}" ] && [ -n "${BENCH:-}" ]; then
    echo "== using prebuilt BIN=$BIN BENCH=$BENCH"
    return
  fi
  if [ "${BUILD:-release}" = debug ]; then
    echo "== building debug (BUILD=debug: figures are not comparable)"
    swift build --package-path Server --product tessera 2>&1 | tail -1
    swift build --package-path Server --product tessera-bench 2>&1 | tail -1
    BIN=$ROOT/Server/.build/debug/tessera; BENCH=$ROOT/Server/.build/debug/tessera-bench
    return
  fi
  echo "== building release (scripts/build-release.sh)"
  scripts/build-release.sh --bench 2>&1 | tail -2
  BIN=$ROOT/.build-release/release/tessera; BENCH=$ROOT/.build-release/release/tessera-bench
}

# start_tessera LOG PORT [serve arguments…]: starts `tessera serve` on PORT logging to LOG, waits until
# /healthz answers, and sets TPID, KEY (the demo client's key printed at first start) and ADMIN_TOKEN.
start_tessera() {
  local log=$1 port=$2; shift 2
  "$BIN" serve --port "$port" --log-level error "$@" > "$log" 2>&1 & TPID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  KEY=$(awk '/client key:/{print $3}' "$log")
  ADMIN_TOKEN=$(awk '/admin token:/{print $3}' "$log")
}

# cpu_ticks PID…: user + system clock ticks used so far by these processes (/proc/<pid>/stat).
cpu_ticks() { local s=0 p a b; for p in "$@"; do read -r a b < <(cut -d' ' -f14,15 "/proc/$p/stat" 2>/dev/null) || continue; s=$((s + a + b)); done; echo $s; }
HZ=$(getconf CLK_TCK)

# db_pids: the PostgreSQL backends serving the database of DATABASE_URL (empty on SQLite or without one), whose CPU
# wrk_json reports beside the server's (db_cores): PostgreSQL's own work per operation.
db_pids() {
  local url=${DATABASE_URL:-} name
  name=${url##*/}; name=${name%%\?*}
  [ -n "$url" ] && [ -n "$name" ] || return 0
  pgrep -f "postgres: [^ ]+ $name " | tr '\n' ' ' || true
}

# wrk_json OUT_JSONL CONC PIDS -- wrk arguments…: runs `wrk -t1` for DURATION s at CONC connections
# with the given script (which writes its JSON result line to RESULT_FILE) and URL, and appends that
# line to OUT_JSONL with conc and the cores the processes PIDS (comma-separated) used during the run.
# wrk's own output goes to OUT_JSONL with .txt instead of .jsonl.
wrk_json() {
  local out=$1 conc=$2 pids=$3 c0 c1 t0 t1 tmp; shift 4
  tmp=$(mktemp)
  local dbp d0 d1
  dbp=$(db_pids); d0=$(cpu_ticks $dbp)
  c0=$(cpu_ticks ${pids//,/ }); t0=$(date +%s.%N)
  RESULT_FILE=$tmp timeout $((DURATION + 60)) wrk -t1 -c"$conc" -d"${DURATION}s" --timeout 30s "$@" >> "${out%.jsonl}.txt" 2>&1 || true
  c1=$(cpu_ticks ${pids//,/ }); t1=$(date +%s.%N)
  d1=$(cpu_ticks $dbp); local dbnew; dbnew=$(comm -13 <(tr ' ' '\n' <<< "$dbp" | sort) <(db_pids | tr ' ' '\n' | sort)); d1=$((d1 + $(cpu_ticks $dbnew)))
  local db_cores=None; [ -n "$dbp$dbnew" ] && db_cores="round(($d1-$d0)/$HZ/($t1-$t0),3)"
  WRK_EXTRA=${WRK_EXTRA:-} python3 -c "import json,os;d=json.loads(open('$tmp').read().strip().splitlines()[-1]);d.update(conc=$conc,server_cores=round(($c1-$c0)/$HZ/($t1-$t0),3),db_cores=$db_cores);d.update(json.loads(os.environ['WRK_EXTRA'] or '{}'));print(json.dumps(d))" \
    | tee -a "$out" || echo "wrk gave no result at c=$conc (see ${out%.jsonl}.txt)"
  rm -f "$tmp"
}

# ceiling_json OUT_JSONL CONC PORT WHEN: the server on PORT (TPID) answering its own GET /healthz at CONC for
# DURATION s with the same wrk and script as the scenarios: the HTTP ceiling of the machine at that moment. A bench
# runs it right before and right after each scenario run whose goal is a fraction of the ceiling (WHEN: before,
# after), so that the fraction compares with the ceiling of the same minutes, not of the start of a run that lasts
# an hour on a machine shared with other work.
ceiling_json() {
  METHOD=GET REQ_PATH=/healthz WRK_EXTRA="{\"when\":\"$4\"}" wrk_json "$1" "$2" "$TPID" -- -s "$ROOT/bench/post.lua" "http://127.0.0.1:$3"
}

# start_nodes ADMIN_ARGS…: three `tessera node` processes on PORT+101…103 (data in OUT/node1…3), each
# registered with the server started by start_tessera (ADMIN_ARGS: its --data-dir and --database-url);
# waits until the server has re-read its node list. Sets NODE_PIDS.
start_nodes() {
  local server_key i nport pub
  server_key=$("$BIN" admin node server-key "$@")
  NODE_PIDS=()
  for i in 1 2 3; do
    nport=$((PORT + 100 + i))
    "$BIN" node --data-dir "$OUT/node$i" --port "$nport" --server-key "$server_key" --log-level error > "$OUT/node$i.log" 2>&1 & NODE_PIDS+=($!)
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$nport/healthz" >/dev/null && break; sleep 0.1; done
    pub=$("$BIN" node identity --data-dir "$OUT/node$i" | awk '/public key:/{print $3}')
    "$BIN" admin node add "$@" --server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN" --url "http://127.0.0.1:$nport" --public-key "$pub" --name "node$i" | head -1
  done
  sleep 6   # the server re-reads its node list every 5 s
}

# run_json NAME -- tessera-bench arguments…: runs BENCH with them and the CPU_PIDS (--cpu-pid …) for at most
# DURATION + 900 s, its output in OUT/NAME.out and .err, and appends its RESULT line (with its CPU line) as one
# JSON row to OUT/results.jsonl (a row with "missing" when it printed none).
run_json() {
  local name=$1; shift 2
  timeout $((DURATION + 900)) "$BENCH" "$@" "${CPU_PIDS[@]}" 2>> "$OUT/$name.err" > "$OUT/$name.out" || true
  python3 - "$name" "$OUT/$name.out" <<'PY' | tee -a "$OUT/results.jsonl"
import json, sys
name, path = sys.argv[1], sys.argv[2]
row = {"bench": name}
for line in open(path):
    if line.startswith("RESULT "):
        row.update(json.loads(line[7:]))
    elif line.startswith("CPU "):
        row.update(json.loads(line[4:]))
print(json.dumps(row) if "rate" in row else json.dumps({"bench": name, "missing": True}))
PY
}
