#!/usr/bin/env bash
# Fuzzes every operation of the OpenAPI document against a running debug server with schemathesis:
# no answer may be a 5xx, every answer must match the document (status, content type, schema), and a
# method the document does not list must get 405 with Allow. Bounded (max 50 examples per operation).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-/tmp/tessera-ci-venv}
[ -x "$VENV/bin/st" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q "schemathesis==4.32.5"; }
DIR=$(mktemp -d)
# A port nobody uses now (FUZZ_PORT overrides): two runs on one machine must not collide.
PORT=${FUZZ_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
Server/.build/debug/tessera serve --data-dir "$DIR/data" --port "$PORT" --log-level error > "$DIR/serve.log" 2>&1 & PID=$!
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break
  kill -0 "$PID" 2>/dev/null || { echo "fuzz: the server did not start:"; cat "$DIR/serve.log"; exit 1; }
  sleep 0.1
done
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || { echo "fuzz: the server does not answer on port $PORT"; cat "$DIR/serve.log"; exit 1; }
echo "fuzz: server on port $PORT"
KEY=$(awk '/client key:/{print $3}' "$DIR/serve.log")
TOKEN=$(awk '/admin token:/{print $3}' "$DIR/serve.log")
# ensure_resource_availability is excluded here, not only in the toml: `--checks all` on the command line
# turns back on what the config file turned off (a client's logo answers 404 until uploaded, by design).
timeout 600 "$VENV/bin/st" --config-file .ci/schemathesis.toml run Server/Sources/TesseraServer/OpenAPI/openapi.json --url "http://127.0.0.1:$PORT" \
  --checks all --exclude-checks positive_data_acceptance,ensure_resource_availability --max-examples 50 --seed 1 \
  -H "X-Tessera-Client-Key: $KEY" -H "X-Tessera-Bundle-Id: dev.tessera.demo" -H "Authorization: Bearer $TOKEN"
# The relying-party operations again, with client credentials (HTTP Basic) of a fresh client: the
# run above may have rotated or disabled the demo client.
CREATED=$(curl -sf -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"fuzz","bundleIds":["dev.tessera.fuzz"]}' "http://127.0.0.1:$PORT/v1/admin/clients")
KEY=$(printf '%s' "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client"]["clientKey"])')
SECRET=$(printf '%s' "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["clientSecret"])')
timeout 600 "$VENV/bin/st" --config-file .ci/schemathesis.toml run Server/Sources/TesseraServer/OpenAPI/openapi.json --url "http://127.0.0.1:$PORT" \
  --checks all --exclude-checks positive_data_acceptance,ensure_resource_availability --max-examples 50 --seed 1 --include-path-regex '^/v1/rp/' \
  --auth "$KEY:$SECRET"
