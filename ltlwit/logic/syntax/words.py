"""Symbolic traces and partial assignments, in the Spot and DeepLTL spellings.

Traces: Spot's word syntax `a & !b; 1; cycle{c}` (steps in infix) and DeepLTL's `&a!b;1;{c}`
(steps in network Polish); without the cycle, `a & !b; 1; c` and `&a!b;1;c`, a finite trace. Splitting into steps skips double-quoted names, so a name may
hold `;`, `{` or `}`.

Assignments: compact `a1c0` (each name followed by its value; the value is the last digit
before the next name, so names may hold digits: `p01` is p0 = 1, `x_10` is x_1 = 0; odd
names are double-quoted: `"x < 3"1`), a JSON object `{"a": true, "c": false}`, or a Spot
cube `a & !c` (what `print_assignment(a, "spot")` writes; `1` is the empty assignment).
"""

from __future__ import annotations

import re
from typing import Callable

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import IDENT, quote, unquote_at
from ltlwit.logic.trace import Trace

_CYCLE = re.compile(r"(?:^|(?<=[\s;]))cycle\s*\Z")


def _top_level(text: str, start: int, end: int, targets: str) -> list[int]:
    """Indices in text[start:end] of characters in `targets` that are outside quoted names."""
    found: list[int] = []
    i = start
    while i < end:
        ch = text[i]
        if ch == '"':
            got = unquote_at(text, i)
            if got is None or got[1] > end:
                raise ParseError(text, i, "unclosed string: missing closing double quote")
            i = got[1]
            continue
        if ch in targets:
            found.append(i)
        i += 1
    return found


def _steps(text: str, start: int, end: int, parse: Callable[[str], Formula]) -> list[Formula]:
    """Parse the `;`-separated steps of text[start:end]; each must be a propositional formula."""
    bounds = [start - 1] + _top_level(text, start, end, ";") + [end]
    steps = []
    for lo, hi in zip(bounds, bounds[1:]):
        segment = text[lo + 1 : hi]
        if not segment.strip():
            raise ParseError(text, lo + 1 if hi > lo + 1 else hi, "empty trace step")
        try:
            step = parse(segment)
        except ParseError as err:
            raise err.shifted(text, lo + 1) from None
        if step.temporal:
            skip = len(segment) - len(segment.lstrip())
            raise ParseError(text, lo + 1 + skip, "trace step is not propositional", len(segment.strip()))
        steps.append(step)
    return steps


def parse_trace_with(text: str, step_parser: Callable[[str], Formula], require: str | None) -> Trace:
    """A lasso `p1; ...; cycle{c1; ...}` (or `p1;...;{c1;...}`), or without a cycle a finite
    trace `p1; ...; pn`; `require` is "spot" to demand the `cycle` keyword, "polish" to forbid
    it, None for either."""
    braces = _top_level(text, 0, len(text), "{}")
    if not braces:
        if not text.strip():
            raise ParseError(text, 0, "empty trace")
        if _CYCLE.search(text.rstrip()):
            raise ParseError(text, len(text.rstrip()), "syntax error, expected '{' opening the cycle")
        return Trace(tuple(_steps(text, 0, len(text), step_parser)), ())
    if text[braces[0]] != "{":
        raise ParseError(text, braces[0], "a lasso trace needs a cycle: `cycle{...}` or `{...}`")
    if len(braces) < 2 or text[braces[1]] != "}":
        at = braces[1] if len(braces) > 1 else len(text.rstrip())
        raise ParseError(text, at, "syntax error, expected '}' closing the cycle")
    open_at, close_at = braces[0], braces[1]
    if len(braces) > 2 or text[close_at + 1 :].strip():
        extra = close_at + 1 + len(text[close_at + 1 :]) - len(text[close_at + 1 :].lstrip())
        raise ParseError(text, extra, "unexpected text after the cycle")
    head = text[:open_at]
    keyword = _CYCLE.search(head)
    if require == "spot" and not keyword:
        raise ParseError(text, open_at, "Spot word syntax writes the cycle as `cycle{...}`")
    if require == "polish" and keyword:
        raise ParseError(text, keyword.start(), "DeepLTL traces write the cycle as `{...}`, not `cycle{...}`")
    prefix_end = keyword.start() if keyword else open_at
    body = text[:prefix_end].rstrip()
    prefix: list[Formula] = []
    if body:
        if not body.endswith(";"):
            raise ParseError(text, len(body), "expected ';' between the prefix and the cycle")
        prefix = _steps(text, 0, len(body) - 1, step_parser)
    if not text[open_at + 1 : close_at].strip():
        raise ParseError(text, open_at, "the cycle of a lasso trace cannot be empty", close_at - open_at + 1)
    cycle = _steps(text, open_at + 1, close_at, step_parser)
    return Trace(tuple(prefix), tuple(cycle))


