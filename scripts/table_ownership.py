#!/usr/bin/env python3
"""Each domain owns its tables: only the domain that creates a table writes it.

Run through scripts/check-table-ownership.sh (scripts/test.sh does). Usage:
    table_ownership.py SOURCES      (SOURCES: the server package's Sources/, every target in it)
Exit 0 when the rule holds; 1 with one line per violation on stderr:
    path:line: table 'x' belongs to Target/Domain/ (what the line does; what to do instead)

The owner is derived, never kept by hand: a table belongs to the domain folder of the file whose
`CREATE TABLE` makes it. A domain is a folder directly under a target (Sources/TesseraAccounts/Devices/);
a target without folders (TesseraHTTPKit, TesseraNode, TesseraBench) is one domain. So the migrations
of Devices/DevicesMigrations.swift make `devices` a TesseraAccounts/Devices/ table, the nonce table in
TesseraHTTPKit's SignedRequestVerifier.swift a TesseraHTTPKit/ table. Storage/ is a domain like any
other: its registry (Storage/Migrations.swift) names the domains' parts, not their tables, and its
shared code (LeasedQueue…) is handed a table name by the owner.

What counts as naming a table, in every Swift file of every target (comments aside):
- SQL in any string literal, any letter case, across the lines of a multi-line or raw string, after
  joining `"…" + "…"`: writes are INSERT/REPLACE INTO, UPDATE, DELETE FROM, ALTER/DROP/TRUNCATE
  TABLE, CREATE TABLE, CREATE INDEX … ON; reads are FROM and JOIN (and USING, and the further tables
  of `FROM a, b`). The name may be bare, schema-qualified, or quoted ("users", `users`, [users]).
- Interpolations resolved to their text: `\\(unsafeRaw: x)`, `\\(ident: x)`, `\\(SQLIdentifier(x))`,
  `\\(x)`, where x is a string literal or a string constant declared in the same file
  (`let table = "sessions"`, `static let`, `let t = SQLIdentifier("sessions")`). An interpolation
  whose whole value is a table's name counts even where no keyword introduces it.
- SQLKit builders: writes `.update(x)`, `.insert(into: x)`, `.delete(from: x)`, `.create(table: x)`,
  `.alter(table: x)`, `.drop(table: x)`; reads `.from(x)`, `.join(x…)`, `SQLColumn(…, table: x)`; where
  x is a literal, a constant of the file, or `SQLIdentifier(…)` / `SQLQualifiedTable(…)` / `SQLAlias(…)`
  of one.
- Anywhere else: `SQLIdentifier(x)`, `SQLQualifiedTable(x…)`, an argument `table: x`, and the
  declaration of a constant whose value is a table's name.

A file outside the owner that names a table fails, with two kinds of allowance below: NAMED_JOINS
(reads only: a write in such a file fails and says so) and PENDING (a known violation that another
change removes; each entry says which). An entry no longer needed is reported, so it gets removed.
Two domains creating the same table fail too.

The check is lexical (a small Swift lexer, no compiler): a table name built at run time from parts
(string concatenation with a variable, a constant of another file handed through a parameter) is
not seen. Keep SQL text literal, which is also what makes it reviewable.
"""
import os
import re
import sys

