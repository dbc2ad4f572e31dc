#!/usr/bin/env bash
# Checks the target graph: the verifier node (TesseraNode) depends on neither the server
# (TesseraServer, which holds the SMTP client) nor PostgreSQL, and the server does not depend on
# the node. Reads `swift package describe --type json`; exits 1 naming what is wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package --package-path Server describe --type json 2>/dev/null | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"]}
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
node_targets, node_products = closure("TesseraNode")
for forbidden in ["TesseraServer"]:
    if forbidden in node_targets: problems.append(f"TesseraNode depends on {forbidden}")
for forbidden in ["PostgresKit", "PostgresNIO"]:
    if forbidden in node_products: problems.append(f"TesseraNode depends on {forbidden}")
server_targets, _ = closure("TesseraServer")
if "TesseraNode" in server_targets: problems.append("TesseraServer depends on TesseraNode")
for problem in problems: print("error: " + problem, file=sys.stderr)
if problems: sys.exit(1)
print("target graph: TesseraNode depends on " + ", ".join(sorted(node_targets | node_products)))
'
