"""Reading specification files for `ltlwit check`.

Text spec files: one formula per line, optionally named and with an expectation,

    # the arbiter
    mutex:    G !(grant1 & grant2)
    response: G(req1 -> F grant1)
    never:    F(grant1 & grant2)       # expect: unsat
    follows:  G !(grant1 & grant2) -> !F(grant1 & grant2)   # expect: valid

blank lines and `#` comments skipped; a name is an identifier (`[A-Za-z_][A-Za-z0-9_.-]*`)
followed by `:`; the expectation is a trailing `# expect: sat|unsat|valid` (default `sat`;
`valid`: every trace satisfies the formula). Any other trailing comment is ignored. A `#` or a
`:` inside a double-quoted AP name is part of the name.

TOML spec files (`*.toml`): an array of tables `[[spec]]` with `formula` (required), `name`
and `expect` (optional); any other key is an error, so a typo like `expected` is not silently
ignored. Names must be unique within a file. Reading reuses the input reader's safety net:
unreadable files, binary data, over-long lines and bad encodings become error entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from ltlwit.inputs import MAX_LINE_BYTES, read_file

EXPECTATIONS = ("sat", "unsat", "valid")
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\-]*)\s*:(?!=)\s*(.*)$")
_EXPECT = re.compile(r"^#\s*expect\s*:\s*(\S*)\s*$", re.IGNORECASE)
_TOML_SPEC = re.compile(r"^\s*\[\[\s*spec\s*\]\]")


@dataclass(frozen=True)
class Spec:
    """One specification, or (with `error`) why an entry of a spec file could not be read."""

    file: str
    line: int  # 1-based; 0 for a problem with the whole file
    name: str | None = None
    formula: str = ""
    expect: str = "sat"
    error: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def label(self) -> str:
        """The name, or the location of an unnamed spec."""
        return self.name or self.where


def read_specs(path: str) -> Iterator[Spec]:
    """The specs of one file, in file order (TOML by the `.toml` suffix). A file without any
    spec is an error: a CI gate pointed at the wrong file must not pass silently."""
    count = 0
    for spec in _read_toml(path) if path.endswith(".toml") else _read_text(path):
        count += 1
        yield spec
    if not count:
        yield Spec(path, 0, error="no specs in this file")


def _read_text(path: str) -> Iterator[Spec]:
    seen: dict[str, int] = {}
    for item in read_file(path):
        if item.error is not None:
            yield Spec(path, item.line, error=item.error)
            continue
        spec = parse_spec_line(item.text, path, item.line)
        if spec.name is not None and spec.error is None:
            if spec.name in seen:
                spec = Spec(path, item.line, spec.name, error=f"duplicate spec name {spec.name!r} "
                            f"(first at line {seen[spec.name]})")
            else:
                seen[spec.name] = item.line
        yield spec


def parse_spec_line(text: str, file: str = "<spec>", line: int = 1) -> Spec:
    """`[name:] formula [# expect: sat|unsat|valid]` (the line is neither blank nor a comment)."""
    body, comment = _split_comment(text)
    expect = "sat"
    if comment is not None:
        match = _EXPECT.match(comment)
        if match:
            expect = match.group(1).lower()
            if expect not in EXPECTATIONS:
                return Spec(file, line, error=f"unknown expectation {match.group(1)!r} (use sat, unsat or valid)")
    name = None
    match = _NAME.match(body)
    if match:
        name, body = match.group(1), match.group(2)
    body = body.strip()
    if not body:
        return Spec(file, line, name, error="no formula" + (f" after {name!r}:" if name else ""))
    return Spec(file, line, name, body, expect)


def _split_comment(text: str) -> tuple[str, str | None]:
    """(text before the first `#` outside double quotes, the comment from that `#`)."""
    quoted = escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return text[:i].rstrip(), text[i:].strip()
    return text, None


def _read_toml(path: str) -> Iterator[Spec]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            yield Spec(path, 0, error="TOML spec files need Python 3.11 or the tomli package")
            return
    try:
        with open(path, "rb") as stream:
            raw = stream.read(16 * MAX_LINE_BYTES + 1)
    except OSError as exc:
        yield Spec(path, 0, error=f"cannot open: {exc.strerror or type(exc).__name__}")
        return
    if len(raw) > 16 * MAX_LINE_BYTES:
        yield Spec(path, 0, error=f"larger than {16 * MAX_LINE_BYTES} bytes; not read")
        return
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        yield Spec(path, 0, error=f"not a valid TOML file: {exc}")
        return
    entries = data.get("spec", [])
    extra = sorted(set(data) - {"spec"})
    if extra or not isinstance(entries, list):
        yield Spec(path, 0, error="a TOML spec file holds only [[spec]] tables" +
                   (f" (found {', '.join(extra)})" if extra else ""))
        return
    lines = [i for i, row in enumerate(text.splitlines(), 1) if _TOML_SPEC.match(row)]
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        line = lines[index] if index < len(lines) else 0
        yield _toml_spec(entry, path, line, seen)


def _toml_spec(entry: object, path: str, line: int, seen: dict[str, int]) -> Spec:
    if not isinstance(entry, dict):
        return Spec(path, line, error="[[spec]] must be a table")
    unknown = sorted(set(entry) - {"name", "formula", "expect"})
    if unknown:
        return Spec(path, line, error=f"unknown key {unknown[0]!r} in [[spec]] (known: name, formula, expect)")
    name, formula, expect = entry.get("name"), entry.get("formula"), entry.get("expect", "sat")
    if not isinstance(formula, str) or not formula.strip():
        return Spec(path, line, name if isinstance(name, str) else None, error="[[spec]] needs a formula string")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        return Spec(path, line, error="a spec name must be a non-empty string")
    if not isinstance(expect, str) or expect.lower() not in EXPECTATIONS:
        return Spec(path, line, name, error=f"unknown expectation {expect!r} (use sat, unsat or valid)")
    if name is not None:
        if name in seen:
            return Spec(path, line, name, error=f"duplicate spec name {name!r} (first at line {seen[name]})")
        seen[name] = line
    return Spec(path, line, name, formula.strip(), expect.lower())
