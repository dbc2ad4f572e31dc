#!/usr/bin/env bash
# Each domain owns its tables: only the domain whose folder creates a table (its
# <Domain>/<Domain>Migrations.swift, or the file holding the CREATE TABLE) names it in SQL; another
# domain asks the owner through its repository. The owners are derived from the CREATE TABLE
# statements, not kept by hand. Every target under Server/Sources is scanned (TesseraServer,
# TesseraHTTPKit, TesseraNode, TesseraBench, TesseraCLI), Storage/ included.
#
# It reads SQL in any letter case, across multi-line and raw strings, through string constants of
# the same file and interpolations (`\(unsafeRaw: table)`, `\(ident: …)`, `SQLIdentifier("…")`),
# quoted identifiers, and SQLKit builders (.update/.insert/.delete write, .from/.join read). Writes
# (INSERT/UPDATE/DELETE/ALTER/DROP/CREATE) and reads (FROM/JOIN) are told apart: the few named joins
# of a hot path may read a foreign table, never write it. scripts/table_ownership.py has the rules,
# the allowances (NAMED_JOINS, PENDING) and what a lexical check cannot see.
#
# It then checks where SQL is written at all (scripts/sql_placement.py): only in a repository
# (<Something>Repository.swift or <Something>Repository+<Feature>.swift), a <Something>Migrations.swift,
# the storage target (TesseraStorage/) or TesseraHTTPKit; a
# service, controller or command that holds SQL text or an SQLKit builder fails.
#
# Usage: scripts/check-table-ownership.sh [sources]   (default: Server/Sources of this repository)
# Exit 0 when both rules hold; 1 with "path:line: table 'x' belongs to Target/Domain/ (…)" or
# "path:line: SQL outside a repository (…)" per violation.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${1:-$here/../Server/Sources}"
if [ ! -d "$root" ]; then echo "check-table-ownership: no directory $root" >&2; exit 1; fi
if [ -z "${1:-}" ]; then cd "$here/.." && root=Server/Sources; fi
status=0
python3 "$here/table_ownership.py" "$root" || status=$?
python3 "$here/sql_placement.py" "$root" || status=$?
exit "$status"
