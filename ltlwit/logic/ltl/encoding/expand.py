"""On-the-fly translation of a simplified NNF formula into a transition-based generalized Büchi
automaton, in the style of Couvreur's FM construction (the core of Spot's ltl2tgba).

A state is a set of obligations (formulas that must hold from here on), encoded as an integer
bit mask over the obligations met so far, so states hash and compare in O(1) and unions are
`|`. Each formula expands into *terms* `label ∧ X(next)`; a state's edges are the product of
its obligations' terms. A term that postpones an Until-like obligation `u` (`a U b`, `F b`,
`a M b`) carries u's *promise*; an edge is in u's acceptance set when it carries no promise
for u. Terms with equal (next, promises) are merged by OR-ing labels, and a term subsumed by
another (fewer obligations, fewer promises) loses the letters the other accepts — the run
through the weaker term accepts every word the stronger one would, so the language is kept
while edges and states shrink. Expansions are cached per formula and per state.

`<->` and `xor` are expanded lazily: `a <-> b` gives the terms of `a & b` and of `!a & !b`,
with `!a`, `!b` negated (and simplified) only when such a node is first expanded.
"""

from __future__ import annotations

from typing import Any, Callable

from ltlwit.logic.budget import CHECK_EVERY, Limit
from ltlwit.logic.formula import TICK, TRUE, Formula
from ltlwit.logic.ltl.encoding.implication import Implications
from ltlwit.logic.ltl.encoding.labels import Labels
from ltlwit.logic.ltl.encoding.rewrite import negate

#: (next-state mask, promise mask) -> label
Terms = dict[tuple[int, int], Any]
#: (label, destination state mask, acceptance marks)
Edge = tuple[Any, int, int]

_UNTIL_LIKE = frozenset({"U", "F", "M"})
#: Removing implied obligations is quadratic in a state's size; larger states are kept whole.
MAX_REDUCE_OBLIGATIONS = 24
#: Subsumption pruning is quadratic in a state's term count; past this it is skipped.
MAX_PRUNE_TERMS = 64
#: Term products up to this many pairs run without clock reads (the hot path); larger ones
#: (they can reach millions of pairs: a state with 20 pending `a U b`) check the deadline.
MAX_UNCHECKED_PAIRS = 1024


