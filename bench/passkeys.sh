#!/usr/bin/env bash
# Passkey sign-in benchmark (issue 38), loopback only, one release build of `tessera serve` on SQLite with its three
# embedded nodes. Writes bench/results/<UTC>-passkeys/ and bench/PASSKEYS.md.
#  One sign-in = authorize (PKCE S256) → the hosted page → POST …/passkey/options → an assertion minted by a software
#  authenticator in the load generator (ES256) → POST …/passkey (the code) → token exchange (client_secret_basic) →
#  ID token checked through the JWKS. No browser. Each worker first signs a user up, signs in once with the phone and
#  adds a passkey on the page's offer (not measured).
#  The same through the app API (`--flow app`, the SDK's signInWithPasskey): POST /v1/passkeys/authentication/options →
#  the assertion → POST …/authentication/verify (the result token, checked through the JWKS): 2 HTTP calls. Each
#  worker first signs a user up and registers a passkey with the SDK's registerPasskey (not measured).
#  1. passkeys verified by the server alone, at c=64, both flows;
#  2. the same with the client's policy `passkeyNodeVerification` on: every sign-in also needs two of the nodes to
#     verify the assertion themselves.
#  With the server's CPU (its own and its embedded nodes') per sign-in during each measured phase.
#   env: DURATION=10 CONC=64 PORT=8098 BUILD=debug (script checks only: figures not comparable)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DURATION=${DURATION:-10}
CONC=${CONC:-64}
PORT=${PORT:-8098}
OUT=$ROOT/bench/results/$(date -u +%Y%m%dT%H%M%SZ)-passkeys
mkdir -p "$OUT"
source bench/lib.sh
build_release

# WebAuthn needs the issuer on a name (not an IP address): localhost. The set-up sign-ins come "from" their own
# addresses (X-Forwarded-For through a trusted loopback proxy): the page limits identifier submissions per IP.
TESSERA_HTTP_TRUSTED_PROXIES=127.0.0.1 start_tessera "$OUT/tessera.log" "$PORT" --data-dir "$OUT/data" --auth-issuer "http://localhost:$PORT" \
  --otp-per-ip-hourly-limit 1000000000 --otp-per-client-hourly-limit 1000000000
PID=$TPID
trap 'kill $PID 2>/dev/null || true' EXIT
ADMIN=(--server "http://127.0.0.1:$PORT" --admin-token "$ADMIN_TOKEN")
SECRET=$("$BIN" admin client rotate-secret "$KEY" "${ADMIN[@]}" | awk '/client secret:/{print $3}')
"$BIN" admin client oidc set "$KEY" --redirect-uri http://127.0.0.1:9/callback --offer-passkeys "${ADMIN[@]}" > /dev/null

: > "$OUT/results.jsonl"
CPU_PIDS=()
for p in $PID $(pgrep -P "$PID" || true); do CPU_PIDS+=(--cpu-pid "$p"); done
COMMON=(--server "http://127.0.0.1:$PORT" --client-key "$KEY" --client-secret "$SECRET" --outbox "$OUT/data" --duration "$DURATION"
        --concurrency "$CONC")
run_json passkeys-server -- passkeys "${COMMON[@]}" --prefix k1 --run-number 1
run_json passkeys-app-server -- passkeys "${COMMON[@]}" --flow app --prefix k3 --run-number 3
"$BIN" admin client policy "$KEY" --passkey-node-verification true "${ADMIN[@]}" > /dev/null
run_json passkeys-nodes -- passkeys "${COMMON[@]}" --prefix k2 --run-number 2
run_json passkeys-app-nodes -- passkeys "${COMMON[@]}" --flow app --prefix k4 --run-number 4
python3 - "$OUT" "${BUILD:-release}" <<'PY' | tee "$OUT/summary.md"
import json, sys, platform, subprocess
out, build = sys.argv[1], sys.argv[2]
rows = {r["bench"]: r for r in (json.loads(l) for l in open(f"{out}/results.jsonl") if l.strip())}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"# Passkey sign-ins ({out.rsplit('/', 1)[-1]})\n")
if build != "release":
    print(f"**{build} build: these figures only show that the script works; they are not comparable with release figures.**\n")
print(f"{subprocess.getoutput('nproc')} cores, {cpu}, kernel {platform.release()}; {build} build, SQLite WAL, 3 embedded nodes, "
      "load generator `tessera-bench passkeys` on the same machine, loopback.\n")
print("**oidc**: one sign-in = authorize (PKCE S256) → the hosted page → `passkey/options` → an ES256 assertion minted by the "
      "load generator's software authenticator → `passkey` (the code) → token exchange → ID token checked through the JWKS: "
      "4 HTTP calls, no browser. **app**: the SDK's `signInWithPasskey` → `POST /v1/passkeys/authentication/options` → the "
      "assertion → `POST …/authentication/verify` → the result token checked through the JWKS: 2 HTTP calls (options → "
      "assertion → token, as the issue's goal reads). Server CPU: the server's and its embedded nodes' user + system time "
      "during the measured phase, per completed sign-in. The goal (issue 38) is 500 sign-ins/s at c=64 on SQLite.\n")
print("| flow | verified by | conc | sign-ins/s | p50 ms | p99 ms | completed | failed | server CPU ms / sign-in | server cores busy |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for key, flow, label in (("passkeys-server", "oidc", "the server"), ("passkeys-app-server", "app", "the server"),
                         ("passkeys-nodes", "oidc", "the server and 2 of 3 nodes"), ("passkeys-app-nodes", "app", "the server and 2 of 3 nodes")):
    r = rows.get(key, {})
    if "rate" in r:
        cores = r["rate"] * r.get("cpu_ms_per_op", 0) / 1000
        print(f'| {flow} | {label} | {r["conc"]} | {r["rate"]:.1f} | {r["p50_ms"]:.1f} | {r["p99_ms"]:.1f} | {r["ceremonies"]} | {r["failed"]} | {r.get("cpu_ms_per_op", 0):.2f} | {cores:.2f} |')
    else:
        print(f"| {flow} | {label} | – | missing (see {key}.err) | | | | | | |")
print("\nServer cores busy = sign-ins/s × server CPU per sign-in: what the server and its nodes used of the machine's cores; the "
      "load generator (ES256 assertions, JWT checks, HTTP) used the rest. On a machine where the load generator shares the "
      "server's cores, the rate is bounded by the cores divided by (server + load generator) CPU per sign-in, not by a lock.")
PY
cp "$OUT/summary.md" bench/PASSKEYS.md
