#!/usr/bin/env bash
# Fuzzes every operation of the OpenAPI document against a running debug server with schemathesis:
# no answer may be a 5xx, every answer must match the document (status, content type, schema), and a
# method the document does not list must get 405 with Allow. Bounded (max 50 examples per operation).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-/tmp/tessera-ci-venv}
[ -x "$VENV/bin/st" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q schemathesis; }
DIR=$(mktemp -d)
PORT=${FUZZ_PORT:-8187}
.build/debug/tessera serve --data-dir "$DIR/data" --port "$PORT" --log-level error > "$DIR/serve.log" 2>&1 & PID=$!
trap 'kill $PID 2>/dev/null || true; rm -rf "$DIR"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
KEY=$(awk '/client key:/{print $3}' "$DIR/serve.log")
TOKEN=$(awk '/admin token:/{print $3}' "$DIR/serve.log")
timeout 600 "$VENV/bin/st" run Sources/TesseraServer/OpenAPI/openapi.json --url "http://127.0.0.1:$PORT" \
  --checks all --exclude-checks positive_data_acceptance --max-examples 50 --seed 1 \
  -H "X-Tessera-Client-Key: $KEY" -H "X-Tessera-Bundle-Id: dev.tessera.demo" -H "Authorization: Bearer $TOKEN"
# The relying-party operations again, with client credentials (HTTP Basic) of a fresh client: the
# run above may have rotated or disabled the demo client.
CREATED=$(curl -sf -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"name":"fuzz","bundleIds":["dev.tessera.fuzz"]}' "http://127.0.0.1:$PORT/v1/admin/clients")
KEY=$(printf '%s' "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client"]["clientKey"])')
SECRET=$(printf '%s' "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["clientSecret"])')
timeout 600 "$VENV/bin/st" run Sources/TesseraServer/OpenAPI/openapi.json --url "http://127.0.0.1:$PORT" \
  --checks all --exclude-checks positive_data_acceptance --max-examples 50 --seed 1 --include-path-regex '^/v1/rp/' \
  --auth "$KEY:$SECRET"
