#!/usr/bin/env bash
# An app that adds the SDK brings nothing of the server: a one-file app depending on the `Tessera`
# product alone resolves swift-crypto and swift-asn1, nothing else (`swift package show-dependencies`).
# SwiftPM resolves every declared dependency of a package whatever the platform condition on a
# product, so a Linux-only dependency of the root package would reach iOS apps too: the transport
# for Linux lives in Transports/, a package of its own.
# Usage: scripts/check-sdk-dependencies.sh   (exit 1 naming the extra packages)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
app=$(mktemp -d)
trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/OneFileApp"
cat > "$app/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "OneFileApp",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "Tessera", path: "$root")],
    targets: [.executableTarget(name: "OneFileApp", dependencies: [.product(name: "Tessera", package: "Tessera")])]
)
SWIFT
echo 'import Tessera' > "$app/Sources/OneFileApp/main.swift"
json=$(cd "$app" && env -u TESSERA_DOCS swift package show-dependencies --format json 2>/dev/null)
python3 - "$json" <<'PY'
import json, sys
tree = json.loads(sys.argv[1])
seen = set()
def walk(node):
    for dependency in node.get("dependencies", []):
        seen.add(dependency["identity"])
        walk(dependency)
for dependency in tree.get("dependencies", []):  # the SDK package itself, then what it brings
    walk(dependency)
extra = sorted(seen - {"swift-crypto", "swift-asn1"})
if extra:
    print(f"check-sdk-dependencies: an app adding the Tessera product resolves {', '.join(extra)} besides swift-crypto and swift-asn1", file=sys.stderr)
    sys.exit(1)
print(f"SDK dependencies: {', '.join(sorted(seen))}")
PY
