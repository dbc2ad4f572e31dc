#!/usr/bin/env bash
# Builds the release `tessera` to install (and, with --bench, the bench's `tessera-bench`) into
# .build-release/release/.
#
# On Linux with glibc 2.36 or later it links with lld (shipped with the Swift toolchain) and packs the
# binary's relative relocations (DT_RELR): the 73,000 relative relocations of a position-independent
# `tessera` took 1.7 MiB that the dynamic linker read, and kept resident, at every start; packed they take
# 19 KiB. Idle RSS 49.6 → 47.6 MiB (bench/PROFILE.md). The binary then needs glibc 2.36 or later where it
# runs, as it has where it was built. Elsewhere (older glibc, macOS) it is a plain `swift build -c release`.
set -euo pipefail
cd "$(dirname "$0")/.."

products=(tessera)
case "${1:-}" in
  "") ;;
  --bench) products+=(tessera-bench) ;;
  *) echo "usage: scripts/build-release.sh [--bench]" >&2; exit 2 ;;
esac

flags=(-c release --package-path Server --scratch-path .build-release)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}' || true)
if [ "$(uname -s)" = Linux ] && [ -n "$glibc" ] && printf '2.36\n%s\n' "$glibc" | sort -V -C; then
  flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
fi
for product in "${products[@]}"; do
  swift build "${flags[@]}" --product "$product"
  echo "built: $PWD/.build-release/release/$product"
done
