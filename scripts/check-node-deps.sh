#!/usr/bin/env bash
# Checks the target graph of the server package:
# - the server's layers form one line, each depending only on those below it:
#   TesseraHTTPKit → TesseraStorage → TesseraAccounts → TesseraSignIn → TesseraOperations → TesseraServer;
# - no source file imports a target of this package that its own target does not depend on (SwiftPM can
#   let such an import compile when the other module happens to be built first; this makes it an error);
# - the verifier node (TesseraNode) depends on no server layer above TesseraHTTPKit (the SMTP client,
#   the server's storage) nor on PostgreSQL, and no server layer depends on the node.
# Reads `swift package describe --type json`; exits 1 naming what is wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --package-path Server describe --type json 2>/dev/null | python3 -c '
import json, os, re, sys
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
LAYERS = ["TesseraHTTPKit", "TesseraStorage", "TesseraAccounts", "TesseraSignIn", "TesseraOperations", "TesseraServer"]
def closure(name):
    seen, stack, products = set(), [name], set()
    while stack:
        target = targets[stack.pop()]
        products.update(target.get("product_dependencies", []))
        for dependency in target.get("target_dependencies", []):
            if dependency not in seen:
                seen.add(dependency)
                stack.append(dependency)
    return seen, products
problems = []
for index, layer in enumerate(LAYERS):
    if layer not in targets:
        problems.append(f"{layer}: no such target in Server/Package.swift")
        continue
    below, _ = closure(layer)
    for higher in LAYERS[index + 1:]:
        if higher in below: problems.append(f"{layer} depends on {higher}, a layer above it")
    if index > 0 and LAYERS[index - 1] not in targets[layer].get("target_dependencies", []):
        problems.append(f"{layer} does not depend on {LAYERS[index - 1]}, the layer right below it")
    if "TesseraNode" in below: problems.append(f"{layer} depends on TesseraNode")
IMPORT = re.compile(r"^\s*(?:@_exported\s+|@testable\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|typealias)\s+)?(\w+)", re.M)
for name, target in targets.items():
    allowed = closure(name)[0] | {name}
    for source in target.get("sources", []):
        path = os.path.join(package["path"], target["path"], source)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for match in IMPORT.finditer(text):
            module = match.group(1)
            if module in targets and module not in allowed:
                line = text.count("\n", 0, match.start()) + 1
                problems.append(f"{os.path.relpath(path)}:{line}: imports {module}, which {name} does not depend on")
node_targets, node_products = closure("TesseraNode")
for forbidden in LAYERS[1:]:
    if forbidden in node_targets: problems.append(f"TesseraNode depends on {forbidden}")
for forbidden in ["PostgresKit", "PostgresNIO"]:
    if forbidden in node_products: problems.append(f"TesseraNode depends on {forbidden}")
for problem in problems: print("error: " + problem, file=sys.stderr)
if problems: sys.exit(1)
print("target graph: " + " → ".join(LAYERS) + "; TesseraNode depends on " + ", ".join(sorted(node_targets | node_products)))
'
