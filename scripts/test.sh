#!/usr/bin/env bash
# The test command: builds and runs every test of both packages — the SDK at the root (`Tessera`,
# `TesseraCore`) and the server, node and CLI in Server/. PostgreSQL suites run when
# TESSERA_TEST_DATABASE_URL is set (.ci/run starts a server and sets it); the SMTP suites start
# their own aiosmtpd (Debian package python3-aiosmtpd). Arguments go to the server package's
# `swift test` (e.g. --filter).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TESSERA_TEST_DATABASE_URL:-}" ]; then
  echo "note: TESSERA_TEST_DATABASE_URL not set: PostgreSQL suites are skipped (CI sets it)"
  if [ "${CI:-}" = "true" ]; then echo "error: CI must test PostgreSQL"; exit 1; fi
fi
# Each domain owns its tables (fast, no build needed): fails naming file, line and table.
scripts/check-table-ownership.sh
# The verifier node links neither the server, nor PostgreSQL, nor SMTP (the target graph).
scripts/check-node-deps.sh
# Swift Testing starts every test at once by default; on 2 shared cores, 200 live servers, node
# processes and browsers interleaved make single requests wait longer than the SDK's 30 s timeout
# (a loaded CI run failed that way). Eight at a time keeps the run short and each request prompt.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
if [ $# -eq 0 ]; then
  echo "== the SDK package (root): builds alone, without the server's dependencies"
  swift build --build-tests
  # The Apple adapters against the shims transcribed from Apple's documentation (Tools/AppleShims):
  # seconds, reusing the build above; fails on a type error in them.
  scripts/check-apple-adapters.sh
  timeout "${TEST_TIMEOUT:-1800}" swift test --skip-build
fi
echo "== the server package (Server/)"
swift build --package-path Server --build-tests
timeout "${TEST_TIMEOUT:-1800}" swift test --package-path Server --skip-build "$@"
