"""The sorts of a log's columns, as a requirement reads them, and their values typed in them.

A column nothing declares (`--var`, a spec file's declarations, `--domain` for numbers) gets
its sort from its values and from the requirement (`inferred_declarations`): Bool where the
requirement uses its name as a proposition; otherwise Int when its values are integer
numerals, Real when one is a decimal (or a fraction), Bool when they are only `true`/`false`
(any case), and an enumeration of the words it holds when they are words. Columns whose words
meet, or that the requirement compares (`mode = last_mode`), share one enumeration; a word the
requirement compares such a column with (`pump_mode = standby`) is one of its values even if
the log never shows it (a warning says so: it may be misspelled). A declared enumeration that
shares a word with a column's is that column's sort.

Values that do not fit their column's sort (declared or inferred by the majority of its
values: `3` among words, `2.5` in an Int column, no value at all) are problems of the log,
told once per column and sort with the first line they are on (`typed_column`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

from ltlwit.logic.budget import check_deadline, paced
from ltlwit.logic.formula import Formula, postorder
from ltlwit.logic.syntax.infix_lex import numeral_too_long
from ltlwit.logic.theory.evaluate import TraceError, Value, typed
from ltlwit.logic.theory.sorts import BARE_NAME, BOOL, INT, REAL, Declarations, Sort, boolean_comparisons
from ltlwit.logic.theory.terms import SHIFTS, Term
from ltlwit.pipeline.logs import UNDECODABLE, listed

if TYPE_CHECKING:
    from ltlwit.pipeline.logs import Log

#: Cells read between two reads of the clock and the memory.
_EVERY = 1024
TRUE_WORDS = frozenset({"true", "1", "t", "yes"})
FALSE_WORDS = frozenset({"false", "0", "f", "no"})
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_NOT_NUMBERS = frozenset({"nan", "inf", "infinity"})


class BadCell(ValueError):
    """A cell that is no value: not a number, a word or a truth value; its text says why."""


def cell_value(raw: object) -> Value | bool | None:
    """A raw cell's value: an int for an integer numeral, a Fraction for another number (`2.5`,
    `1/3`; JSON's doubles as written), a str for a word (`true` and `false` are words too, read
    as truths where the column is Bool), a bool for JSON's truth values, None for no value (an
    empty CSV cell, JSON's null or a missing key). BadCell for anything else."""
    if raw is None or isinstance(raw, bool):
        return raw
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise BadCell(f"{raw} is not a number")
        return Fraction(repr(raw))  # the decimal as written in the log, not the binary double
    if not isinstance(raw, str):
        raise BadCell(f"{raw!r} is not a number, a word or a truth value")
    text = raw.strip()
    if not text:
        return None
    if UNDECODABLE.search(text):
        raise BadCell("not UTF-8 text")
    if not BARE_NAME.match(text) and (why := numeral_too_long(text)) is not None:
        raise BadCell(why)
    if _INTEGER.match(text):
        return int(text)
    if BARE_NAME.match(text):
        if text.lower() in _NOT_NUMBERS:
            raise BadCell(f"{text} is not a number")
        return text
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise BadCell(f"{text!r} is not a number, a word or a truth value") from None
    return int(value) if value.denominator == 1 and "." not in text else value


@dataclass(frozen=True)
class LogSorts:
    """What `inferred_declarations` finds: the sorts of the columns a requirement reads and
    nothing declares; the log's problems with them (`path:LINE: why`); warnings about words
    the requirement gives an enumeration that the log never shows."""

    declarations: Declarations
    problems: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass
