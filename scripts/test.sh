#!/usr/bin/env bash
# The test command: builds and runs every test. PostgreSQL suites run when
# TESSERA_TEST_DATABASE_URL is set (.ci/run starts a server and sets it); the SMTP suites start
# their own aiosmtpd (Debian package python3-aiosmtpd).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TESSERA_TEST_DATABASE_URL:-}" ]; then
  echo "note: TESSERA_TEST_DATABASE_URL not set: PostgreSQL suites are skipped (CI sets it)"
  if [ "${CI:-}" = "true" ]; then echo "error: CI must test PostgreSQL"; exit 1; fi
fi
scripts/check-node-deps.sh
swift build --build-tests
timeout "${TEST_TIMEOUT:-1800}" swift test --skip-build "$@"
