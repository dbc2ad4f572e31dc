#!/usr/bin/env bash
# Type-checks the SDK's Apple adapters (Sources/Tessera/Apple/Platform, the URLSession transport) and
# the sample app's model on Linux, against the declarations transcribed from Apple's documentation in
# Tools/AppleShims (see its README: this checks against our transcription, not Apple's SDK). Needs
# the root package built first (`swift build --build-tests`): it reuses the compiler flags and
# modules of that build, so it takes seconds. Fails on any type error.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)
manifest="$(dirname "$bin")/../debug.yaml"
[ -f "$manifest" ] || manifest=.build/debug.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The flags SwiftPM compiled the Tessera target with, minus its outputs and inputs.
python3 - "$manifest" > "$work/flags" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("args: [") and '"-module-name","Tessera",' in line:
        args = json.loads(line[len("args: "):])
        break
else:
    sys.exit("no compile command of the Tessera module in " + sys.argv[1] + ": run swift build first")
drop_with_value = {"-module-name", "-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path"}
drop = {"-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics",
        "-parseable-output", "-emit-objc-header", "-g", "-enable-testing"}
out, i = [], 1
while i < len(args):
    arg = args[i]
    if arg == "-Xcc":  # a flag for clang, kept with its value
        out += args[i:i + 2]; i += 2; continue
    if arg in drop_with_value: i += 2; continue
    i += 1
    if arg in drop or arg.startswith("@") or arg.startswith("-j"): continue
    out.append(arg)
print("\n".join(out))
PY
mapfile -t flags < "$work/flags"
swiftc=$(command -v swiftc)

shim() {  # module name, then extra flags
  local name=$1; shift
  "$swiftc" "${flags[@]}" "$@" -I "$work" -module-name "$name" -emit-module -emit-module-path "$work/$name.swiftmodule" \
    Tools/AppleShims/Sources/"$name"/*.swift
}
shim LocalAuthentication
shim Security
shim CryptoKit
shim URLSessionShims
shim AuthenticationServices
shim DeviceCheck

mapfile -t sources < <(find Sources/Tessera -name '*.swift' | sort)
echo "type-checking ${#sources[@]} files of Tessera with LocalAuthentication, Security, CryptoKit, AuthenticationServices and DeviceCheck shims"
"$swiftc" "${flags[@]}" -I "$work" -D TESSERA_APPLE_SHIMS -module-name Tessera -typecheck "${sources[@]}"
# The sample's model against the same SDK (its SwiftUI view needs a Mac).
"$swiftc" "${flags[@]}" -I "$work" -D TESSERA_APPLE_SHIMS -module-name Tessera -enable-testing -emit-module \
  -emit-module-path "$work/Tessera.swiftmodule" "${sources[@]}"
"$swiftc" -I "$work" "${flags[@]}" -module-name TesseraSampleApp -typecheck Examples/TesseraSampleApp/Sources/TesseraSampleApp/SampleModel.swift
# The Apple-only tests (they run in .github/workflows/apple.yml), against the same SDK.
"$swiftc" -I "$work" "${flags[@]}" -module-name TesseraSDKTests -typecheck Tests/TesseraSDKTests/Apple/ApplePlatformTests.swift
echo "Apple adapters type-check against the shims"
