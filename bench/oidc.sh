#!/usr/bin/env bash
# OpenID Connect and push benchmark, loopback only, one release build of `tessera serve` on SQLite with its
# embedded nodes. Writes bench/results/<UTC>-oidc/ and bench/OIDC.md.
#  1. OIDC sign-ins per second over HTTP only (`tessera-bench oidc`): authorize (PKCE S256) → the hosted page's
#     form → the user's device (the SDK) approves at once → page status → complete → token exchange
#     (client_secret_basic) → ID token checked through the JWKS. Each sign-in comes from its own address
#     (X-Forwarded-For through a trusted loopback proxy) because the page limits attempts per IP. At c=16 and
#     c=64, with the server's CPU (its own and its embedded nodes') per sign-in during the measured phase.
#  1b. Refresh-token grants per second (`tessera-bench oidc-refresh`, rotation, ID token checked) at CONC.
#  2. Pushes per second to the APNs peer (Server/Tests/Fixtures/push_peer.py, HTTP/2 over TLS, checks the
#     provider token): relying-party requests for users whose devices have APNs tokens; delivered pushes
#     counted from the peer's record.
#   env: DURATION=10 CONC=16 USERS=1024 PUSH_USERS=400 PORT=8097 PYTHON=/tmp/tessera-ci-venv/bin/python
#        BUILD=debug (script checks only: figures not comparable)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONC=${CONC:-16}
USERS=${USERS:-1024}   # each signs in at most 5 times; when they run out the run stops early and its RESULT says "stopped"
PUSH_USERS=${PUSH_USERS:-400}
PORT=${PORT:-8097}
PYTHON=${PYTHON:-/tmp/tessera-ci-venv/bin/python}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-oidc
mkdir -p "$OUT/peer"
source bench/lib.sh
build_release

# The APNs peer: a self-signed certificate for 127.0.0.1, an APNs .p8 key (and an FCM key it requires).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=localhost \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$OUT/peer/key.pem" -out "$OUT/peer/cert.pem" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$OUT/peer/apns.p8" 2>/dev/null
openssl pkey -in "$OUT/peer/apns.p8" -pubout -out "$OUT/peer/apns.pub"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$OUT/peer/fcm.pem" 2>/dev/null
openssl pkey -in "$OUT/peer/fcm.pem" -pubout -out "$OUT/peer/fcm.pub"
mkfifo "$OUT/peer/stdin"
"$PYTHON" Server/Tests/Fixtures/push_peer.py --dir "$OUT/peer" --cert "$OUT/peer/cert.pem" --key "$OUT/peer/key.pem" \
  --apns-key "$OUT/peer/apns.pub" --apns-kid BENCHKEY01 --apns-team BENCHTEAM1 --apns-topic dev.tessera.demo \
  --fcm-key "$OUT/peer/fcm.pub" --fcm-email bench@example.iam.gserviceaccount.com < "$OUT/peer/stdin" > "$OUT/peer/peer.log" 2>&1 &
PEER=$!
exec 9> "$OUT/peer/stdin"   # the peer stops when this closes
for _ in $(seq 300); do [ -s "$OUT/peer/port" ] && break; sleep 0.1; done
PEER_PORT=$(cat "$OUT/peer/port")