# Named queries that join a foreign table because a hot path needs one round trip. Each lives in the
# owner of the query's main table and may only READ the foreign table (FROM/JOIN): a write, or a
# reference the check cannot prove to be a read, fails. Keys are paths relative to Sources/.
NAMED_JOINS = {
    # Every session-authenticated call: the session, its user's client and its device's status.
    ("TesseraAccounts/Sessions/SessionRepository.swift", "users"),
    ("TesseraAccounts/Sessions/SessionRepository.swift", "devices"),
    # TOTP verification (the relying party's hot path) and GET /v1/devices/me: devices by user key.
    ("TesseraAccounts/Devices/DeviceRepository.swift", "users"),
    # ... and the same for many users at once (the lookups of concurrent verifications on PostgreSQL).
    ("TesseraAccounts/Devices/DeviceRepository+Batches.swift", "users"),
    # Every authentication step: the device with its user's and client's keys in one indexed join,
    # and the relying party's "which user of this client, with an active device" lookup.
    ("TesseraAccounts/Devices/DeviceRepository+Auth.swift", "users"),
    ("TesseraAccounts/Devices/DeviceRepository+Auth.swift", "clients"),
    # ... and the client's App Attest policy and whether the device attested its key (the result token's claim).
    ("TesseraAccounts/Devices/DeviceRepository+Auth.swift", "app_attest_settings"),
    ("TesseraAccounts/Devices/DeviceRepository+Auth.swift", "app_attest_keys"),
    # The node-sync reconciliation: one INSERT … SELECT FROM devices per pass (reads devices only).
    ("TesseraSignIn/Nodes/NodeRepository+Sync.swift", "devices"),
    # The apps of the enabled clients, for /.well-known/apple-app-site-association and assetlinks.json.
    ("TesseraSignIn/Passkeys/PasskeyAppLinksRepository.swift", "clients"),
    # The CIBA pings whose relying-party request ended (one UPDATE … WHERE channel_id IN (SELECT … FROM auth_channels)).
    ("TesseraSignIn/CIBA/CIBAPingRepository.swift", "auth_channels"),
}

# TEMPORARY allow-list of known violations that another change removes: each entry is (file, table),
# allows any reference of that file to that table, says which change removes it, and is reported once
# it is no longer needed. Empty: the one known violation this check found when it began scanning every
# target, TesseraBench/TOTPBenchUsers.swift inserting into users and devices (and reading clients),
# went with c6a0faf (the bench's users now come through DeploymentStorage.createFixtureUsers).
PENDING = set()

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# A table reference: optionally schema-qualified, bare or quoted. The name is one of n1…n4.
NAME = (
    r"(?:(?:" + IDENT + r'|"' + IDENT + r'")\s*\.\s*)?'
    r'(?:"(?P<n1>' + IDENT + r')"|`(?P<n2>' + IDENT + r')`|\[(?P<n3>' + IDENT + r')\]|(?P<n4>' + IDENT + r"))"
)
IF_EXISTS = r"(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
SQL_PATTERNS = [
    # (kind, what, pattern); the table is the NAME at the pattern's end.
    ("create", "CREATE TABLE", r"\bCREATE\s+(?:(?:GLOBAL|LOCAL)\s+)?(?:TEMP(?:ORARY)?\s+|UNLOGGED\s+)?TABLE\s+" + IF_EXISTS),
    ("write", "INSERT INTO", r"\b(?:INSERT|REPLACE)\s+(?:OR\s+" + IDENT + r"\s+)?INTO\s+"),
    ("write", "UPDATE", r"\bUPDATE\s+(?:OR\s+" + IDENT + r"\s+)?(?:ONLY\s+)?"),
    ("write", "DELETE FROM", r"\bDELETE\s+FROM\s+(?:ONLY\s+)?"),
    ("write", "ALTER TABLE", r"\bALTER\s+TABLE\s+" + IF_EXISTS + r"(?:ONLY\s+)?"),
    ("write", "DROP TABLE", r"\bDROP\s+TABLE\s+" + IF_EXISTS),
    ("write", "TRUNCATE", r"\bTRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?"),
    ("write", "CREATE INDEX", r"\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:CONCURRENTLY\s+)?" + IF_EXISTS + r"(?:" + IDENT + r"\s+)?ON\s+(?:ONLY\s+)?"),
    ("read", "FROM", r"\bFROM\s+(?:ONLY\s+)?"),
    ("read", "JOIN", r"\bJOIN\s+(?:LATERAL\s+)?"),
    ("read", "USING", r"\bUSING\s+"),
]
SQL_REGEXES = [(kind, what, re.compile(prefix + NAME, re.IGNORECASE)) for kind, what, prefix in SQL_PATTERNS]
# After `FROM a [AS x]`: the further tables of a comma join.
COMMA_TABLE = re.compile(r"(?:\s+(?:AS\s+)?" + IDENT + r")?\s*,\s*" + NAME, re.IGNORECASE)
SQL_KEYWORDS = {"where", "order", "group", "limit", "on", "set", "values", "select", "returning", "having", "union", "join",
                "left", "right", "inner", "outer", "cross", "natural", "full", "for", "offset", "using"}

