#!/usr/bin/env bash
# The test command: sets up what the tests need, then builds and runs every test of both packages —
# the SDK at the root (`Tessera`, `TesseraCore`) and the server, node and CLI in Server/.
#
#   scripts/test.sh                  everything, PostgreSQL included (what CI runs, through .ci/run)
#   scripts/test.sh --quick          the inner loop: sets nothing up, SQLite only; a test that needs
#                                    something missing (a Debian program, the Python tools, PostgreSQL)
#                                    is reported as skipped, naming it
#   scripts/test.sh --filter Suite   further arguments go to the server package's `swift test`
#                                    (with arguments the SDK package's tests are not run)
#
# The set-up (scripts/test-env.sh): Debian's packages it lacks (apt-get, as root; otherwise it stops
# naming them), a Python venv in .venv-test/ with the PyPI tools the tests drive, and a throw-away
# PostgreSQL on a free port in a temporary directory, stopped at the end (unless
# TESSERA_TEST_DATABASE_URL names a server already). Without --quick a test that lacks any of these
# fails naming it: nothing is skipped, nothing missing counts as passed.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
QUICK=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
case "${1:-}" in
  -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

# Swift Testing starts every test at once unless told otherwise; on two shared cores the live-server tests
# (streams, node quorums, browsers) then starve one another past their time limits: in one full run of the
# server's 404 tests, 20 failed so, and none with 8 at a time (the run took as long). Overridable.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}

# shellcheck source=scripts/test-env.sh
source scripts/test-env.sh
if [ $QUICK = 1 ]; then
  export TESSERA_TEST_QUICK=1
  if [ -z "${TESSERA_TEST_PYTHON:-}" ] && [ -x .venv-test/bin/python ]; then export TESSERA_TEST_PYTHON="$PWD/.venv-test/bin/python"; fi
  echo "== --quick: nothing is set up; PostgreSQL${TESSERA_TEST_DATABASE_URL:+ (set, so included)} and what is missing here are skipped, and the skipped tests say why"
else
  if [ "${TESSERA_TEST_QUICK:-}" = 1 ]; then echo "error: TESSERA_TEST_QUICK=1 is set; use scripts/test.sh --quick instead"; exit 2; fi
  echo "== setting up what the tests need"
  tessera_debian_packages
  tessera_venv
  trap tessera_postgres_stop EXIT
  tessera_postgres
fi

# Each domain owns its tables, and SQL lives only in repositories, migrations and the storage engine
# (fast, no build needed): fails naming file, line and table, or file and line.
scripts/check-table-ownership.sh
# The console's compiled-in files are generated from Console/web/ and up to date (and parse, when node is here).
scripts/generate-console-assets.sh --check
# The verifier node links neither the server, nor PostgreSQL, nor SMTP (the target graph).
scripts/check-node-deps.sh
# Swift Testing starts every test at once by default; on 2 shared cores, 200 live servers, node
# processes and browsers interleaved make single requests wait longer than the SDK's 30 s timeout
# (a loaded CI run failed that way). Eight at a time keeps the run short and each request prompt.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
# Builds, and fails on a compiler warning from the project's own sources (dependencies' and generated
# code's warnings aside). A build only compiles what changed, so a fresh clone (CI) sees them all.
BUILD_LOG=$(mktemp)
build() {
  swift build "$@" 2>&1 | tee "$BUILD_LOG"
  [ "${PIPESTATUS[0]}" = 0 ] || return 1
  local own
  own=$(grep -E "^$PWD/(Sources|Tests|Transports/Sources|Server/Sources|Server/Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$BUILD_LOG" | sort -u || true)
  if [ -n "$own" ]; then echo "error: the build warns about the project's own sources:"; echo "$own"; return 1; fi
}
if [ $# -eq 0 ]; then
  echo "== the SDK package (root): builds alone, without the server's dependencies"
  build --build-tests
  # The Apple adapters against the shims transcribed from Apple's documentation (Tools/AppleShims):
  # seconds, reusing the build above; fails on a type error in them.
  scripts/check-apple-adapters.sh
  # Every public declaration of the SDK and the wire types has a /// comment (symbol graph of the build above).
  scripts/check-sdk-docs.sh
  # An app that adds the SDK resolves swift-crypto and swift-asn1, nothing of the server.
  scripts/check-sdk-dependencies.sh
  timeout "${TEST_TIMEOUT:-1800}" swift test --skip-build
fi
echo "== the server package (Server/)"
build --package-path Server --build-tests
rm -f "$BUILD_LOG"
timeout "${TEST_TIMEOUT:-1800}" swift test --package-path Server --skip-build "$@"
if [ $QUICK = 0 ]; then tessera_postgres_check_left; fi
echo "== scripts/test.sh: done in $(( ($(date +%s) - START) / 60 )) min $(( ($(date +%s) - START) % 60 )) s"
