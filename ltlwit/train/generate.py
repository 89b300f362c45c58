"""Random formulas for training data: Spot `randltl`'s algorithm and DeepLTL's size gate.

`RandomFormulas.formula(n, rng)` builds a tree of exactly `n` Polish tokens the way Spot's
`random_formula::generate` does: size 1 draws a leaf (the `ap` priority covers all APs, one
of which is then picked uniformly, or a constant), size 2 a unary operator over a leaf, larger
sizes any unary or binary operator by priority, a binary one splitting the remaining `n - 1`
tokens uniformly (left gets 1..n-2). Unlike Spot nothing is simplified afterwards, so the size
asked for is the size obtained (Spot's `--tree-size` is the size *before* its trivial rewrites).
`normal_formula(n, rng)`, which data generation uses, draws the same way but redraws every node
that one of Spot's trivial identities would rewrite, so its formulas look like randltl's.

`SizeGate` is DeepLTL's `DistributionGate`: every size bin is capped at
`count * (1 - alpha) / (number of bins >= uniform_from)`, so sizes from `uniform_from` on come
out uniform and the small sizes, which have few distinct formulas, take the `alpha` share.
Unlike DeepLTL the gate also closes a bin after `patience` failures in a row (duplicates,
unsatisfiable formulas): a size that cannot supply more distinct samples stops being drawn, and
what it did not take is shared out among the bins of the uniform range still open (the cap
rises). DeepLTL keeps duplicates, so its small sizes fill up with repeats; ltlwit's data holds
each formula once. With `uniform_from=1, alpha=0` (the defaults) this is water-filling: every
size gets the same share until it runs out of distinct formulas, the rest share what it left,
which gives the shape of the reference sets (ltl35: sizes 6..35 uniform, 1..5 what exists;
prop35: 7..35 uniform), and the count is reached whenever enough distinct formulas exist.

Everything is driven by an explicit `random.Random`, so a seed reproduces the formulas.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ltlwit.logic.formula import BINARY, CONSTANTS, UNARY, Formula, ap
from ltlwit.logic.rename import slot_name
from ltlwit.logic.trivial import rewrites_root

#: Priorities per alphabet, Spot's way: `ap` is the weight of "some AP" as a whole.
#: `ltl35`: DeepLTL's LTLRandom35 (`false=1,true=1,not=1,X=1,U=1,and=1`, everything else 0,
#: Spot's default `ap=3`). `ltl`: Spot's default LTL priorities (all operators 1, W/M 0).
#: `prop`: PropRandom35 (`! & |` 2, `<-> xor 1 0` 1, `ap` 3).
#: `ltl35-matched`, `prop-matched` (the defaults): the same operators with priorities fitted by
#: `bench/fit_alphabet.py` (seeded) so that labelled formulas of sizes 7..35 have the node shares
#: of ltl35 / prop35 within 0.2 points. Redrawing rewritable nodes instead of simplifying whole
#: trees as randltl does shifts the mix (with randltl's priorities: 2 points more `X`, 1 point
#: fewer `U` and AP leaves, a third fewer `1 U` for LTL; 2 points fewer `!` for prop).
PRIORITIES: dict[str, dict[str, float]] = {
    "ltl35": {"ap": 3, "1": 1, "0": 1, "!": 1, "X": 1, "U": 1, "&": 1},
    "ltl": {
        "ap": 3,
        "1": 1,
        "0": 1,
        "!": 1,
        "X": 1,
        "F": 1,
        "G": 1,
        "&": 1,
        "|": 1,
        "->": 1,
        "<->": 1,
        "xor": 1,
        "U": 1,
        "R": 1,
    },
    "prop": {"ap": 3, "1": 1, "0": 1, "!": 2, "&": 2, "|": 2, "<->": 1, "xor": 1},
    "ltl35-matched": {"ap": 3.0, "1": 1.314, "0": 0.944, "!": 0.772, "X": 0.812, "U": 1.031, "&": 1.03},
    "prop-matched": {"ap": 3.0, "1": 1.124, "0": 1.124, "!": 3.513, "&": 1.948, "|": 1.949, "<->": 1.017, "xor": 1.013},
}
#: Largest size `normal_formula` draws (it recurses once per level of the tree).
MAX_NORMAL_SIZE = 400
#: The alphabet each task uses unless told otherwise.
DEFAULT_ALPHABET = {"ltl": "ltl35-matched", "prop": "prop-matched"}
#: Where the gate starts enforcing uniform sizes: everywhere (water-filling). DeepLTL's
#: settings were 10 (LTLRandom35) and 12 (PropRandom35) with alpha 0.112, a share its small
#: sizes filled with duplicates.
DEFAULT_UNIFORM_FROM = {"ltl": 1, "prop": 1}
#: The share of the samples left to the sizes below the uniform range.
DEFAULT_ALPHA = 0.0


class _Choice:
    """Weighted choice among (token, weight) pairs, zero weights dropped."""

    def __init__(self, weights: Mapping[str, float]) -> None:
        items = [(tok, float(w)) for tok, w in weights.items() if w > 0]
        self.tokens = [tok for tok, _ in items]
        self.cumulative: list[float] = []
        total = 0.0
        for _, w in items:
            total += w
            self.cumulative.append(total)
        self.total = total

    def __bool__(self) -> bool:
        return bool(self.tokens)

    def pick(self, rng: random.Random) -> str:
        r = rng.random() * self.total
        for tok, edge in zip(self.tokens, self.cumulative):
            if r < edge:
                return tok
        return self.tokens[-1]


class RandomFormulas:
    """Formulas over the APs `a, b, ...` (the first `n_aps` slots) with operator priorities."""

    def __init__(self, n_aps: int, priorities: Mapping[str, float] | str = "ltl35") -> None:
        if isinstance(priorities, str):
            try:
                priorities = PRIORITIES[priorities]
            except KeyError:
                raise ValueError(f"unknown alphabet {priorities!r} (known: {', '.join(PRIORITIES)})") from None
        unknown = set(priorities) - {"ap", *CONSTANTS, *UNARY, *BINARY}
        if unknown:
            raise ValueError(f"unknown operators in priorities: {sorted(unknown)}")
        if any(w < 0 for w in priorities.values()):
            raise ValueError("priorities must be non-negative")
        if n_aps < 0 or (
            n_aps == 0 and priorities.get("ap", 0) > 0 and not any(priorities.get(c, 0) > 0 for c in CONSTANTS)
        ):
            raise ValueError("need at least one AP or constant to build leaves")
        weights = dict(priorities)
        if n_aps == 0:
            weights["ap"] = 0
        self.aps = tuple(ap(slot_name(i)) for i in range(n_aps))
        self.priorities = dict(priorities)
        self.leaf = _Choice({t: w for t, w in weights.items() if t == "ap" or t in CONSTANTS})
        self.unary = _Choice({t: w for t, w in weights.items() if t in UNARY})
        self.any_op = _Choice({t: w for t, w in weights.items() if t in UNARY or t in BINARY})
        if not self.leaf:
            raise ValueError("the priorities give no leaf (ap or constant) a positive weight")

    def feasible(self, n: int) -> bool:
        """Whether a tree of exactly `n` tokens exists with these operators."""
        if n == 1:
            return True
        if n == 2:
            return bool(self.unary)
        if self.unary:
            return bool(self.any_op)
        return bool(self.any_op) and n % 2 == 1  # binary operators only: odd sizes

    def formula(self, n: int, rng: random.Random) -> Formula:
        """A random formula of exactly `n` Polish tokens (iterative: any size is fine)."""
        if n < 1 or not self.feasible(n):
            raise ValueError(f"no formula of size {n} with these operators")
        tokens: list[str | Formula] = []
        sizes = [n]
        while sizes:
            m = sizes.pop()
            if m == 1:
                tok = self.leaf.pick(rng)
                tokens.append(rng.choice(self.aps) if tok == "ap" else Formula(tok))
                continue
            op = self.unary.pick(rng) if m == 2 else self.any_op.pick(rng)
            tokens.append(op)
            if op in UNARY:
                sizes.append(m - 1)
            else:
                left = self._split(m - 1, rng)
                sizes += [m - 1 - left, left]  # left popped (and emitted) first: Polish order
        return _build(tokens)

    def normal_formula(self, n: int, rng: random.Random, tries: int = 50) -> Formula | None:
        """A formula of exactly `n` tokens that Spot's trivial identities leave as it is (no
        `!!`, `a & 1`, `b U 0`, `c | c`: `ltlwit.logic.trivial`), or None when `tries` draws
        of some node found none (e.g. no APs to build from).

        Drawn as `formula` draws, node by node, redrawing a node (its operator, split and
        subtrees) that an identity would rewrite. Spot instead simplifies whole random trees
        and keeps the size that remains; drawing that way and keeping exact sizes costs 2-40 ms
        a formula here (trees shrink to about 45% of their size), this far less. The formulas
        are the same kind as randltl's; their distribution is not exactly its.
        """
        if n < 1 or not self.feasible(n):
            raise ValueError(f"no formula of size {n} with these operators")
        if n > MAX_NORMAL_SIZE:
            raise ValueError(f"sizes up to {MAX_NORMAL_SIZE} only")
        return self._normal(n, rng, tries)

    def _normal(self, m: int, rng: random.Random, tries: int) -> Formula | None:
        if m == 1:
            tok = self.leaf.pick(rng)
            return rng.choice(self.aps) if tok == "ap" else Formula(tok)
        for _ in range(tries):
            op = self.unary.pick(rng) if m == 2 else self.any_op.pick(rng)
            if op in UNARY:
                sizes = [m - 1]
            else:
                left = self._split(m - 1, rng)
                sizes = [left, m - 1 - left]
            kids = [self._normal(k, rng, tries) for k in sizes]
            if any(k is None for k in kids):
                continue
            node = Formula(op, tuple(k for k in kids if k is not None))
            if not rewrites_root(node):
                return node
        return None

    def _split(self, rest: int, rng: random.Random) -> int:
        if self.unary:
            return rng.randint(1, rest - 1)
        return 2 * rng.randint(0, (rest - 2) // 2) + 1  # both halves odd


def _build(tokens: list[str | Formula]) -> Formula:
    """Formula from Polish tokens (operators as strings, leaves as formulas)."""
    stack: list[Formula] = []
    for tok in reversed(tokens):
        if isinstance(tok, Formula):
            stack.append(tok)
        elif tok in UNARY:
            stack.append(Formula(tok, (stack.pop(),)))
        else:
            left = stack.pop()
            stack.append(Formula(tok, (left, stack.pop())))
    (formula,) = stack
    return formula


@dataclass
class SizeGate:
    """DeepLTL's uniform size distribution over sizes 1..max_size for `count` samples, or, with
    `shares` (size -> weight, e.g. a reference set's size histogram), that distribution: size s
    is capped at its share of the count; what a closed size leaves is shared out among the open
    ones in proportion to their shares."""

    max_size: int
    count: int
    uniform_from: int = 10
    alpha: float = DEFAULT_ALPHA
    patience: int = 0  # failures in a row that close a bin; 0: min(500, max(32, cap / 4))
    shares: Mapping[int, float] | None = None
    accepted: Counter = field(default_factory=Counter)
    failures: Counter = field(default_factory=Counter)
    closed: set = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.max_size < 1 or self.count < 0:
            raise ValueError("max_size must be >= 1 and count >= 0")
        if not 0 <= self.alpha < 1:
            raise ValueError("alpha must be in [0, 1)")
        if self.shares is not None:
            if any(w < 0 for w in self.shares.values()) or not any(
                w > 0 for s, w in self.shares.items() if 1 <= s <= self.max_size
            ):
                raise ValueError("size shares must be non-negative with some size in 1..max_size above 0")
            self.shares = {s: float(w) for s, w in self.shares.items() if 1 <= s <= self.max_size and w > 0}
        self.caps: dict[int, int] = {}
        self._update_cap()
        if not self.patience:  # small runs give up on an exhausted size sooner
            self.patience = min(500, max(32, self.cap // 4))

    def _update_cap(self) -> None:
        """The uniform range's share over its open bins (closed ones keep what they took)."""
        if self.shares is not None:
            spent = sum(self.accepted[s] for s in self.shares if s in self.closed)
            weight = sum(w for s, w in self.shares.items() if s not in self.closed)
            left = max(self.count - spent, 0)
            self.caps = {
                s: self.accepted[s] if s in self.closed else math.ceil(left * w / weight)
                for s, w in self.shares.items()
            }
            self.cap = max(self.caps.values(), default=0)
            return
        enforced = [s for s in self.enforced if s not in self.closed]
        if not len(self.enforced):  # no size in the uniform range: every size may take the whole count
            self.cap = self.count
            return
        spent = sum(self.accepted[s] for s in self.enforced if s in self.closed)
        share = self.count * (1 - self.alpha) - spent
        self.cap = math.ceil(share / len(enforced)) if enforced else 0

    def close(self, sizes: Iterable[int]) -> None:
        """Stop drawing these sizes (no formula of that size, or no more distinct ones)."""
        self.closed.update(sizes)
        self._update_cap()

    @property
    def enforced(self) -> range | list[int]:
        if self.shares is not None:
            return sorted(self.shares)
        return range(max(self.uniform_from, 1), self.max_size + 1)

    def cap_of(self, size: int) -> int:
        return self.caps.get(size, 0) if self.shares is not None else self.cap

    def has_room(self, size: int, pending: Mapping[int, int] | None = None) -> bool:
        """Below the cap (counting `pending` in-flight samples); closed bins may still have room."""
        return 1 <= size <= self.max_size and self.accepted[size] + (pending or {}).get(size, 0) < self.cap_of(size)

    def is_open(self, size: int, pending: Mapping[int, int] | None = None) -> bool:
        """Worth drawing from: room left and not closed for repeated failures."""
        return size not in self.closed and self.has_room(size, pending)

    def open_sizes(self, pending: Mapping[int, int] | None = None) -> list[int]:
        return [s for s in range(1, self.max_size + 1) if self.is_open(s, pending)]

    def accept(self, size: int) -> None:
        self.accepted[size] += 1
        self.failures[size] = 0
        if size in self.closed:  # a straggler of a closed bin: its share is what it holds
            self._update_cap()

    def fail(self, size: int) -> None:
        """A duplicate or rejected formula of this size; too many in a row close the bin."""
        self.failures[size] += 1
        if self.failures[size] >= self.patience and size not in self.closed:
            self.close([size])

    def full(self) -> bool:
        """DeepLTL's stop condition: every enforced bin is full (or cannot be filled)."""
        sizes = self.enforced if len(self.enforced) else range(1, self.max_size + 1)
        return all(not self.is_open(s) for s in sizes)
