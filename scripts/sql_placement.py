#!/usr/bin/env python3
"""SQL lives in repositories and the storage engine only.

Run through scripts/check-table-ownership.sh (scripts/test.sh does), after table_ownership.py. Usage:
    sql_placement.py SOURCES      (SOURCES: the server package's Sources/, every target in it)
Exit 0 when the rule holds; 1 with one line per violation on stderr:
    path:line: SQL outside a repository (what the line holds): SQL lives in the owner's <Domain>Repository.swift …

Where SQL may be (paths relative to SOURCES):
- a file named `<Something>Repository.swift` or `<Something>Repository+<Feature>.swift` (a repository
  protocol, its `SQL…` implementation, and their extensions);
- a file named `<Something>Migrations.swift` (a domain's schema parts);
- the storage target, `TesseraStorage/`;
- `TesseraHTTPKit/`, the storage engine below the server (SQLite, the migrations runner, the signed
  requests' nonce store).
A service, controller, worker or command asks a repository instead; a cross-domain change is one
`database.transaction` whose handle goes to each owner's method (`in sql: any SQLDatabase`).

What counts as SQL, in every Swift file of every other place (comments aside; string literals are read
with table_ownership.py's lexer, joined across `+` and multi-line and raw strings, with same-file
constants resolved in interpolations):
- a string that starts a statement: SELECT, WITH, PRAGMA, VACUUM, BEGIN, COMMIT, ROLLBACK, SAVEPOINT,
  RELEASE, EXPLAIN (upper case: "Select a device" is prose, "SELECT 1" is SQL);
- anywhere in a string, in any letter case: INSERT/REPLACE INTO x, UPDATE x SET, DELETE FROM x,
  SELECT … FROM x (SELECT in upper case, or a column list, FROM, a table and WHERE/JOIN/ORDER/… or the
  end), CREATE/ALTER/DROP TABLE, CREATE INDEX, ON CONFLICT, TRUNCATE x;
- SQLKit and TesseraHTTPKit calls: `x.raw(…)`, `x.select()`, `.update(<table>)` (a literal, a constant
  of the file or `SQLIdentifier(…)`), `.insert(into:)`, `.delete(from:)`, `.create(table:)`,
  `.alter(table:)`, `.drop(table:)`, and the types `SQLRaw`, `SQLQueryString`, `SQLStatement` (called or
  named in a declaration).
An HTTP method with a path ("DELETE sessions/{id}", `.send(.DELETE, …)`) is not SQL.

PENDING lists the files of other changes still holding SQL: each entry says which change removes it, and
an entry no longer needed is reported so it gets removed.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table_ownership import FileScan, call_args, label_of, split_args  # noqa: E402

# Where SQL belongs: file names and folders (relative to Sources/).
ALLOWED_NAME = re.compile(r"^[A-Za-z0-9_]+(?:Repository(?:\+[A-Za-z0-9_]+)?|Migrations)\.swift$")
ALLOWED_FOLDERS = ("TesseraStorage/", "TesseraHTTPKit/")

# TEMPORARY: files of other changes that still hold SQL, each with the change that removes it.
PENDING: dict[str, str] = {}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
NAME = r'(?:"' + IDENT + r'"|`' + IDENT + r"`|\[" + IDENT + r"\]|" + IDENT + r"|\x00)"
# (what, pattern): the place of the match is the line reported.
TEXT_PATTERNS = [
    ("a statement", re.compile(r"^\s*(?:SELECT|WITH|PRAGMA|VACUUM|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|EXPLAIN)\b")),
    ("INSERT INTO", re.compile(r"\b(?:INSERT|REPLACE)\s+(?:OR\s+" + IDENT + r"\s+)?INTO\s+" + NAME, re.IGNORECASE)),
    ("UPDATE … SET", re.compile(r"\bUPDATE\s+(?:OR\s+" + IDENT + r"\s+)?(?:ONLY\s+)?" + NAME + r"\s+SET\b", re.IGNORECASE)),
    ("DELETE FROM", re.compile(r"\bDELETE\s+FROM\s+" + NAME, re.IGNORECASE)),
    ("SELECT … FROM", re.compile(r"\bSELECT\b[^;]*?\b(?i:FROM)\s+" + NAME)),
    # Lower case: a column list, FROM, a table and what follows a table ("select one from the list" is prose).
    ("SELECT … FROM", re.compile(
        r"\bselect\s+(?:distinct\s+)?(?:\*|[\w.()*]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.()*]+(?:\s+as\s+\w+)?)*)\s+from\s+" + NAME
        + r"(?:\s*(?:$|;|\x00)|(?:\s+(?:as\s+)?\w+)?\s+(?:where|join|left|inner|cross|order|group|limit|union)\b)",
        re.IGNORECASE,
    )),
    ("a schema change", re.compile(r"\b(?:CREATE|ALTER|DROP)\s+(?:(?:TEMP|TEMPORARY|UNIQUE|UNLOGGED)\s+)?(?:TABLE|INDEX)\b", re.IGNORECASE)),
    ("ON CONFLICT", re.compile(r"\bON\s+CONFLICT\b", re.IGNORECASE)),
    ("TRUNCATE", re.compile(r"\bTRUNCATE\s+(?:TABLE\s+)?" + NAME, re.IGNORECASE)),
]
# SQLKit builders whose argument is labelled: always a statement.
LABELLED_BUILDERS = {"insert": "into", "delete": "from", "create": "table", "alter": "table", "drop": "table"}
SQL_TYPES = {"SQLRaw", "SQLQueryString", "SQLStatement"}  # named anywhere: a call or a type annotation


def allowed(rel):
    return rel.startswith(ALLOWED_FOLDERS) or bool(ALLOWED_NAME.match(rel.rsplit("/", 1)[-1]))


def findings(scan):
    """(line, what) for each piece of SQL in one file."""
    found = []
    for text, lines, _ in scan.strings_joined(scan.tokens):
        for what, regex in TEXT_PATTERNS:
            for match in regex.finditer(text):
                start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
                if start < len(lines):
                    found.append((lines[start], what))
    flat = list(scan.all_tokens(scan.tokens))
    for i, tok in enumerate(flat):
        if tok.kind == "id" and tok.text in SQL_TYPES and not (i > 0 and flat[i - 1].text == "."):
            found.append((tok.line, tok.text))
            continue
        if tok.kind != "id" or i + 1 >= len(flat) or flat[i + 1].text != "(":
            continue
        # A method call on a value (`sql.raw(`, `$0.select()`), not an implicit member (`.raw(x)` as an argument).
        if i < 2 or flat[i - 1].text != "." or not (flat[i - 2].kind in ("id", "num", "str") or flat[i - 2].text in ")]?!"):
            continue
        inside, _ = call_args(flat, i + 1)
        args = split_args(inside)
        label, expression = label_of(args[0]) if args else (None, [])
        if tok.text == "raw":
            found.append((tok.line, ".raw(…)"))
        elif tok.text == "select" and not args:
            found.append((tok.line, ".select()"))
        elif tok.text in LABELLED_BUILDERS and label == LABELLED_BUILDERS[tok.text]:
            found.append((tok.line, f".{tok.text}({label}:)"))
        elif tok.text == "update" and label is None and expression and (
            scan.evaluate(expression) is not None or (expression[0].kind == "id" and expression[0].text in ("SQLIdentifier", "SQLQualifiedTable"))
        ):
            found.append((tok.line, ".update(…)"))
    return found


def main():
    if len(sys.argv) != 2:
        print("usage: sql_placement.py SOURCES", file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems, used, checked = [], set(), 0
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if allowed(rel):
                continue
            checked += 1
            with open(path, encoding="utf-8") as f:
                found = findings(FileScan(rel, f.read()))
            if not found:
                continue
            if rel in PENDING:
                used.add(rel)
                continue
            seen = set()
            for line, what in sorted(found):
                if line in seen:
                    continue
                seen.add(line)
                problems.append(
                    f"{path}:{line}: SQL outside a repository ({what} here): SQL lives in the owner's <Domain>Repository.swift "
                    "(or <Domain>Repository+<Feature>.swift), <Domain>Migrations.swift or the storage target: ask a repository"
                )
    for rel in sorted(set(PENDING) - used):
        print(f"note: PENDING entry {rel} of sql_placement.py is no longer needed: remove it", file=sys.stderr)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"sql placement: {len(problems)} violation(s)", file=sys.stderr)
        return 1
    print(f"sql placement: ok (SQL only in repositories, migrations and the storage engine; {checked} other files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
