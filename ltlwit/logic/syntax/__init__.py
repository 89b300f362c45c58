"""The syntax layer: parse and print formulas, lasso traces and assignments.

Formulas: `spot` (Spot's infix, with its aliases and UTF-8 operators), `polish` (DeepLTL's
network Polish `&Uab!Xc`; a string with spaces between tokens is read as spaced Polish),
`polish-spaced` (`& U req b ! X c`), `lbt`, `nuxmv` (BLACK's and nuXmv's: Spot's infix with
operators as whole words, and data atoms; see `data`), and `auto` (see `detect`). The past operators
(`Y Z O H S T`: yesterday, weak yesterday, once, historically, since, triggered) are read
and printed in the letters BLACK and nuXmv use by every syntax but network Polish, which
stays DeepLTL's future-only format; so is BLACK's weak next `wX` (finite traces: "if there is
a next instant"), while Spot's strong next `X[!]` reads as `X`. Every parser raises
`ParseError` only; every parser and printer is iterative, so depth is never a problem.
Printers round-trip: `parse_formula(print_formula(f, s), s) is f` for every syntax `s`.

`print_detectable` is what `ltlwit fmt --to S` writes: text that auto-detection reads back as
the very same formula (`parse_formula(print_detectable(f, s)) is f`, no normalisation). Names
are quoted wherever a reader that auto-detection may try would take them for something else
(`names`, `polish`); where a syntax's only spelling is ambiguous, the writer picks another or
refuses: network Polish that Spot's infix reads otherwise (`Uab` is a name there) is written
spaced (`U a b`, which `--syntax polish` reads too), and LBT refuses a constant under unary
operators only (`X t` is infix over a proposition `t`, as Spot reads it too).
"""

from __future__ import annotations

import re

from ltlwit.logic import OUTPUT_SYNTAXES, SYNTAXES
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax.detect import SyntaxGuess, parse_auto
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix import parse_spot
from ltlwit.logic.syntax.infix_print import print_spot
from ltlwit.logic.syntax.lbt import parse_lbt, print_lbt
from ltlwit.logic.syntax.polish import parse_network, parse_spaced, print_network, print_spaced
from ltlwit.logic.syntax.words import (
    compact_entries,
    parse_compact,
    parse_cube,
    parse_json,
    parse_trace_with,
    print_compact,
    print_json,
    print_trace_polish,
    print_trace_spot,
)
from ltlwit.logic.trace import Trace

__all__ = [
    "SYNTAXES",
    "OUTPUT_SYNTAXES",
    "ASSIGNMENT_SYNTAXES",
    "ParseError",
    "parse_formula",
    "print_formula",
    "print_answer",
    "print_detectable",
    "parse_trace",
    "print_trace",
    "parse_assignment",
    "print_assignment",
]

#: What `print_assignment` writes: every output syntax, and JSON.
ASSIGNMENT_SYNTAXES = (*OUTPUT_SYNTAXES, "json")


def _polish(text: str) -> Formula:
    return parse_spaced(text) if any(ch.isspace() for ch in text.strip()) else parse_network(text)


def _nuxmv(text: str) -> Formula:
    from ltlwit.logic.syntax.data import parse_data  # the data parser loads where it is used

    return parse_data(text)


_CYCLE_KEYWORD = re.compile(r"(?:^|[\s;])cycle\s*\{")  # Spot's framing, not DeepLTL's `;{...}`
_PARSERS = {
    "auto": parse_auto,
    "spot": parse_spot,
    "polish": _polish,
    "polish-spaced": parse_spaced,
    "lbt": parse_lbt,
    "nuxmv": _nuxmv,
}
_NAMES = {"polish": "DeepLTL's Polish notation", "polish-spaced": "Spaced Polish notation", "lbt": "LBT"}
_PRINTERS = {
    "spot": print_spot,
    "infix": print_spot,
    "polish": print_network,
    "polish-spaced": print_spaced,
    "lbt": print_lbt,
}


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"expected a string to parse, got {type(text).__name__}")


def parse_formula(text: str, syntax: str = "auto") -> Formula:
    """Parse one formula; raises ParseError (a ValueError) with a column on bad input."""
    _check_text(text)
    try:
        parser = _PARSERS[syntax]
    except KeyError:
        raise ValueError(f"unknown formula syntax {syntax!r}; expected one of {', '.join(SYNTAXES)}") from None
    formula = parser(text)
    if not formula.data:  # a Declare template reads as a predicate atom at first
        return formula
    from ltlwit.logic.declare import expanded

    return expanded(formula)


#: The most subformula occurrences a printed formula may have: a bounded operator copies its
#: operand at each instant it reads (`O[<=3]` stacked 14 times is 805 million occurrences of
#: 43 nodes), and no syntax has them to spell it shorter; 10 million print in about 10 s.
PRINT_MOST = 10_000_000


def print_formula(formula: Formula, syntax: str = "spot") -> str:
    """Render a formula; `polish` raises ValueError for names it cannot spell (multi-letter)
    and for past operators and the weak next `wX`; every syntax for a formula of more than
    `PRINT_MOST` occurrences."""
    try:
        printer = _PRINTERS[syntax]
    except KeyError:
        raise ValueError(f"unknown output syntax {syntax!r}; expected one of {', '.join(OUTPUT_SYNTAXES)}") from None
    if formula.size > PRINT_MOST:
        size = formula.size
        count = f"{size:,}" if size < 10**15 else f"about 10^{int(size.bit_length() * 0.30103)}"
        raise ValueError(
            f"spelled out, it has {count} subformula occurrences (its bounded operators copy their "
            f"operands at every instant they read), over {PRINT_MOST:,}: too large to print"
        )
    if formula.data and syntax not in ("spot", "infix"):
        raise ValueError(
            f"{_NAMES[syntax]} has no data atoms (comparisons such as x > 1, terms, functions); --to infix carries them"
        )
    return printer(formula)


