#!/usr/bin/env bash
# Builds the SDK's documentation: the DocC catalog Sources/Tessera/Tessera.docc (the landing page and
# the migration guides from the vendor SDKs) with the symbols of the `Tessera` target. swift-docc-plugin
# comes from the package mirror and is added to Package.swift only when TESSERA_DOCS=1, so apps that
# depend on the SDK never resolve it. Fails when DocC reports an error (DOCS_STRICT=1: on warnings too).
# Output: .build/docs/Tessera.doccarchive, a static site (see README, "Documentation").
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_DOCS=1
OUT="${DOCS_OUTPUT:-$PWD/.build/docs}"
mkdir -p "$OUT"
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
STRICT=()
if [ "${DOCS_STRICT:-}" = "1" ]; then STRICT=(--warnings-as-errors); fi
SCRATCH=()   # DOCS_SCRATCH_PATH: another build directory than .build
if [ -n "${DOCS_SCRATCH_PATH:-}" ]; then SCRATCH=(--scratch-path "$DOCS_SCRATCH_PATH"); fi
swift package ${SCRATCH[@]+"${SCRATCH[@]}"} --allow-writing-to-directory "$OUT" generate-documentation --target Tessera \
  --output-path "$OUT/Tessera.doccarchive" --transform-for-static-hosting ${STRICT[@]+"${STRICT[@]}"} 2>&1 | tee "$LOG"
if grep -qE "(^|: )error: " "$LOG"; then
  echo "error: DocC reported errors (above)"
  exit 1
fi
echo "documentation: $OUT/Tessera.doccarchive ($(grep -cE "(^|: )warning: " "$LOG" || true) DocC warnings)"
