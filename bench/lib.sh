# Shared by the bench scripts (source it after `cd` to the project root, with ROOT set).

# Builds the release `tessera` into .build-release and sets BIN.
build_release() {
  echo "== building release"
  swift build -c release --package-path Server --product tessera --scratch-path .build-release 2>&1 | tail -1
  BIN=$ROOT/.build-release/release/tessera
}

# start_tessera LOG PORT [serve arguments…]: starts `tessera serve` on PORT logging to LOG, waits until
# /healthz answers, and sets TPID and KEY (the demo client's key printed at first start).
start_tessera() {
  local log=$1 port=$2; shift 2
  "$BIN" serve --port "$port" --log-level error "$@" > "$log" 2>&1 & TPID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
  KEY=$(awk '/client key:/{print $3}' "$log")
}
