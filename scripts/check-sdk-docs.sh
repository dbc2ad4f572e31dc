#!/usr/bin/env bash
# Every public (and open) declaration of the SDK's modules `Tessera`, `TesseraCore` and
# `TesseraTesting` has a `///` comment (issue 36). Reads the symbol graphs of
# `swift package dump-symbol-graph --minimum-access-level public` (the same graphs DocC reads),
# written to .build/<triple>/symbolgraph/<Module>.symbols.json and <Module>@<Other>.symbols.json
# (members of extensions on other modules' types, e.g. TesseraCore@Swift).
#
# What counts (the rule, from what the JSON holds, checked with Swift 6.3):
# - A declaration counts when its symbol is public or open and has a source `location`. Members the
#   compiler synthesizes or that come from a protocol's default implementation (`==`, `!=`,
#   `hashValue`, the memberwise `init(from:)`/`encode(to:)` of Codable, OptionSet's `union`, …) have
#   no `location` and are not counted: nobody can write a comment on them. `CodingKeys` does not
#   appear at all: the synthesized one is private, and no public type of these modules declares one.
#   A default implementation in a protocol extension of this package is copied into every conforming
#   type (`<id>::SYNTHESIZED::<type>`, with the extension's location and comment): each source
#   location counts once. Locations outside the repository or under .build are not counted.
# - It is documented when its symbol has a `docComment` with some non-blank text. The graph gives an
#   implementation of a protocol requirement that has no comment of its own the requirement's
#   comment (the symbol's `memberOf` relationship carries a `sourceOrigin` naming the requirement):
#   from the standard library it comes with `"module": "Swift"` and no `uri` (e.g.
#   `RPAuthRequest.init(from:)`, a hand-written `Decodable.init(from:)`: "Creates a new instance by
#   decoding from the given decoder."), from this package with the requirement's own file and lines
#   (e.g. `MemoryKeyStore.saveState(_:)` gets `DeviceKeyStore.saveState(_:)`'s). Such a symbol counts
#   as documented, because the graph holds a comment for it, not because it implements a requirement.
#   (Whether DocC's page shows another module's comment, such as the standard library's, is up to
#   DocC's --enable-inherited-docs; this check goes by the graph.) The script counts them apart
#   ("inherit the comment of the protocol requirement") and lists them with --show-inherited. A
#   declaration without a comment whose graph entry has none is missing, whatever it conforms to.
# - An empty `///` (only blank lines) counts as missing.
#
# Output: one line per missing comment, `path:line: public <kind> <Type.member> has no /// comment`,
# then a one-line summary. Exit 1 when more than N are missing (--max N, default 0).
# Usage: scripts/check-sdk-docs.sh [--max N] [--show-inherited]
set -euo pipefail
cd "$(dirname "$0")/.."
max=0
show_inherited=0
while [ $# -gt 0 ]; do
  case "$1" in
    --max)
      [ $# -ge 2 ] || { echo "usage: $0 [--max N] [--show-inherited]" >&2; exit 2; }
      max="$2"; shift 2 ;;
    --max=*) max="${1#--max=}"; shift ;;
    --show-inherited) show_inherited=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--max N] [--show-inherited]" >&2; exit 2 ;;
  esac
done
case "$max" in ''|*[!0-9]*) echo "error: --max takes a whole number, not '$max'" >&2; exit 2 ;; esac

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Without TESSERA_DOCS the DocC plugin is not resolved (Package.swift): the graph needs only a build.
if ! env -u TESSERA_DOCS swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1; then
  cat "$log" >&2
  echo "error: swift package dump-symbol-graph failed (above)" >&2
  exit 1
fi