class _Survey:
    """A column's values at a glance: how many of each kind, each word's first instant."""

    integers: int = 0
    decimals: int = 0
    truths: int = 0  # JSON's true and false
    words: int = 0
    first: dict[str, int] = field(default_factory=dict)

    @property
    def numbers(self) -> int:
        return self.integers + self.decimals

    def sort(self, domain: Sort | None) -> Sort | None:
        """Bool, Int or Real as the values say (module docstring); None for words, and for
        numbers where `domain` decides."""
        if not self.numbers and all(w.lower() in ("true", "false") for w in self.first):
            return BOOL if self.truths or self.first else domain or INT  # (no value at all: the typing says so)
        if self.words > self.numbers:
            return None
        return None if domain is not None else REAL if self.decimals else INT


def _survey(log: Log, name: str) -> _Survey:
    key = ("survey", name, None)
    found = log.typed.get(key)
    if found is None:
        found = _Survey()
        for i, raw in enumerate(paced(log.columns[name], check_deadline, _EVERY)):
            try:
                value = cell_value(raw)
            except BadCell:
                continue  # said by `typed_column`, in whatever sort the column gets
            if isinstance(value, bool):
                found.truths += 1
            elif isinstance(value, int):
                found.integers += 1
            elif isinstance(value, Fraction):
                found.decimals += 1
            elif isinstance(value, str):
                found.words += 1
                found.first.setdefault(value, i)
        log.typed[key] = found  # (whole: a limit reached halfway leaves nothing)
    return found


def inferred_declarations(log: Log, formula: Formula, declared: Declarations | None = None) -> LogSorts:
    """The sorts of the columns of `log` that `formula` reads and `declared` does not give
    (module docstring), as Declarations to merge under the declared ones,
    `inferred.merged(declared)` (they name none of `declared`'s variables); with the log's
    problems with those columns (a name that is no column, a word that is also a column's
    name). SortError (a ValueError) where `declared` itself clashes."""
    declared = declared or Declarations()
    given = declared.variables
    constants = declared.enum_values()
    columns = log.columns
    # a column used as a proposition is Bool, and so is a name compared with it (nuXmv's `p = q`)
    bools = Declarations(tuple((n, BOOL) for n in formula.aps() if n in columns and n not in given))
    formula = boolean_comparisons(formula, declared.merged(bools))
    props = formula.aps()
    atoms = [node.term for node in postorder(formula) if node.term is not None]
    names = dict.fromkeys(t.symbol for a in atoms for t in a.walk() if t.op == "var" and t.symbol not in constants)
    entries: dict[str, Sort] = {n: BOOL for n in props if n in columns and n not in given}
    surveys = {n: _survey(log, n) for n in names if n in columns and n not in given and n not in entries}
    wordy = set()
    for n, survey in surveys.items():
        sort = survey.sort(declared.domain)
        if sort is not None:
            entries[n] = sort
        elif survey.words > survey.numbers:
            wordy.add(n)
    compared = list(_compared(atoms))
    group = _groups(wordy, surveys, compared)
    asked: dict[str, dict[str, None]] = {}  # the requirement's words, by group
    for a, b in compared:
        for column, word in ((a, b), (b, a)):
            if column in wordy and word not in columns and word not in given and word not in props:
                asked.setdefault(group[column], {})[word] = None
    problems: list[str] = []
    warnings: list[str] = []
    for root in dict.fromkeys(group.values()):
        members = [n for n in sorted(wordy) if group[n] == root]
        seen: dict[str, tuple[int, str]] = {}  # word -> its first instant, and the column
        for m in members:
            for word, i in surveys[m].first.items():
                seen[word] = min(seen.get(word, (i, m)), (i, m))
        words = sorted(seen, key=lambda w: seen[w])
        problems += [
            f"{log.where(i)}: {m}'s value {w} is also the name of a column"
            for w, (i, m) in seen.items()
            if w in columns
        ]
        values = dict.fromkeys([*words, *asked.get(root, {})])
        sort = next((constants[w] for w in values if w in constants), None) or Sort(
            "{" + ", ".join(values) + "}", tuple(values)
        )
        entries.update((m, sort) for m in members)
        warnings += [
            f"{' and '.join(members)} never {'is' if len(members) == 1 else 'are'} {w} in {log.path}: "
            f"{w} read as one more of {'its' if len(members) == 1 else 'their'} values (misspelled?)"
            for w in asked.get(root, {})
            if w not in seen
        ]
    values_of = {v for s in entries.values() for v in s.values}
    problems += [  # a declared name needs its column as much as one inferred
        _no_column(log, n) for n in dict.fromkeys([*props, *names]) if n not in columns and n not in values_of
    ]
    return LogSorts(Declarations(tuple(entries.items())), tuple(problems), tuple(warnings))


