"""Hypothesis strategies shared by the test suite: random formulas, traces, assignments.

`formulas(aps=..., max_leaves=..., temporal=...)` draws trees over the whole future operator
set (propositional operators only when `temporal=False`; the past operators `Y Z O H S T` too
with `past=True`, the weak next `wX` with `weak=True`); `aps` is a sequence of names or a
strategy of names (`weird_names()` exercises quoting in every syntax).
"""

from __future__ import annotations

from typing import Sequence

from hypothesis import strategies as st

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import FALSE, PAST_BINARY, PAST_UNARY, TRUE, WEAK_NEXT, Formula, ap
from ltlwit.logic.trace import Trace

PROP_UNARY = ("!",)
PROP_BINARY = ("&", "|", "->", "<->", "xor")
LTL_UNARY = ("!", "X", "F", "G")
LTL_BINARY = PROP_BINARY + ("U", "R", "W", "M")
PAST_LTL_UNARY = LTL_UNARY + PAST_UNARY
PAST_LTL_BINARY = LTL_BINARY + PAST_BINARY


def _names(aps: Sequence[str] | st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return aps if isinstance(aps, st.SearchStrategy) else st.sampled_from(tuple(aps))


def formulas(
    aps: Sequence[str] | st.SearchStrategy[str] = ("a", "b", "c", "d", "e"),
    max_leaves: int = 12,
    temporal: bool = True,
    constants: bool = True,
    past: bool = False,
    weak: bool = False,
) -> st.SearchStrategy[Formula]:
    """`past`: the past operators too, `weak`: the weak next `wX` too (with `temporal` only);
    both off, the draws are exactly the future-only ones the rest of the suite was written
    against."""
    leaves = _names(aps).map(ap)
    if constants:
        leaves = leaves | st.sampled_from((TRUE, FALSE))
    if not temporal:
        unary, binary = PROP_UNARY, PROP_BINARY
    elif past:
        unary, binary = PAST_LTL_UNARY, PAST_LTL_BINARY
    else:
        unary, binary = LTL_UNARY, LTL_BINARY
    if temporal and weak:
        unary += (WEAK_NEXT,)

    def extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        return st.builds(lambda op, c: Formula(op, (c,)), st.sampled_from(unary), children) | st.builds(
            lambda op, l, r: Formula(op, (l, r)), st.sampled_from(binary), children, children
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def traces(
    aps: Sequence[str] | st.SearchStrategy[str] = ("a", "b", "c"),
    max_prefix: int = 3,
    max_cycle: int = 3,
    max_leaves: int = 4,
) -> st.SearchStrategy[Trace]:
    step = formulas(aps, max_leaves=max_leaves, temporal=False)
    return st.builds(
        lambda p, c: Trace(tuple(p), tuple(c)),
        st.lists(step, max_size=max_prefix),
        st.lists(step, min_size=1, max_size=max_cycle),
    )


def assignments(
    aps: Sequence[str] | st.SearchStrategy[str] = ("a", "b", "c", "d", "e"),
) -> st.SearchStrategy[Assignment]:
    return st.dictionaries(_names(aps), st.booleans(), max_size=8).map(Assignment.of)


def weird_names() -> st.SearchStrategy[str]:
    """AP names that stress quoting: operator words, constants, digits, spaces, quotes,
    backslashes, braces, `;`, unicode; plus ordinary identifiers."""
    tricky = st.sampled_from(
        [
            "X",
            "F",
            "G",
            "U",
            "R",
            "V",
            "W",
            "M",
            "S",
            "xor",
            "true",
            "False",
            "t",
            "f",
            "i",
            "e",
            "p0",
            "F0",
            "X1y",
            "aUb",
            "Ua",
            "GFa",
            "x < 3",
            'say "hi"',
            "back\\slash",
            "a;b",
            "{c}",
            "cycle",
            "1",
            "0",
            "p 1",
            "é",
            "a.b",
            "_x",
            "->",
            "é=0",
            "first_match",
        ]
    )
    identifiers = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
    anything = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)
    return tricky | identifiers | anything
