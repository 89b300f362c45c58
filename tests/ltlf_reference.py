"""An independent oracle for finite-trace semantics (LTLf): the definitions evaluated on a
finite word of full valuations, position by position. Shares nothing with `ltlwit.logic.ltl`
(its translation to infinite words in particular): every operator, future and past, is read
straight from its definition over the positions 0..n-1 of the word.
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Iterator, Mapping, Sequence

from ltl_reference import letters, prop_value

from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace

Letter = Mapping[str, bool]


def satisfies_finite(f: Formula, word: Sequence[Letter]) -> bool:
    """Whether the non-empty finite word satisfies f at position 0."""
    n = len(word)
    assert n > 0, "finite traces are non-empty"

    @lru_cache(maxsize=None)
    def ev(g: Formula, i: int) -> bool:
        op, kids = g.op, g.children
        if not g.temporal:
            return prop_value(g, word[i])
        if op == "!":
            return not ev(kids[0], i)
        if op in ("&", "|", "->", "<->", "xor"):
            a, b = ev(kids[0], i), ev(kids[1], i)
            return {"&": a and b, "|": a or b, "->": (not a) or b, "<->": a == b, "xor": a != b}[op]
        if op == "X":  # strong: there is a next instant
            return i + 1 < n and ev(kids[0], i + 1)
        if op == "wX":  # weak: if there is a next instant
            return i + 1 >= n or ev(kids[0], i + 1)
        if op == "F":
            return any(ev(kids[0], j) for j in range(i, n))
        if op == "G":
            return all(ev(kids[0], j) for j in range(i, n))
        if op == "U":
            return any(ev(kids[1], j) and all(ev(kids[0], k) for k in range(i, j)) for j in range(i, n))
        if op == "R":
            return all(ev(kids[1], j) or any(ev(kids[0], k) for k in range(i, j)) for j in range(i, n))
        if op == "W":
            return ev(Formula("U", kids), i) or all(ev(kids[0], j) for j in range(i, n))
        if op == "M":
            return any(
                ev(kids[0], j) and ev(kids[1], j) and all(ev(kids[1], k) for k in range(i, j)) for j in range(i, n)
            )
        if op == "Y":
            return i > 0 and ev(kids[0], i - 1)
        if op == "Z":
            return i == 0 or ev(kids[0], i - 1)
        if op == "O":
            return any(ev(kids[0], j) for j in range(0, i + 1))
        if op == "H":
            return all(ev(kids[0], j) for j in range(0, i + 1))
        if op == "S":
            return any(ev(kids[1], j) and all(ev(kids[0], k) for k in range(j + 1, i + 1)) for j in range(0, i + 1))
        if op == "T":
            return all(ev(kids[1], j) or any(ev(kids[0], k) for k in range(j + 1, i + 1)) for j in range(0, i + 1))
        raise ValueError(op)

    return ev(f, 0)


def words(names: Sequence[str], longest: int) -> Iterator[list[dict[str, bool]]]:
    """Every finite word over `names` of length 1..longest."""
    alphabet = letters(names)
    for n in range(1, longest + 1):
        for word in itertools.product(alphabet, repeat=n):
            yield list(word)


def completions(trace: Trace, names: Sequence[str]) -> Iterator[list[dict[str, bool]]]:
    """Every word of full valuations over `names` matching the finite symbolic trace."""
    per_step = [[letter for letter in letters(names) if prop_value(step, letter)] for step in trace.prefix]
    for word in itertools.product(*per_step):
        yield list(word)