STRENGTH = {"create": 0, "write": 1, "name": 2, "read": 3, "constant": 4}

BUILDER_CALLS = {
    # method: (kind, what, the label of the argument naming the table; None: the first argument)
    "update": ("write", ".update(…)", None),
    "insert": ("write", ".insert(into:)", "into"),
    "delete": ("write", ".delete(from:)", "from"),
    "create": ("write", ".create(table:)", "table"),
    "alter": ("write", ".alter(table:)", "table"),
    "drop": ("write", ".drop(table:)", "table"),
    "from": ("read", ".from(…)", None),
    "join": ("read", ".join(…)", None),
}
WRAPPERS = {"SQLIdentifier", "SQLQualifiedTable", "SQLAlias", "SQLRaw"}


class Tok:
    __slots__ = ("kind", "text", "line", "segments")

    def __init__(self, kind, text, line, segments=None):
        self.kind, self.text, self.line, self.segments = kind, text, line, segments

    def __repr__(self):
        return f"Tok({self.kind},{self.text!r},{self.line})"


class Lexer:
    """Swift tokens: identifiers, punctuation and string literals; comments dropped. A string is a list
    of segments: ("text", characters, line of each character) or ("interp", tokens of the expression)."""

    def __init__(self, src):
        self.src, self.pos, self.line = src, 0, 1

    def peek(self, offset=0):
        i = self.pos + offset
        return self.src[i] if i < len(self.src) else ""

    def advance(self, count=1):
        for _ in range(count):
            if self.pos < len(self.src):
                if self.src[self.pos] == "\n":
                    self.line += 1
                self.pos += 1

    def tokens(self, until_close=False):
        out, depth = [], 0
        while self.pos < len(self.src):
            c = self.peek()
            if c == "\n" or c.isspace():
                self.advance()
            elif c == "/" and self.peek(1) == "/":
                while self.pos < len(self.src) and self.peek() != "\n":
                    self.advance()
            elif c == "/" and self.peek(1) == "*":
                self.skip_block_comment()
            elif c == '"' or (c == "#" and self.raw_string_ahead()):
                out.append(self.string())
            elif c == "#" and self.peek(1) == "/":
                self.advance()
                self.regex(out, hashes=1)
            elif c == "/" and self.regex_allowed(out):
                self.regex(out, hashes=0)
            elif c.isalpha() or c == "_":
                start, line = self.pos, self.line
                while self.pos < len(self.src) and (self.peek().isalnum() or self.peek() == "_"):
                    self.advance()
                out.append(Tok("id", self.src[start:self.pos], line))
            elif c.isdigit():
                while self.pos < len(self.src) and (self.peek().isalnum() or self.peek() in "_."):
                    if self.peek() == "." and not self.peek(1).isdigit():
                        break
                    self.advance()
                out.append(Tok("num", "0", self.line))
            else:
                if until_close:
                    if c == "(":
                        depth += 1
                    elif c == ")":
                        if depth == 0:
                            self.advance()
                            return out
                        depth -= 1
                out.append(Tok("punct", c, self.line))
                self.advance()
        return out

    def skip_block_comment(self):
        depth = 0
        while self.pos < len(self.src):
            if self.peek() == "/" and self.peek(1) == "*":
                depth += 1
                self.advance(2)
            elif self.peek() == "*" and self.peek(1) == "/":
                depth -= 1
                self.advance(2)
                if depth == 0:
                    return
            else:
                self.advance()

    def raw_string_ahead(self):
        i = self.pos
        while i < len(self.src) and self.src[i] == "#":
            i += 1
        return i < len(self.src) and self.src[i] == '"'

    def regex_allowed(self, out):
        """A bare /regex/ starts where an expression can start and is not followed by a space."""
        if self.peek(1) in (" ", "\t", "\n", "="):
            return False
        if not out:
            return True
        last = out[-1]
        if last.kind == "punct":
            return last.text in "(,=:[{!&|?;"
        return last.kind == "id" and last.text in ("return", "case", "try", "await")

    def regex(self, out, hashes):
        line = self.line
        self.advance()  # the opening /
        while self.pos < len(self.src):
            c = self.peek()
            if c == "\\":
                self.advance(2)
            elif c == "/" and (hashes == 0 or self.src.startswith("#" * hashes, self.pos + 1)):
                self.advance(1 + hashes)
                break
            elif c == "\n" and hashes == 0:
                break
            else:
                self.advance()
        out.append(Tok("regex", "", line))

    def string(self):
        line = self.line
        hashes = 0
        while self.peek() == "#":
            hashes += 1
            self.advance()
        multiline = self.src.startswith('"""', self.pos)
        self.advance(3 if multiline else 1)
        closing = ('"""' if multiline else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        segments, chars, lines = [], [], []
        if multiline:  # the content starts on the next line
            while self.pos < len(self.src) and self.peek() != "\n":
                self.advance()
            self.advance()
        while self.pos < len(self.src):
            if self.src.startswith(closing, self.pos):
                self.advance(len(closing))
                break
            if not multiline and self.peek() == "\n":
                break  # unterminated: keep going from the next line
            if self.src.startswith(escape, self.pos):
                self.advance(len(escape))
                c = self.peek()
                if c == "(":
                    self.advance()
                    if chars:
                        segments.append(("text", "".join(chars), lines))
                        chars, lines = [], []
                    segments.append(("interp", self.tokens(until_close=True)))
                    continue
                decoded = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}.get(c)
                if c == "u" and self.peek(1) == "{":
                    end = self.src.find("}", self.pos)
                    self.advance(end - self.pos + 1)
                    chars.append("?")
                    lines.append(self.line)
                    continue
                if c == "\n" or (multiline and c in " \t"):  # a line continuation
                    while self.peek() in " \t":
                        self.advance()
                    self.advance()
                    continue
                chars.append(decoded if decoded is not None else c)
                lines.append(self.line)
                self.advance()
                continue
            chars.append(self.peek())
            lines.append(self.line)
            self.advance()
        if chars:
            segments.append(("text", "".join(chars), lines))
        return Tok("str", "", line, segments)


