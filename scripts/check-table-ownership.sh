#!/usr/bin/env bash
# Each domain owns its tables: no Swift file of the server outside a table's domain folder names
# that table in SQL (FROM / JOIN / INTO / UPDATE / TABLE in a string, or SQLKit's
# .from("…") / .update("…") / .insert(into: "…") / .delete(from: "…") / .join("…")). Another domain
# asks the owner through its repository protocol. Storage/ (migrations, shared plumbing) is exempt.
#
# The tables come from the migrations (Storage/Migrations.swift): a table created there that no
# domain below owns fails the check too, so a new table gets an owner when it is added.
#
# Usage: scripts/check-table-ownership.sh [server source root]   (default: found from the repository)
# Exit 0 when the rule holds; 1 with "file:line: table 'x' belongs to Y/" for each violation.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${1:-}"
if [ -z "$root" ]; then
  migrations=$(find . -path ./.build -prune -o -path '*/TesseraServer/Storage/Migrations.swift' -print | grep -v '/\.build' | head -n 1)
  if [ -z "$migrations" ]; then echo "check-table-ownership: no TesseraServer/Storage/Migrations.swift found" >&2; exit 1; fi
  root=$(dirname "$(dirname "$migrations")")
fi

exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]

# Domain folder -> the tables it owns (its repository is the only code that names them).
OWNERS = {
    "Admin": ["server_settings"],
    "Auth": ["auth_channels", "signing_keys"],
    "Authenticators": ["authenticators", "authenticator_challenges"],
    "Clients": ["clients", "client_policies"],
    "Courier": ["outbox"],
    "Devices": ["devices", "request_nonces"],
    "Flows": ["registration_flows"],
    "Nodes": ["nodes", "node_sync", "node_receipts"],
    "Push": ["push_outbox", "client_push_settings"],
    "Proofing": ["otp_challenges", "otp_send_gates", "dispose_tokens"],
    "RelyingParty": ["totp_state"],
    "Security": ["server_secrets"],
    "Sessions": ["sessions"],
    "Users": ["users"],
    "OIDC": ["oidc_clients", "oidc_requests", "oidc_codes", "oidc_tokens"],
    "Storage": ["rate_counters", "schema_migrations"],
    "Audit": ["audit_log", "audit_head", "audit_checkpoints"],
    "Webhooks": ["webhook_endpoints", "webhook_deliveries"],
}

# Folders whose files may name any table: the migrations and the shared storage plumbing.
EXEMPT_FOLDERS = {"Storage"}

# Named queries that join a foreign table because a hot path needs one round trip. Each lives in
# the owner of the query's main table, reads the foreign table only, and is the one place that does.
NAMED_JOINS = {
    # Every session-authenticated call: the session, its user's client and its device's status.
    ("Sessions/SessionRepository.swift", "users"),
    ("Sessions/SessionRepository.swift", "devices"),
    # TOTP verification (the relying party's hot path) and GET /v1/devices/me: devices by user key.
    ("Devices/DeviceRepository.swift", "users"),
    # Every authentication step: the device with its user's and client's keys in one indexed join,
    # and the relying party's "which user of this client, with an active device" lookup.
    ("Devices/DeviceRepository+Auth.swift", "users"),
    ("Devices/DeviceRepository+Auth.swift", "clients"),
    # The node-sync reconciliation: one INSERT … SELECT FROM devices per pass (reads devices only).
    ("Nodes/NodeSyncQueries.swift", "devices"),
}

# TEMPORARY allow-list, to be emptied by the lead after merging issue 12: these folders are being
# rewritten by other helpers at the same time (Auth/: the auth pieces; Nodes/: the node module;
# the bench fixtures leave production code), so their current reads of foreign tables stay until
# then. Each entry is (file, table).
PENDING = set()

migrations_path = os.path.join(root, "Storage", "Migrations.swift")
with open(migrations_path, encoding="utf-8") as f:
    created = set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)", f.read()))
if not created:
    print(f"{migrations_path}: no CREATE TABLE found", file=sys.stderr)
    sys.exit(1)

owner_of = {}
for folder, tables in OWNERS.items():
    for table in tables:
        owner_of[table] = folder

problems = []
for table in sorted(created - owner_of.keys()):
    problems.append(f"{migrations_path}: table '{table}' has no owning domain (add it to OWNERS in scripts/check-table-ownership.sh)")

sql_name = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([a-z_][a-z0-9_]*)")
builder_name = re.compile(r"\.(?:from|update|join|insert\(into:|delete\(from:)\s*\(?\s*\"([a-z_][a-z0-9_]*)\"")
string_literal = re.compile(r'"(?:[^"\\]|\\.)*"')

def sql_text(line, in_block):
    """The parts of a line that can hold SQL: string literals, or the whole line inside a \"\"\" block."""
    stripped = line.strip()
    if in_block:
        return line
    if stripped.startswith("//"):
        return ""
    return " ".join(string_literal.findall(line))

used_pending = set()
for dirpath, _, files in os.walk(root):
    for name in sorted(files):
        if not name.endswith(".swift"):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        folder = rel.split(os.sep)[0]
        if folder in EXEMPT_FOLDERS:
            continue
        in_block = False
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                quotes = line.count('"""')
                text = sql_text(line, in_block)
                names = set(sql_name.findall(text)) | set(builder_name.findall(line if not line.strip().startswith("//") else ""))
                if quotes % 2 == 1:
                    in_block = not in_block
                for table in sorted(names):
                    owner = owner_of.get(table)
                    if owner is None or owner == folder:
                        continue
                    key = (rel.replace(os.sep, "/"), table)
                    if key in NAMED_JOINS:
                        continue
                    if key in PENDING:
                        used_pending.add(key)
                        continue
                    problems.append(f"{path}:{number}: table '{table}' belongs to {owner}/; ask its repository instead")

for key in sorted(PENDING - used_pending):
    print(f"note: allow-list entry {key[0]} / {key[1]} is no longer needed: remove it", file=sys.stderr)

if problems:
    print("\n".join(problems), file=sys.stderr)
    print(f"table ownership: {len(problems)} violation(s)", file=sys.stderr)
    sys.exit(1)
print("table ownership: ok")
PY