class Translator:
    """The automaton of one formula; states are explored only when asked for.

    A `limit` (the solve's budget) is also checked while expanding, which can take long on its
    own for huge formulas: per state, per 256 formulas expanded, and inside large term products
    and reductions; `edges_within` may be given a limit of its own (shared translators have
    none). An interrupted expansion caches nothing partial. `optimise=False` turns off the two
    language-preserving reductions (implied obligations, subsumed terms); the tests compare
    both automata. `implied=False` turns off the first only: then a state's subset of
    obligations simulates it step by step, which the realizability games rely on."""

    def __init__(
        self, root: Formula, labels: Labels, optimise: bool = True, limit: Limit | None = None, implied: bool = True
    ) -> None:
        self.labels = labels
        self.limit = limit
        self._bit: dict[Formula, int] = {}
        self._obligations: list[Formula] = []
        self.marks: dict[Formula, int] = {}
        for f in _closure(root):
            if f.op in _UNTIL_LIKE:
                self.marks[f] = 1 << len(self.marks)
        self.all_marks = (1 << len(self.marks)) - 1
        self._terms: dict[Formula, Terms] = {}
        self._edges: dict[int, list[Edge]] = {}
        self._restricted: dict[tuple[int, Any], list[Edge]] = {}
        self._reduced: dict[int, int] = {}
        self._implications = Implications(labels)
        self.optimise = optimise
        self.implied = optimise and implied
        self.initial = self.state_of([root])
        if self.implied:
            self.initial = self.reduce(self.initial)

    # -- states --------------------------------------------------------------------------
    def state_of(self, formulas: list[Formula]) -> int:
        mask = 0
        for f in formulas:
            for g in _conjuncts(f):
                if g is TRUE:
                    continue
                bit = self._bit.get(g)
                if bit is None:
                    bit = self._bit[g] = 1 << len(self._obligations)
                    self._obligations.append(g)
                mask |= bit
        return mask

    def formulas(self, state: int) -> list[Formula]:
        out = []
        while state:
            low = state & -state
            out.append(self._obligations[low.bit_length() - 1])
            state ^= low
        return out

    @property
    def state_count(self) -> int:
        return len(self._edges)

    # -- edges ---------------------------------------------------------------------------
    def edges(self, state: int) -> list[Edge]:
        """Outgoing edges, fewest pending obligations (then promises) first."""
        cached = self._edges.get(state)
        if cached is None:
            cached = self._edges[state] = self._expand_state(state, self.labels.true, self.limit)
        return cached

    def edges_within(self, state: int, letters: Any, limit: Limit | None = None) -> list[Edge]:
        """The edges for the letters of `letters` only (labels intersected with it). Folding
        the restriction in from the start prunes the product early: the trace checker asks
        this with each step's label. `limit`: the caller's deadline (default: the translator's)."""
        key = (state, letters)
        cached = self._restricted.get(key)
        if cached is None:
            cached = self._restricted[key] = self._expand_state(state, letters, self.limit if limit is None else limit)
        return cached

    def _expand_state(self, state: int, letters: Any, limit: Limit | None) -> list[Edge]:
        if limit is not None:
            limit.check_time()
        L = self.labels
        false = L.false
        terms: Terms = {(0, 0): letters}
        expansions = sorted((self.terms(f, limit) for f in self.formulas(state)), key=len)
        for k, ft in enumerate(expansions):
            if limit is not None and k and not k & 63:  # a past formula's monitors: 1,000s of obligations
                limit.check_time()
            terms = _product(terms, ft, false, limit)
            if not terms:
                break
        if self.optimise:
            terms = _prune_subsumed(self._reduce_terms(terms, limit) if self.implied else terms, L)
        full = self.all_marks
        edges = [(label, nxt, full ^ prom) for (nxt, prom), label in terms.items()]
        edges.sort(key=lambda e: (e[1].bit_count(), (full ^ e[2]).bit_count()))
        return edges

    def _reduce_terms(self, terms: Terms, limit: Limit | None = None) -> Terms:
        out: Terms = {}
        check = limit if limit is not None and len(terms) > CHECK_EVERY else None
        for (nxt, prom), label in terms.items():
            if check is not None:
                check.spend(1)
            key = (self.reduce(nxt), prom)
            old = out.get(key)
            out[key] = label if old is None else old | label
        return out

    def reduce(self, state: int) -> int:
        """The state without obligations implied by another of its obligations (same language;
        fewer distinct states)."""
        hit = self._reduced.get(state)
        if hit is not None:
            return hit
        keep = state
        fs = self.formulas(state)
        if 1 < len(fs) <= MAX_REDUCE_OBLIGATIONS:
            imp = self._implications.implies
            bit = self._bit
            for g in fs:
                for f in fs:
                    if f is not g and keep & bit[f] and imp(f, g):
                        keep &= ~bit[g]
                        break
        self._reduced[state] = keep
        return keep

    def terms(self, root: Formula, limit: Limit | None = None) -> Terms:
        """The expansion of one formula (cached); iterative over the formula, stopping at X.
        `limit` is checked every 256 formulas and inside large products."""
        memo = self._terms
        hit = memo.get(root)
        if hit is not None:
            return hit
        stack: list[tuple[Formula, bool]] = [(root, False)]
        while stack:
            f, ready = stack.pop()
            if f in memo:
                continue
            deps = self._dependencies(f)
            if not ready:
                stack.append((f, True))
                stack.extend((d, False) for d in deps if d not in memo)
                continue
            memo[f] = self._expand(f, [memo[d] for d in deps], limit)
            # every formula where labels are BDDs (each operation costs microseconds to seconds)
            if limit is not None and (len(memo) & 255 == 0 or not isinstance(self.labels.false, int)):
                limit.check_time()
        return memo[root]

    def _dependencies(self, f: Formula) -> tuple[Formula, ...]:
        if not f.temporal or f.op == "X":
            return ()
        if f.op in ("<->", "xor"):
            a, b = f.children
            return (a, b, negate(a), negate(b))
        return f.children

    def _expand(self, f: Formula, kids: list[Terms], limit: Limit | None = None) -> Terms:
        L = self.labels
        T = L.true
        false = L.false
        op = f.op
        if not f.temporal:
            label = L.of(f)
            return {} if label == false else {(0, 0): label}
        if op == "X":
            return {(self.state_of([f.children[0]]), 0): T}
        if op == "&":
            return _product(kids[0], kids[1], false, limit)
        if op == "|":
            return _union(kids[0], kids[1], limit)
        me = self.state_of([f])
        if op == "U":
            return _union(kids[1], _product(kids[0], {(me, self.marks[f]): T}, false, limit), limit)
        if op == "F":
            return _union(kids[0], {(me, self.marks[f]): T}, limit)
        if op == "R":
            return _product(kids[1], _union(kids[0], {(me, 0): T}, limit), false, limit)
        if op == "G":
            return _product(kids[0], {(me, 0): T}, false, limit)
        if op == "W":
            return _union(kids[1], _product(kids[0], {(me, 0): T}, false, limit), limit)
        if op == "M":
            return _product(kids[1], _union(kids[0], {(me, self.marks[f]): T}, limit), false, limit)
        if op == "<->":
            a, b, na, nb = kids
            return _union(_product(a, b, false, limit), _product(na, nb, false, limit), limit)
        if op == "xor":
            a, b, na, nb = kids
            return _union(_product(a, nb, false, limit), _product(na, b, false, limit), limit)
        raise ValueError(f"operator {op} is not in negation normal form")


