#!/usr/bin/env bash
# Regenerates Server/link-order.txt, the order in which scripts/build-release.sh lays out the release binary's
# functions (lld --symbol-ordering-file): first every function that a start of `tessera serve` (zero-config,
# with its embedded verifier nodes) and its first seconds idle run, in the order they first run; the rest after.
#
# Why: the kernel maps a program's code in blocks (64 KiB around a page that runs, a whole large folio when the
# file is cached in one), and a start runs code spread over most of the 40 MB text. Packed together, the code a
# start needs is about 18 MB instead of 24 MB resident (bench/PROFILE.md, session 12).
#
# How: scripts/link-order/trace-pages.c, loaded with LD_PRELOAD, makes the code non-executable at start and logs
# each page the first time it runs; one symbol of each code section on those pages (from the linker's map) is
# listed, in that order. Names that a later
# change removes are skipped by the linker, new functions go after the listed ones: run this again after large
# changes (it needs the toolchain's clang, curl and python3; about a minute after the release build).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
LINK_MAP=$work/tessera.map scripts/build-release.sh    # the linker's map: which function sits where
BIN=$PWD/.build-release/release/tessera
PORT=${PORT:-18190}
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
"${CC:-clang}" -O2 -shared -fPIC -o "$work/trace-pages.so" scripts/link-order/trace-pages.c
mkdir "$work/pages" "$work/snapshot"
SWIFT_BACKTRACE=enable=no TRACE_DIR="$work/pages" LD_PRELOAD="$work/trace-pages.so" \
  "$BIN" serve --port "$PORT" --log-level error --data-dir "$work/data" > "$work/serve.log" 2>&1 & pid=$!
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || { cat "$work/serve.log"; echo "tessera serve did not start" >&2; exit 1; }
curl -s -o /dev/null "http://127.0.0.1:$PORT/no-such-route"     # a problem answer
sleep 3
cp "$work"/pages/*.bin "$work/snapshot/"                         # start and idle only, not the shutdown
python3 - "$work/tessera.map" "$pid" "$work/snapshot" Server/link-order.txt <<'PY'
import bisect, glob, struct, sys
link_map, server_pid, snapshot, out = sys.argv[1:]
# The code's input sections (one per function, or one per object for code not compiled with function sections)
# and the symbols in each, from the map: "address  address  size  align  <object>:(<section>)" lines, each
# followed by "address  address  size  align  <symbol>" lines.
sections, section, defined = [], None, {}
for line in open(link_map):
    fields = line.split()
    if len(fields) < 5:
        continue
    if ":(" in line:
        name = line.split(":(", 1)[1].rsplit(")", 1)[0]
        section = [int(fields[0], 16), int(fields[2], 16), []] if name == ".text" or name.startswith(".text.") else None
        if section:
            sections.append(section)
    elif len(fields) == 5 and section is not None:
        section[2].append(fields[4])
        defined[fields[4]] = defined.get(fields[4], 0) + 1
sections.sort(key=lambda s: s[0])
starts = [s[0] for s in sections]
traces = sorted(glob.glob(f"{snapshot}/pages-*.bin"), key=lambda p: (p != f"{snapshot}/pages-{server_pid}.bin", p))
names, seen, pages, size = [], set(), set(), 0
for trace in traces:
    for (page,) in struct.iter_unpack("Q", open(trace, "rb").read()):
        pages.add(page)
        i = max(bisect.bisect_right(starts, page) - 1, 0)
        while i < len(sections) and sections[i][0] < page + 4096:
            address, length, symbols = sections[i]
            if address + max(length, 1) > page and i not in seen:
                seen.add(i)
                # One name moves the whole section; a local name that several objects define (compiler helpers
                # such as `objectdestroy.2Tm`) would move all of their sections, so only a name defined once.
                unique = [s for s in symbols if defined[s] == 1]
                if unique:
                    names.append(unique[0])
                    size += length
            i += 1
open(out, "w").write("\n".join(names) + "\n")
print(f"{out}: {len(names)} code sections ({size / 2**20:.1f} MiB) on the {len(pages)} pages of code "
      f"({len(pages) * 4 / 1024:.1f} MiB) that {len(traces)} processes ran")
PY
