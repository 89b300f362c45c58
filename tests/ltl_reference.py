"""An independent oracle for the LTL engine's tests: textbook LTL semantics on ultimately
periodic words of *full* valuations, plus random concrete completions of symbolic traces.

Deliberately naive and shares nothing with `ltlwit.logic.ltl`: a word is `prefix + cycle`
(lists of dicts name -> bool), position i has the single successor i+1, or the loop start
after the last position. Every operator is evaluated straight from its definition by walking
the successor chain from a position until a position repeats (on a lasso that visits every
future position of the word).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Mapping, Sequence

from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace

Letter = Mapping[str, bool]


def prop_value(f: Formula, letter: Letter) -> bool:
    """A propositional formula under a full valuation (missing APs are false)."""
    op = f.op
    if op == "1":
        return True
    if op == "0":
        return False
    if op == "ap":
        return bool(letter.get(f.name, False))
    if op == "!":
        return not prop_value(f.children[0], letter)
    a = prop_value(f.children[0], letter)
    b = prop_value(f.children[1], letter)
    return {"&": a and b, "|": a or b, "->": (not a) or b, "<->": a == b, "xor": a != b}[op]


def satisfies(f: Formula, prefix: Sequence[Letter], cycle: Sequence[Letter]) -> bool:
    """Whether the word prefix·cycle^ω satisfies f at position 0."""
    word = list(prefix) + list(cycle)
    loop = len(prefix)
    n = len(word)

    def succ(i: int) -> int:
        return i + 1 if i + 1 < n else loop

    def future(i: int) -> list[int]:
        """Positions i, succ(i), ... until one repeats: the whole future from i, in order."""
        out, seen = [], set()
        while i not in seen:
            seen.add(i)
            out.append(i)
            i = succ(i)
        return out

    @lru_cache(maxsize=None)
    def ev(g: Formula, i: int) -> bool:
        op = g.op
        if not g.temporal:
            return prop_value(g, word[i])
        kids = g.children
        if op == "!":
            return not ev(kids[0], i)
        if op == "&":
            return ev(kids[0], i) and ev(kids[1], i)
        if op == "|":
            return ev(kids[0], i) or ev(kids[1], i)
        if op == "->":
            return (not ev(kids[0], i)) or ev(kids[1], i)
        if op == "<->":
            return ev(kids[0], i) == ev(kids[1], i)
        if op == "xor":
            return ev(kids[0], i) != ev(kids[1], i)
        if op == "X":
            return ev(kids[0], succ(i))
        if op == "F":
            return any(ev(kids[0], j) for j in future(i))
        if op == "G":
            return all(ev(kids[0], j) for j in future(i))
        if op == "U":
            return until(kids[0], kids[1], i)
        if op == "R":  # a R b = !(!a U !b): b holds up to and including the first a, or forever
            for j in future(i):
                if not ev(kids[1], j):
                    return False
                if ev(kids[0], j):
                    return True
            return True
        if op == "W":  # a U b, or G a
            return until(kids[0], kids[1], i) or all(ev(kids[0], j) for j in future(i))
        if op == "M":  # b U (a & b)
            for j in future(i):
                if ev(kids[0], j) and ev(kids[1], j):
                    return True
                if not ev(kids[1], j):
                    return False
            return False
        raise ValueError(op)

    def until(a: Formula, b: Formula, i: int) -> bool:
        for j in future(i):
            if ev(b, j):
                return True
            if not ev(a, j):
                return False
        return False

    return ev(f, 0)


def _models(step: Formula, names: Sequence[str]) -> list[dict[str, bool]]:
    out = []
    for v in range(1 << len(names)):
        letter = {n: bool(v >> k & 1) for k, n in enumerate(names)}
        if prop_value(step, letter):
            out.append(letter)
    return out


def random_completions(trace: Trace, names: Sequence[str], rng: random.Random,
                       count: int = 20) -> list[tuple[list[dict], list[dict]]]:
    """Concrete lassos matching the symbolic trace: each position of the prefix, and of the
    cycle unrolled 1-3 times (after 0-2 extra unrolled copies in the prefix), gets an
    independent random letter satisfying its step. Valuations range over `names` (which must
    cover the formula's and the trace's APs; at most ~12 of them)."""
    names = list(dict.fromkeys(list(names) + list(trace.aps())))
    models = {s: _models(s, names) for s in set(trace.steps)}
    if any(not m for m in models.values()):
        raise ValueError("a step of the trace is unsatisfiable")
    out = []
    for _ in range(count):
        extra = rng.randint(0, 2)
        unroll = rng.randint(1, 3)
        pre = list(trace.prefix) + list(trace.cycle) * extra
        cyc = list(trace.cycle) * unroll
        out.append(([rng.choice(models[s]) for s in pre], [rng.choice(models[s]) for s in cyc]))
    return out