def print_answer(formula: Formula, syntax: str = "spot") -> str:
    """A formula in an answer (a core, a weakened conjunct) as `--syntax-out` asks, where the
    syntax can spell it, as `print_trace` writes a witness: network Polish that cannot (a name
    of several letters, past, weak next) in the spaced form, a formula over data in infix."""
    if formula.data:
        return print_formula(formula, "spot")
    try:
        return print_formula(formula, syntax)
    except ValueError:
        if syntax != "polish":
            raise
        return print_spaced(formula)


def print_detectable(formula: Formula, syntax: str = "infix") -> str:
    """`formula` in `syntax` as `ltlwit fmt --to SYNTAX` writes it: text that auto-detection
    (`parse_formula(text)`) reads back as this very formula. Infix, Spot and spaced Polish are
    their printers' text. Network Polish that Spot's infix reads otherwise (`Uab`, `X1` are names
    there, `Fxorab` is `F xorab`) is written in the spaced form (`U a b`), which the `polish`
    reader reads too. LBT has no such way out for a constant under unary operators only (`t`,
    `X t`): its one spelling is an infix formula over a proposition `t` or `f`, read so (as in
    Spot), so that raises ValueError, as does what the syntax cannot spell (`print_formula`)."""
    text = print_formula(formula, syntax)
    if syntax == "polish":
        return text if parse_auto(text) is formula else print_spaced(formula)
    if syntax == "lbt":
        leaf = formula
        while len(leaf.children) == 1:
            leaf = leaf.children[0]
        if leaf.is_constant:
            letter = "t" if leaf.op == "1" else "f"
            raise ValueError(
                f"its LBT spelling {text!r} is also infix over a proposition {letter}, and auto-detection reads "
                "it so (as Spot does); --to infix and --to polish-spaced write it"
            )
    return text


def parse_trace(text: str, syntax: str = "auto") -> Trace:
    """A lasso trace: Spot's `a & !b; 1; cycle{c}` or DeepLTL's `&a!b;1;{c}`.

    `auto` accepts either framing and reads each step with formula auto-detection."""
    _check_text(text)
    if syntax == "auto":  # steps in DeepLTL's framing are read as it writes them
        return parse_trace_with(text, SyntaxGuess(polish_source=deepltl_framing(text), steps=True).parse, None)
    if syntax == "spot":
        return parse_trace_with(text, parse_spot, "spot")
    if syntax == "polish":
        return parse_trace_with(text, _polish, "polish")
    raise ValueError(f"unknown trace syntax {syntax!r}; expected auto, spot or polish")


def deepltl_framing(text: str) -> bool:
    """Whether a trace is written as DeepLTL writes them (`a;{b}`), not as Spot (`a; cycle{b}`):
    a hint that the formula it goes with is DeepLTL's Polish too."""
    return "{" in text and not _CYCLE_KEYWORD.search(text)


def print_trace(trace: Trace, syntax: str = "spot") -> str:
    """A lasso trace in any output syntax (see `Trace.to_str`); each reads back with
    `parse_trace(text, "auto")`. A trace with values (`x = 3`) is written in infix whatever the
    syntax: the others have no data atoms."""
    if syntax == "spot" or trace.data:
        return print_trace_spot(trace, print_spot)
    if syntax == "lbt":
        return print_trace_spot(trace, print_lbt)
    if syntax == "polish":
        try:
            return print_trace_polish(trace, print_network)
        except ValueError:  # multi-letter AP names: network Polish cannot spell them
            return print_trace_polish(trace, print_spaced)
    if syntax == "polish-spaced":
        return print_trace_polish(trace, print_spaced)
    raise ValueError(f"unknown output syntax {syntax!r}; expected one of {', '.join(OUTPUT_SYNTAXES)}")


def parse_assignment(text: str, syntax: str = "auto") -> Assignment:
    """`polish`: `a1c0`; `json`: `{"a": true, "c": false}`; `spot`: a cube `a & !c` (`1`
    is empty). `auto`: JSON when it starts with `{`, else compact if it reads so, else a
    cube (so `a1` is a1 = true only with `syntax="spot"`). An AP given two different
    values is a ParseError."""
    _check_text(text)
    if syntax == "json" or (syntax == "auto" and text.lstrip().startswith("{")):
        return parse_json(text)
    if syntax == "polish":
        return parse_compact(text)
    if syntax == "spot":
        return parse_cube(text, parse_spot(text))
    if syntax != "auto":
        raise ValueError(f"unknown assignment syntax {syntax!r}; expected auto, spot, polish or json")
    try:
        entries = compact_entries(text)
    except ParseError as compact_error:
        try:
            formula = parse_spot(text)
        except ParseError as cube_error:
            raise (cube_error if any(ch in text for ch in "&!()~¬∧|") else compact_error) from None
        return parse_cube(text, formula)
    return parse_compact(text, entries)


def print_assignment(assignment: Assignment, syntax: str = "spot") -> str:
    """An assignment in any output syntax, or JSON (see `Assignment.to_str`): `spot` and `lbt`
    print its cube, `polish` DeepLTL's compact form."""
    if syntax == "spot":
        return print_spot(assignment.to_formula())
    if syntax == "lbt":
        return print_lbt(assignment.to_formula())
    if syntax in ("polish", "polish-spaced"):
        return print_compact(assignment, spaced=syntax == "polish-spaced")
    if syntax == "json":
        return print_json(assignment)
    raise ValueError(f"unknown assignment syntax {syntax!r}; expected one of {', '.join(ASSIGNMENT_SYNTAXES)}")
