"""An independent oracle for the LTL engine's tests: textbook LTL semantics, with the past-time
operators, on ultimately periodic words of *full* valuations, plus random concrete completions
of symbolic traces.

Deliberately naive and shares nothing with `ltlwit.logic.ltl`: a word is `prefix + cycle`
(lists of dicts name -> bool), position i has the single successor i+1, or the loop start
after the last position. Every future operator is evaluated straight from its definition by
walking the successor chain from a position until a position repeats (on a lasso that visits
every future position of the word); every past operator by walking the genuine predecessors
i, i-1, ..., 0.

Past operators break the identification of a position of the infinite word with its fold
into the lasso (position len(prefix) + len(cycle) and the loop start have different pasts), so
a formula with past operators is evaluated on the same word written with the cycle unrolled
into the prefix (`satisfies` says why, and why a bounded number of copies is enough).
"""

from __future__ import annotations

import itertools
import random
from functools import lru_cache
from typing import Mapping, Sequence

from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace

Letter = Mapping[str, bool]


def letters(names: Sequence[str] = ("a", "b")) -> list[dict[str, bool]]:
    """Every letter (full valuation) over `names`."""
    return [dict(zip(names, values)) for values in itertools.product((False, True), repeat=len(names))]


def lassos(
    max_prefix: int, max_cycle: int, names: Sequence[str] = ("a", "b")
) -> list[tuple[list[dict[str, bool]], list[dict[str, bool]]]]:
    """Every lasso of full valuations with a prefix of at most `max_prefix` letters and a cycle of
    1 to `max_cycle` (the same word written several ways is listed each way)."""
    alphabet = letters(names)
    prefixes = [list(p) for n in range(max_prefix + 1) for p in itertools.product(alphabet, repeat=n)]
    cycles = [list(c) for n in range(1, max_cycle + 1) for c in itertools.product(alphabet, repeat=n)]
    return [(p, c) for p in prefixes for c in cycles]


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


#: The past operators: `Y` yesterday (false at position 0), `Z` weak yesterday (true at 0),
#: `O` once, `H` historically, `S` since, `T` triggered (`a T b` = `!(!a S !b)`).
PAST_OPS = frozenset({"Y", "Z", "O", "H", "S", "T"})


@lru_cache(maxsize=4096)
def past_depth(f: Formula) -> int:
    """The past nesting depth of f: the most past operators on one path from the root to a
    leaf (each shared subformula once, without recursion; once per formula, as the sweeps ask
    it of one formula on every lasso)."""
    depth: dict[Formula, int] = {}
    stack = [f]
    while stack:
        g = stack[-1]
        todo = [c for c in g.children if c not in depth]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        depth[g] = max((depth[c] for c in g.children), default=0) + (g.op in PAST_OPS)
    return depth[f]


def satisfies(f: Formula, prefix: Sequence[Letter], cycle: Sequence[Letter]) -> bool:
    """Whether the word w = prefix·cycle^ω satisfies f at position 0.

    For a formula with past operators the lasso is first rewritten as the same word with
    m = past_depth(f) + 1 copies of the cycle unrolled into the prefix, prefix' = prefix·cycle^m
    and cycle' = cycle, and evaluated on that; with positions 0..N-1, N = p + (m+1)·c
    (p = len(prefix), c = len(cycle)), the last of which is followed by the loop start p + m·c.
    Why that is exact:

    Lemma. If g has past nesting depth d, then w,i |= g iff w,i+c |= g for every
    i >= p + d·c (g's values are periodic with the cycle's period from there on).
    By induction on g. Atoms: letters repeat from p. Boolean operators: immediate. Future
    operators (X F G U R W M): the value at i is a function of the children's values at the
    positions >= i, which from any i >= P (P: where both children are periodic, <= p + d·c)
    are the same sequences at i and at i+c. `Y`, `Z`: the child's value at i-1, periodic from
    P+1. `S` (`O` is `1 S b`; `H`, `T` are duals): s(i) = b(i) | (a(i) & s(i-1)). If a is false
    somewhere in [P, P+c), it is false in every window of c positions from P on; for
    i >= P+c-1 let k >= i-c+1 be the last position <= i where a is false: a witness j of
    a S b at i has a on (j, i], so j >= k, and s(i) depends only on a and b over
    [i-c+1, i], which repeat with c. Otherwise a holds everywhere from P, and
    s(i) = s(P-1) | (b somewhere in [P, i]), constant from i = P+c-1. Either way each past
    operator moves the start of periodicity by at most c positions, and none else moves it.

    Then, for every subformula g (depth <= past depth of f <= m) and every position i < N, the
    evaluation below gives w,i |= g, by induction on g: a past operator looks only at the
    genuine positions i, i-1, ..., 0 (all < N, correct by induction); a future operator follows
    the successor chain i, i+1, ..., N-1, p+m·c, ..., which stands for the true positions
    i, i+1, ..., N-1, N, N+1, ... (j >= N folded to j - k·c in the last copy [p+m·c, N)),
    and by the lemma the children's values at j and at its fold agree, since both are at or
    beyond p + m·c >= p + depth·c. (m = past depth would do; the one copy more is a margin,
    which also keeps this bound from being exactly the engine's.)
    """
    depth = past_depth(f)
    if depth:
        prefix = list(prefix) + list(cycle) * (depth + 1)  # m = depth + 1 copies
    word = list(prefix) + list(cycle)
    loop = len(prefix)
    n = len(word)

    def succ(i: int) -> int:
        return i + 1 if i + 1 < n else loop

    def future(i: int) -> list[int]:
        """Positions i, succ(i), ... until one repeats: the whole future from i, in order."""
        return [*range(i, n), *range(loop, i)]  # from before the loop, range(loop, i) is empty

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
        if op in ("X", "wX"):  # the weak next is X on infinite words
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
        # past operators: walk back over the genuine predecessors i, i-1, ..., 0
        if op == "Y":
            return i > 0 and ev(kids[0], i - 1)
        if op == "Z":
            return i == 0 or ev(kids[0], i - 1)
        if op == "O":
            return any(ev(kids[0], j) for j in range(i, -1, -1))
        if op == "H":
            return all(ev(kids[0], j) for j in range(i, -1, -1))
        if op == "S":  # b at some j <= i, a at every k with j < k <= i
            for j in range(i, -1, -1):
                if ev(kids[1], j):
                    return True
                if not ev(kids[0], j):
                    return False
            return False
        if op == "T":  # !(!a S !b): b at every j <= i back to (and including) the latest a
            for j in range(i, -1, -1):
                if not ev(kids[1], j):
                    return False
                if ev(kids[0], j):
                    return True
            return True
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


def random_completions(
    trace: Trace, names: Sequence[str], rng: random.Random, count: int = 20
) -> list[tuple[list[dict], list[dict]]]:
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
