#!/usr/bin/env bash
# Builds the release `tessera` to install (and, with --bench, the bench's `tessera-bench`) into
# .build-release/release/.
#
# On Linux with glibc 2.36 or later:
# - the Swift runtime, Foundation (with ICU) and Dispatch are linked in statically (--static-swift-stdlib), so the
#   dynamic linker no longer loads, relocates and binds a dozen shared libraries at every start, and calls into the
#   runtime (swift_retain, swift_release…) are direct instead of through the PLT. Only the symbols the binary needs
#   from libc, libstdc++, libm and libz stay dynamic (--no-export-dynamic: the static-stdlib default would export
#   all of the binary's own symbols, 5.8 MB of symbol tables nothing looks up);
# - lld (shipped with the Swift toolchain) packs the relative relocations (DT_RELR): 73,000 of them took 1.7 MiB
#   that the dynamic linker read, and kept resident, at every start; packed they take 32 KiB.
# - the functions a start of `tessera serve` runs come first, packed together (Server/link-order.txt, written by
#   scripts/link-order.sh), so the kernel maps less of the code around them.
# Idle RSS 46.9–47.3 → 32.1–32.3 MiB (38.4–38.6 without the link order); introspection and TOTP take 10–16 % less
# CPU (bench/PROFILE.md, session 12). The binary then runs on any Linux with glibc 2.36 or later, libstdc++ and
# zlib, without the Swift toolchain. Elsewhere (older glibc, macOS) it is a plain `swift build -c release`.
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
  flags+=(--static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
          -Xlinker --no-export-dynamic)
  [ -n "${LINK_MAP:-}" ] && flags+=(-Xlinker "-Map=$LINK_MAP" -Xlinker --no-demangle)   # for scripts/link-order.sh
  # The functions a start runs, packed together first (scripts/link-order.sh writes the list).
  [ -f Server/link-order.txt ] && flags+=(-Xlinker "--symbol-ordering-file=$PWD/Server/link-order.txt"
                                          -Xlinker --no-warn-symbol-ordering)
fi
for product in "${products[@]}"; do
  # SwiftPM does not know the order file is an input of the link: a binary older than it is linked again.
  [ -f Server/link-order.txt ] && [ Server/link-order.txt -nt ".build-release/release/$product" ] \
    && rm -f ".build-release/release/$product"
  swift build "${flags[@]}" --product "$product"
  echo "built: $PWD/.build-release/release/$product"
done