def _no_column(log: Log, name: str) -> str:
    """A name the log has no column for (CSV: at its header; JSON Lines: no state gives it)."""
    import difflib

    close = difflib.get_close_matches(name, list(log.columns), 1)
    hint = (
        f" (did you mean {close[0]}?)"
        if close
        else f" (the columns: {listed(list(log.columns))})"
        if log.columns
        else ""
    )
    if log.json:
        return f"{log.path}: no state gives {name} a value{hint}"
    return f"{log.path}:{log.header}: no column {name}{hint}"


def _compared(atoms: Iterable[Term]) -> Iterable[tuple[str, str]]:
    """The pairs of names an `=` or `!=` relates, each side a name, shifted or not."""
    for a in atoms:
        if a.op in ("=", "!="):
            left, right = (_base(c) for c in a.children)
            if left.op == "var" and right.op == "var":
                yield left.symbol, right.symbol


def _base(term: Term) -> Term:
    while term.op in SHIFTS:
        term = term.children[0]
    return term


def _groups(wordy: set[str], surveys: dict[str, _Survey], compared: list[tuple[str, str]]) -> dict[str, str]:
    """Each word column's group of one enumeration (a representative): columns that share a
    word, or that the requirement compares, are in one."""
    parent = {n: n for n in wordy}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[str, str] = {}
    for n in sorted(wordy):
        for w in surveys[n].first:
            parent[find(n)] = find(owner.setdefault(w, n))
    for a, b in compared:
        if a in wordy and b in wordy:
            parent[find(a)] = find(b)
    return {n: find(n) for n in sorted(wordy)}


def typed_column(log: Log, name: str, sort: Sort) -> tuple[list, str | None]:
    """The column's values in `sort` (truths for Bool), by instant; or, where some do not fit,
    None-filled and the problem: the first such cell's `path:LINE: why` and how many more."""
    key = ("typed", name, sort)
    found = log.typed.get(key)
    if found is not None:
        return found
    values: list = []
    first: str | None = None
    more = 0
    last = 0
    for i, raw in enumerate(paced(log.columns[name], check_deadline, _EVERY)):
        try:
            values.append(_cell(raw, name, sort))
            continue
        except (BadCell, TraceError) as exc:
            why = str(exc)
        values.append(None)
        if first is None:
            first = f"{log.where(i)}: {why}"
        else:
            more += 1
            last = i
    if more:
        first = f"{first} (and {more} more, the last at {log.where(last)})"
    found = log.typed[key] = (values, first)
    return found


def _cell(raw: object, name: str, sort: Sort) -> Value | bool:
    try:
        value = cell_value(raw)
    except BadCell as exc:
        raise BadCell(f"{name}: {exc}") from None
    if value is None:
        raise BadCell(f"no value for {name}")
    if sort == BOOL:
        if isinstance(value, bool):
            return value
        text = str(value).lower()
        if text in TRUE_WORDS or text in FALSE_WORDS:
            return text in TRUE_WORDS
        raise BadCell(f"{name} is a proposition, and {raw!r} is not true or false")
    if isinstance(value, bool):
        raise BadCell(f"{name} is {sort}, and {str(value).lower()} is a truth value")
    if sort.enum != isinstance(value, str):
        kind = "a word, not a number" if isinstance(value, str) else "a number"
        raise BadCell(f"{name} is {sort}, and {str(raw).strip()} is {kind}")
    return typed(value, sort, name)