TESSERA_HTTP_TRUSTED_PROXIES=127.0.0.1 start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000 --push-ca-file "$OUT/peer/cert.pem"
PID=$TPID
trap 'kill $PID 2>/dev/null || true; exec 9>&- || true; kill $PEER 2>/dev/null || true' EXIT
ADMIN=(--server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN")
SECRET=$("$BIN" admin client rotate-secret "$KEY" "${ADMIN[@]}" | awk '/client secret:/{print $3}')
"$BIN" admin client oidc set "$KEY" --redirect-uri http://127.0.0.1:9/callback "${ADMIN[@]}" > /dev/null
"$BIN" admin client push set-apns "$KEY" --team-id BENCHTEAM1 --key-id BENCHKEY01 --key-file "$OUT/peer/apns.p8" \
  --topic dev.tessera.demo --environment sandbox --base-url "https://127.0.0.1:$PEER_PORT" "${ADMIN[@]}" > /dev/null

: > "$OUT/results.jsonl"
# The server's CPU during each measured phase: its own and its embedded nodes' (child processes).
CPU_PIDS=()
for p in $PID $(pgrep -P "$PID" || true); do CPU_PIDS+=(--cpu-pid "$p"); done
COMMON=(--server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" --outbox "$OUT/data" --duration "$DURATION")
run_json oidc-16 -- oidc "${COMMON[@]}" --concurrency 16 --users "$USERS" --prefix o1 --run-number 1
run_json oidc-64 -- oidc "${COMMON[@]}" --concurrency 64 --users "$USERS" --prefix o2 --run-number 3
run_json oidc-refresh -- oidc-refresh "${COMMON[@]}" --concurrency "$CONC" --prefix r1 --run-number 4
timeout $((DURATION + 900)) "$BENCH" push --server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" \
  --outbox "$OUT/data" --records "$OUT/peer/records.jsonl" --concurrency "$CONC" --duration "$DURATION" --users "$PUSH_USERS" \
  --prefix p1 --run-number 2 2> "$OUT/push.err" \
  | sed -n 's/^RESULT /{"bench":"push",/p' | sed 's/,{/,/' | tee -a "$OUT/results.jsonl"
PEAK=$(awk '/^VmHWM/{print int($2/1024)}' /proc/$PID/status)
python3 - "$OUT" "$PEAK" "${BUILD:-release}" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, peak, build = sys.argv[1], sys.argv[2], sys.argv[3]
rows = {r["bench"]: r for r in (json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip())}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# OpenID Connect sign-ins and pushes ({out.rsplit('/', 1)[-1]})\n")
if build != "release":
    print(f"**{build} build: these figures only show that the script works; they are not comparable with release figures.**\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; {build} build, SQLite WAL, 3 embedded nodes, "
      "load generator `tessera-bench` on the same machine, loopback.\n")
signins = [rows[k] for k in ("oidc-16", "oidc-64") if k in rows and "rate" in rows[k]]
if signins:
    print("## OIDC sign-ins (`tessera-bench oidc`)\n")
    print("One sign-in = authorize (PKCE S256) → page form → identifier POST → the device finds the request and approves "
          "(node quorum) → page status → complete (302 with the code) → token exchange → ID token ES256 check through the JWKS "
          "(iss, aud, nonce): 6 browser/RP calls plus the device's 2 signed calls. Server CPU: the server's and its embedded "
          "nodes' user + system time during the measured phase, per completed sign-in.\n")
    print("| conc | sign-ins/s | p50 ms | p99 ms | completed | failed | server CPU ms / sign-in |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for o in signins:
        stopped = " (stopped: out of users)" if o.get("stopped") else ""
        print(f'| {o["conc"]} | {o["rate"]:.1f}{stopped} | {o["p50_ms"]:.1f} | {o["p99_ms"]:.1f} | {o["ceremonies"]} | {o["failed"]} | {o.get("cpu_ms_per_op", 0):.2f} |')
    print()
r = rows.get("oidc-refresh")
if r and "rate" in r:
    print("## Refresh-token grants (`tessera-bench oidc-refresh`)\n")
    print("Each worker holds one sign-in's refresh token (`offline_access`) and uses it, then the one the answer carries "
          "(rotation), each new ID token checked through the JWKS.\n")
    print("| conc | grants/s | p50 ms | p99 ms | completed | failed | server CPU ms / grant |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f'| {r["conc"]} | {r["rate"]:.1f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["ceremonies"]} | {r["failed"]} | {r.get("cpu_ms_per_op", 0):.2f} |\n')
p = rows.get("push")
if p:
    print("## Pushes to the APNs peer (`tessera-bench push`)\n")
    print("Relying-party requests (`POST /v1/rp/auth-requests`), one per user whose device has an APNs token; each writes its push "
          "in the request's transaction, the push outbox delivers it over HTTP/2 to the peer (hypercorn, TLS, ES256 provider token "
          "checked). Rate = pushes the peer accepted / time from the first request to the last push.\n")
    print("| conc | requests | pushes delivered | seconds | pushes/s |")
    print("|---:|---:|---:|---:|---:|")
    print(f'| {p["conc"]} | {p["requests"]} | {p["pushes"]} | {p["seconds"]:.1f} | {p["push_rate"]:.1f} |\n')
print(f"Server peak RSS: {peak} MiB.")
PY
cp "$OUT/summary.md" bench/OIDC.md
echo "results in $OUT; bench/OIDC.md updated"