# SwiftPM empties the directory before writing it. With several triples under .build, the newest wins.
graphs=""
for dir in .build/*/symbolgraph; do
  [ -f "$dir/Tessera.symbols.json" ] || continue
  if [ -z "$graphs" ] || [ "$dir/Tessera.symbols.json" -nt "$graphs/Tessera.symbols.json" ]; then graphs="$dir"; fi
done
if [ -z "$graphs" ]; then
  cat "$log" >&2
  echo "error: no .build/<triple>/symbolgraph/Tessera.symbols.json after dump-symbol-graph" >&2
  exit 1
fi

python3 - "$graphs" "$PWD" "$max" "$show_inherited" <<'PY'
import glob, json, os, sys
from urllib.parse import unquote, urlparse

graphs, root, limit, show_inherited = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
modules = ["Tessera", "TesseraCore", "TesseraTesting"]
kinds = {
    "swift.class": "class", "swift.struct": "struct", "swift.enum": "enum", "swift.protocol": "protocol",
    "swift.actor": "actor", "swift.typealias": "typealias", "swift.associatedtype": "associatedtype",
    "swift.enum.case": "case", "swift.init": "init", "swift.deinit": "deinit", "swift.property": "var",
    "swift.type.property": "static var", "swift.var": "var", "swift.method": "func",
    "swift.type.method": "static func", "swift.func": "func", "swift.func.op": "operator",
    "swift.subscript": "subscript", "swift.type.subscript": "static subscript", "swift.macro": "macro",
    "swift.extension": "extension",
}

def path_of(uri):
    path = unquote(urlparse(uri).path)
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel

def has_text(doc):
    return doc is not None and any(line.get("text", "").strip() for line in doc.get("lines", []))

entries = []   # (module, symbol)
origins = {}   # precise identifier -> (identifier, name) of the requirements it implements
by_id = {}     # every symbol of the three modules' graphs, to compare an inherited comment with its origin
for module in modules:
    files = [os.path.join(graphs, f"{module}.symbols.json")] + sorted(glob.glob(os.path.join(graphs, f"{module}@*.symbols.json")))
    if not os.path.isfile(files[0]):
        sys.exit(f"error: {files[0]} is missing")
    for file in files:
        with open(file) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            by_id[symbol["identifier"]["precise"]] = symbol
            entries.append((module, symbol))
        for relationship in graph["relationships"]:
            origin = relationship.get("sourceOrigin")
            if origin:
                origins.setdefault(relationship["source"], []).append((origin["identifier"], origin.get("displayName", "?")))

# A default implementation from a protocol extension of this package appears once more in every
# conforming type (`<id>::SYNTHESIZED::<type>`), with the extension's location and comment: one
# declaration, counted once, where it is written (those copies come last and are skipped).
entries.sort(key=lambda entry: "::SYNTHESIZED::" in entry[1]["identifier"]["precise"])
missing, inherited, counted, seen = [], [], 0, set()
for module, symbol in entries:
    precise = symbol["identifier"]["precise"]
    location = symbol.get("location")
    if symbol.get("accessLevel") not in ("public", "open") or location is None:
        continue
    written = (location["uri"], location["position"]["line"], location["position"]["character"])
    file = path_of(location["uri"])
    if written in seen or os.path.isabs(file) or file.startswith(".build/"):
        continue  # already counted, or declared outside the repository (a dependency's default implementation)
    seen.add(written)
    counted += 1
    where = f"{file}:{location['position']['line'] + 1}"  # the graph counts lines from 0
    name = ".".join(symbol["pathComponents"])
    kind = kinds.get(symbol["kind"]["identifier"], symbol["kind"]["identifier"])
    doc = symbol.get("docComment")
    if not has_text(doc):
        missing.append(f"{where}: {symbol['accessLevel']} {kind} {name} has no /// comment")
        continue
    if precise in origins:
        # Written here, or the requirement's comment handed down (another module's, or the same as the origin's).
        foreign = doc.get("module") != module or doc.get("uri") != location["uri"]
        same_as_origin = any(by_id.get(o, {}).get("docComment") == doc for o, _ in origins[precise])
        if foreign or same_as_origin:
            requirements = ", ".join(n for _, n in origins[precise])
            inherited.append(f"{where}: {symbol['accessLevel']} {kind} {name} has the comment of {requirements} ({doc.get('module', '?')})")

for line in missing:
    print(line)
if show_inherited:
    for line in inherited:
        print(line)
note = f" ({len(inherited)} of them inherit the comment of the protocol requirement they implement)" if inherited else ""
if missing:
    print(f"SDK docs: {counted} public declarations, {len(missing)} without a /// comment (at most {limit} allowed){note}")
    sys.exit(1 if len(missing) > limit else 0)
print(f"SDK docs: {counted} public declarations, all documented{note}")
PY
