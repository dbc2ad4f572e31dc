# Shared by the bench scripts (source it after `cd` to the project root, with ROOT set).

# Builds `tessera` and the bench-only `tessera-bench` (release, into .build-release) and sets BIN and
# BENCH. BUILD=debug uses the debug build in .build instead (quick checks of the scripts; not for figures).
build_release() {
  if [ "${BUILD:-release}" = debug ]; then
    echo "== building debug (BUILD=debug: figures are not comparable)"
    swift build --package-path Server --product tessera 2>&1 | tail -1
    swift build --package-path Server --product tessera-bench 2>&1 | tail -1
    BIN=$ROOT/Server/.build/debug/tessera; BENCH=$ROOT/Server/.build/debug/tessera-bench
    return
  fi
  echo "== building release"
  swift build -c release --package-path Server --product tessera --scratch-path .build-release 2>&1 | tail -1
  swift build -c release --package-path Server --product tessera-bench --scratch-path .build-release 2>&1 | tail -1
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