def print_trace_spot(trace: Trace, step: Callable[[Formula], str]) -> str:
    if trace.finite:
        return "; ".join(step(s) for s in trace.prefix)
    head = "".join(step(s) + "; " for s in trace.prefix)
    return head + "cycle{" + "; ".join(step(s) for s in trace.cycle) + "}"


def print_trace_polish(trace: Trace, step: Callable[[Formula], str]) -> str:
    if trace.finite:
        return ";".join(step(s) for s in trace.prefix)
    head = "".join(step(s) + ";" for s in trace.prefix)
    return head + "{" + ";".join(step(s) for s in trace.cycle) + "}"


# --- assignments -------------------------------------------------------------------------

_ENTRY = re.compile(r'[\s,]*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_.][A-Za-z0-9_.]*?))([01])(?=[\s,"A-Za-z_.]|\Z)')


_AMBIGUOUS = re.compile(r"[01](?=[A-Za-z_.])")


def compact_name(name: str) -> str:
    """A name as the compact form needs it: bare unless a 0/1 inside it would end it early."""
    return name if IDENT.match(name) and not _AMBIGUOUS.search(name) else quote(name)


def _add(values: dict[str, bool], name: str, value: bool, text: str, column: int) -> None:
    if values.setdefault(name, value) != value:
        raise ParseError(text, column, f"conflicting values for AP {name!r}", len(name))


def compact_entries(text: str) -> list[tuple[str, bool, int]]:
    """(name, value, column) of each entry of a compact assignment; ParseError if the text
    is not in the compact form (conflicts are checked by `parse_compact`). `1` alone is the
    empty assignment, as the printer writes it (an empty line would read as no answer)."""
    if text.strip() == "1":
        return []
    entries: list[tuple[str, bool, int]] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        m = _ENTRY.match(text, pos)
        if m is None:
            column = pos + len(text[pos:]) - len(text[pos:].lstrip(" \t,"))
            raise ParseError(text, column, "syntax error, expected an AP name followed by 0 or 1")
        quoted, bare, digit = m.groups()
        if quoted is not None:
            got = unquote_at(text, m.start(1) - 1)
            assert got is not None  # (the pattern matched a closed quote)
            entries.append((got[0], digit == "1", m.start(1) - 1))
        else:
            entries.append((bare, digit == "1", m.start(2)))
        pos = m.end()
    return entries


def parse_compact(text: str, entries: list[tuple[str, bool, int]] | None = None) -> Assignment:
    values: dict[str, bool] = {}
    for name, value, column in compact_entries(text) if entries is None else entries:
        _add(values, name, value, text, column)
    return Assignment.of(values)


def parse_json(text: str) -> Assignment:
    import json  # (here and in `print_json`: JSON assignments only, not worth a cold start's import)

    values: dict[str, bool] = {}

    def pairs(items: list[tuple[str, object]]) -> dict:
        for key, value in items:
            if isinstance(value, bool) or value in (0, 1):
                _add(values, key, bool(value), text, text.find(json.dumps(key)))
            else:
                raise ParseError(text, text.find(json.dumps(key)), f"value of {key!r} must be true or false")
        return values

    try:
        obj = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as err:
        raise ParseError(text, err.pos, f"invalid JSON: {err.msg}") from None
    if obj is not values:
        raise ParseError(text, 0, "a JSON assignment must be one flat object of booleans")
    return Assignment.of(values)


def parse_cube(text: str, formula: Formula) -> Assignment:
    """The assignment of a conjunction of literals (`a & !c`; `1` is empty)."""
    values: dict[str, bool] = {}
    if formula.op == "1":
        return Assignment.of(values)
    stack = [formula]
    while stack:
        node = stack.pop()
        if node.op == "&":
            stack.extend(node.children)
        elif node.op == "ap":
            _add(values, str(node.name), True, text, 0)
        elif node.op == "!" and node.children[0].op == "ap":
            _add(values, str(node.children[0].name), False, text, 0)
        else:
            raise ParseError(text, 0, f"not a cube of literals: {text.strip()!r}", len(text))
    return Assignment.of(values)


def print_compact(assignment: Assignment, spaced: bool = False) -> str:
    """DeepLTL's compact form, `a1c0` (`spaced`: `a1 c0`); `1` for the empty assignment."""
    gap = " " if spaced else ""
    return gap.join(compact_name(n) + ("1" if v else "0") for n, v in assignment.values) or "1"


def print_json(assignment: Assignment) -> str:
    import json

    return json.dumps(dict(assignment.values), ensure_ascii=False)