def plain(tok):
    """The value of a string literal without interpolations (None otherwise)."""
    if tok.kind != "str" or any(kind == "interp" for kind, *_ in tok.segments):
        return None
    return "".join(segment[1] for segment in tok.segments)


def split_args(tokens):
    """The top-level comma-separated arguments of a token list (the inside of a call's parentheses)."""
    args, current, depth = [], [], 0
    for tok in tokens:
        if tok.kind == "punct" and tok.text in "([{":
            depth += 1
        elif tok.kind == "punct" and tok.text in ")]}":
            depth -= 1
        if depth == 0 and tok.kind == "punct" and tok.text == ",":
            args.append(current)
            current = []
        else:
            current.append(tok)
    if current:
        args.append(current)
    return args


def call_args(tokens, open_index):
    """The tokens inside the parentheses opened at open_index, and the index after the close."""
    depth, i = 0, open_index
    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "punct" and tok.text == "(":
            depth += 1
        elif tok.kind == "punct" and tok.text == ")":
            depth -= 1
            if depth == 0:
                return tokens[open_index + 1:i], i + 1
        i += 1
    return tokens[open_index + 1:], len(tokens)


def label_of(arg):
    if len(arg) >= 2 and arg[0].kind == "id" and arg[1].kind == "punct" and arg[1].text == ":":
        return arg[0].text, arg[2:]
    return None, arg