def _product(t1: Terms, t2: Terms, false: Any, limit: Limit | None = None) -> Terms:
    """The pairwise conjunctions (empty labels dropped). Past MAX_UNCHECKED_PAIRS pairs, or
    with BDD labels at any size (a conjunction of BDDs over a past formula's 1,000 monitors
    takes milliseconds: 1,024 of them ran 4 s past a 20 s deadline), the clock is read once
    per term of `t1`, i.e. every len(t2) pairs: `OutOfTime` past the deadline."""
    big = len(t1) * len(t2) > MAX_UNCHECKED_PAIRS or not isinstance(false, int)
    checked = limit if limit is not None and big else None
    out: Terms = {}
    for (n1, p1), l1 in t1.items():
        if checked is not None:
            checked.check_time()
        for (n2, p2), l2 in t2.items():
            label = l1 & l2
            if label == false:
                continue
            key = (n1 | n2, p1 | p2)
            old = out.get(key)
            out[key] = label if old is None else old | label
    return out


def _union(t1: Terms, t2: Terms, limit: Limit | None = None) -> Terms:
    """The terms of either, labels of equal terms joined; `limit`'s deadline read every 1,024
    terms (a disjunction of big disjunctions: millions of terms, seconds)."""
    out = dict(t1)
    for i, (key, label) in enumerate(t2.items()):
        if limit is not None and not i & 1023:
            limit.check_time()
        old = out.get(key)
        out[key] = label if old is None else old | label
    return out


def _prune_subsumed(terms: Terms, L: Labels) -> Terms:
    """Remove from each term the letters of the terms subsuming it (see module docstring).
    Optional for correctness, so skipped for states with very many terms."""
    if not 1 < len(terms) <= MAX_PRUNE_TERMS:
        return terms
    items = sorted(terms.items(), key=lambda kv: kv[0][0].bit_count() + kv[0][1].bit_count())
    out: Terms = {}
    false = L.false
    for (n2, p2), l2 in items:
        for (n1, p1), l1 in out.items():
            if n1 & n2 == n1 and p1 & p2 == p1:
                l2 = l2 & L.neg(l1)
                if l2 == false:
                    break
        if l2 != false:
            out[(n2, p2)] = l2
    return out


def _conjuncts(f: Formula) -> list[Formula]:
    out = []
    stack = [f]
    while stack:
        g = stack.pop()
        if g.op == "&" and g.temporal:
            stack.extend(reversed(g.children))
        else:
            out.append(g)
    return out


def _closure(root: Formula, tick: Callable[[], None] | None = None) -> list[Formula]:
    """Every formula the translation can meet: subformulas, plus the negations that `<->` and
    `xor` expand into — so the acceptance marks are known before exploration starts. `tick`:
    called every `TICK` nodes (a solve's deadline: a multi-MB formula's walk takes tenths of a
    second)."""
    seen: dict[Formula, None] = {}
    stack = [root]
    visited = 0
    while stack:
        f = stack.pop()
        visited += 1
        if tick is not None and not visited % TICK:
            tick()
        if f in seen or not f.temporal:
            continue
        seen[f] = None
        stack.extend(f.children)
        if f.op in ("<->", "xor"):
            stack.extend(negate(c) for c in f.children)
    return list(seen)