class FileScan:
    def __init__(self, rel, src):
        self.rel = rel
        self.tokens = Lexer(src).tokens()
        self.constants = {}
        self.references = []  # (line, table, kind, what)
        self.find_constants(self.tokens)

    def all_tokens(self, tokens):
        """Every token, including those inside interpolations."""
        for tok in tokens:
            yield tok
            if tok.kind == "str":
                for segment in tok.segments:
                    if segment[0] == "interp":
                        yield from self.all_tokens(segment[1])

    def find_constants(self, tokens):
        flat = list(self.all_tokens(tokens))
        for i, tok in enumerate(flat):
            if tok.kind != "id" or tok.text not in ("let", "var") or i + 1 >= len(flat) or flat[i + 1].kind != "id":
                continue
            name, j = flat[i + 1].text, i + 2
            if j < len(flat) and flat[j].text == ":":  # a type annotation
                j += 1
                while j < len(flat) and (flat[j].kind == "id" or flat[j].text in ".?"):
                    j += 1
            if j + 1 >= len(flat) or flat[j].text != "=":
                continue
            rest = flat[j + 1:j + 6]
            value = None
            if rest and plain(rest[0]) is not None and not (len(rest) > 1 and rest[1].text == "+"):
                value, line = plain(rest[0]), rest[0].line
            elif len(rest) >= 4 and rest[0].kind == "id" and rest[0].text in WRAPPERS and rest[1].text == "(" and plain(rest[2]) is not None:
                value, line = plain(rest[2]), rest[2].line
            if value is not None:
                self.constants[name] = (value, line)

    def evaluate(self, tokens):
        """The string an expression stands for: a literal, a constant of this file, or a wrapper of one."""
        tokens = [t for t in tokens if t.kind != "regex"]
        if not tokens:
            return None
        if len(tokens) == 1 and tokens[0].kind == "str":
            return plain(tokens[0])
        if all(t.kind == "id" or t.text == "." for t in tokens) and tokens[-1].kind == "id":
            found = self.constants.get(tokens[-1].text)
            return found[0] if found else None
        if tokens[0].kind == "id" and tokens[0].text in WRAPPERS and len(tokens) > 1 and tokens[1].text == "(":
            inside, _ = call_args(tokens, 1)
            args = split_args(inside)
            if args:
                return self.evaluate(label_of(args[0])[1])
        return None

    def render(self, tok):
        """A string literal's text with interpolations resolved: (text, line of each character,
        positions where a resolved interpolation starts)."""
        text, lines, inserted = [], [], []
        for segment in tok.segments:
            if segment[0] == "text":
                text.append(segment[1])
                lines.extend(segment[2])
                continue
            label, expression = label_of(segment[1])
            line = segment[1][0].line if segment[1] else tok.line
            value = None
            if label in (None, "unsafeRaw", "ident", "raw"):
                value = self.evaluate(expression)
            if value is None:
                value = "\x00"  # an opaque value: no name
            elif label == "ident":
                value = '"' + value + '"'
            inserted.append((sum(len(t) for t in text), len(value)))
            text.append(value)
            lines.extend([line] * len(value))
        return "".join(text), lines, inserted

    def strings_joined(self, tokens):
        """Each string literal, joined with the literals and constants that `+` appends to it."""
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok.kind != "str":
                i += 1
                continue
            text, lines, inserted = self.render(tok)
            i += 1
            while i + 1 < len(tokens) and tokens[i].text == "+" and tokens[i + 1].kind in ("str", "id"):
                nxt = tokens[i + 1]
                if nxt.kind == "str":
                    more, more_lines, more_inserted = self.render(nxt)
                else:
                    j = i + 1
                    while j + 2 < len(tokens) and tokens[j + 1].text == "." and tokens[j + 2].kind == "id":
                        j += 2
                    value = self.evaluate(tokens[i + 1:j + 1])
                    more = value if value is not None else "\x00"
                    more_lines, more_inserted = [nxt.line] * len(more), ([(0, len(more))] if value is not None else [])
                    i = j - 1
                inserted += [(len(text) + start, length) for start, length in more_inserted]
                text, lines = text + more, lines + more_lines
                i += 2
            yield text, lines, inserted
        for tok in tokens:
            if tok.kind == "str":
                for segment in tok.segments:
                    if segment[0] == "interp":
                        label, _ = label_of(segment[1])
                        if label not in ("bind", "binds", "literal"):
                            yield from self.strings_joined(segment[1])

    def scan(self, tables):
        refs = self.references
        for text, lines, inserted in self.strings_joined(self.tokens):
            claimed = set()
            for kind, what, regex in SQL_REGEXES:
                for match in regex.finditer(text):
                    self.sql_name(match, kind, what, lines, tables, claimed)
                    if what == "FROM":
                        end = match.end()
                        while True:
                            more = COMMA_TABLE.match(text, end)
                            if not more or self.name_of(more).lower() in SQL_KEYWORDS:
                                break
                            self.sql_name(more, "read", "FROM", lines, tables, claimed)
                            end = more.end()
            for start, length in inserted:  # an interpolated value that is a table's name, whatever surrounds it
                whole = re.fullmatch(r'\s*"?(' + IDENT + r')"?\s*', text[start:start + length])
                if whole and whole.group(1).lower() in tables and start + whole.start(1) not in claimed:
                    refs.append((lines[start + whole.start(1)], whole.group(1).lower(), "name", "interpolated name"))
        self.scan_code(list(self.all_tokens(self.tokens)), tables)
        for name, (value, line) in self.constants.items():
            if value.lower() in tables:
                refs.append((line, value.lower(), "constant", f"constant '{name}'"))

    @staticmethod
    def name_of(match):
        return next(match.group(g) for g in ("n1", "n2", "n3", "n4") if match.group(g))

    def sql_name(self, match, kind, what, lines, tables, claimed):
        group = next(g for g in ("n1", "n2", "n3", "n4") if match.group(g))
        name, start = match.group(group).lower(), match.start(group)
        if name in tables and start not in claimed:
            claimed.add(start)
            self.references.append((lines[start], name, kind, what))

    def scan_code(self, flat, tables):
        consumed = set()
        for i, tok in enumerate(flat):
            if tok.kind != "id" or i + 1 >= len(flat) or flat[i + 1].text != "(":
                continue
            inside, _ = call_args(flat, i + 1)
            args = split_args(inside)
            after_dot = i > 0 and flat[i - 1].text == "."
            if after_dot and tok.text in BUILDER_CALLS and args:
                kind, what, wanted = BUILDER_CALLS[tok.text]
                label, expression = label_of(args[0])
                if label == wanted:
                    value = self.evaluate(expression)
                    if value is not None and value.lower() in tables:
                        self.references.append((expression[0].line, value.lower(), kind, what))
                        consumed.update(id(t) for t in expression)
            if tok.text == "SQLColumn":
                for arg in args[1:]:
                    label, expression = label_of(arg)
                    if label == "table":
                        value = self.evaluate(expression)
                        if value is not None and value.lower() in tables:
                            self.references.append((expression[0].line, value.lower(), "read", "SQLColumn(table:)"))
                            consumed.update(id(t) for t in expression)
        for i, tok in enumerate(flat):
            if id(tok) in consumed or tok.kind != "id":
                continue
            if tok.text in ("SQLIdentifier", "SQLQualifiedTable") and i + 1 < len(flat) and flat[i + 1].text == "(":
                inside, _ = call_args(flat, i + 1)
                args = split_args(inside)
                value = self.evaluate(label_of(args[0])[1]) if args else None
                if value is not None and value.lower() in tables:
                    self.references.append((tok.line, value.lower(), "name", tok.text + "(…)"))
            elif tok.text == "table" and i + 2 < len(flat) and flat[i + 1].text == ":" and (i == 0 or flat[i - 1].text in "(,"):
                j = i + 2
                expression = [flat[j]]
                while j + 2 < len(flat) and flat[j + 1].text == "." and flat[j + 2].kind == "id":
                    j += 2
                    expression = flat[i + 2:j + 1]
                value = self.evaluate(expression)
                if value is not None and value.lower() in tables and not any(id(t) in consumed for t in expression):
                    self.references.append((tok.line, value.lower(), "name", "table: argument"))


def domain_of(rel):
    parts = rel.split("/")
    return "/".join(parts[:2]) if len(parts) >= 3 else parts[0]


def main():
    if len(sys.argv) != 2:
        print("usage: table_ownership.py SOURCES", file=sys.stderr)
        return 2
    root = sys.argv[1]
    scans = []
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                with open(path, encoding="utf-8") as f:
                    scans.append((path, rel, FileScan(rel, f.read())))
    if not scans:
        print(f"table ownership: no Swift files under {root}", file=sys.stderr)
        return 1

    # Pass 1: every CREATE TABLE, anywhere, makes its file's domain the owner.
    creators = {}
    anything = AnyName()
    for path, rel, scan in scans:
        scan.scan(anything)
        for line, table, kind, _ in scan.references:
            if kind == "create":
                creators.setdefault(table, []).append((path, line, domain_of(rel)))
        scan.references = []
    problems = []
    owner_of = {}
    for table, places in sorted(creators.items()):
        domains = sorted({domain for _, _, domain in places})
        owner_of[table] = domains[0]
        if len(domains) > 1:
            for path, line, domain in places:
                problems.append(f"{path}:{line}: table '{table}' is created by {len(domains)} domains ({', '.join(d + '/' for d in domains)}): one domain owns it")
    if not owner_of:
        print(f"table ownership: no CREATE TABLE under {root}", file=sys.stderr)
        return 1

    # Pass 2: every reference to a known table outside its owner.
    tables = set(owner_of)
    used_joins, used_pending = set(), set()
    for path, rel, scan in scans:
        scan.scan(tables)
        domain = domain_of(rel)
        seen = set()
        # One verdict per line and table, on its strongest reference: a write before a bare name,
        # a name before a read, a read before a constant's declaration.
        for line, table, _, kind, what in sorted((line, table, STRENGTH[kind], kind, what) for line, table, kind, what in scan.references):
            owner = owner_of[table]
            if owner == domain or (line, table) in seen:
                continue
            seen.add((line, table))
            key = (rel, table)
            if key in NAMED_JOINS and kind in ("read", "constant"):
                used_joins.add(key)
                continue
            if key in PENDING:
                used_pending.add(key)
                continue
            if key in NAMED_JOINS:
                problems.append(f"{path}:{line}: table '{table}' belongs to {owner}/ ({what} here); this file may only read it (NAMED_JOINS): ask its repository to change it")
            elif kind in ("write", "create"):
                problems.append(f"{path}:{line}: table '{table}' belongs to {owner}/ ({what} here); only its domain writes it: ask its repository")
            else:
                problems.append(f"{path}:{line}: table '{table}' belongs to {owner}/ ({what} here); ask its repository instead")

    for key in sorted(NAMED_JOINS - used_joins):
        print(f"note: NAMED_JOINS entry {key[0]} / {key[1]} is no longer needed: remove it", file=sys.stderr)
    for key in sorted(PENDING - used_pending):
        print(f"note: PENDING entry {key[0]} / {key[1]} is no longer needed: remove it", file=sys.stderr)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"table ownership: {len(problems)} violation(s)", file=sys.stderr)
        return 1
    print(f"table ownership: ok ({len(owner_of)} tables in {len(set(owner_of.values()))} domains, {len(scans)} files)")
    return 0


class AnyName:
    """Pass 1 knows no tables yet: every name is a candidate (only CREATE TABLE is kept)."""

    def __contains__(self, name):
        return True


if __name__ == "__main__":
    sys.exit(main())
