"""Asking a question about many specs together of the few that matter to it.

A file's vacuity and redundancy questions each conjoin every requirement with a claim about
one of them (C & !s[o := v], C - s & !s), but most of the requirements share no name with that
one: a FRET export is a dozen components whose names are apart. So a question is asked first
of the specs connected to the claim by shared names (`conjoined`). An unsatisfiable subset
proves the question unsatisfiable. A witness of the subset answers the whole question once the
specs outside it hold on it too: the witness is completed with the values of the names outside
the subset from a witness of all the specs (`combined`: a trace of C, which the questions are
only asked once C is known satisfiable), those groups of specs it then breaks asked again for a
trace of its shape, and it is checked against every spec and the claim; where it is not a
witness, the subset grows by the specs it violates, up to all of them.
"""

from __future__ import annotations

from math import lcm
from typing import Protocol

from ltlwit.logic.formula import PAST, TEMPORAL, TRUE, And, Formula, Not, conjuncts, postorder
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness

#: The operators that look ahead.
FUTURE = TEMPORAL - PAST
#: The longest cycle a completed lasso may have (the two cycles' least common multiple).
LONGEST_CYCLE = 64


class Decide(Protocol):
    """A decision procedure (satisfiability with a budget; the check's `Decider`), and how it
    reads a witness against a formula (the file's semantics and sorts)."""

    def __call__(self, formula: Formula) -> Result: ...

    def satisfies(self, formula: Formula, witness: Witness) -> bool: ...

    def on_lassos(self) -> "Decide": ...


def names(formula: Formula) -> frozenset[str]:
    """The names a formula's truth depends on: its propositions, and over data its variables
    and functions (rigid: one function at every instant, so it ties the formulas using it)."""
    if not formula.data:
        return frozenset(formula.aps())
    from ltlwit.logic.theory.reading import names as data_names

    return data_names(formula)


def conjoined(
    specs: list[Formula],
    start: frozenset[str],
    claim: Formula,
    decide: Decide,
    chosen: frozenset[int] = frozenset(),
    base: Witness | None = None,
) -> tuple[Result, list[int]]:
    """Satisfiability of `claim` and every spec (module docstring), and the specs of the subset
    that decided it: first those at `chosen` and those that use a name of `start`, then each
    time also those that the subset's witness, completed (`_completed`) from `base` (a witness
    of every spec) where it can be, violates. A subset left undecided leaves the question so:
    a larger one is harder."""
    used = [names(s) for s in specs]
    wanted = set(chosen) | {i for i, mine in enumerate(used) if mine & start}
    everything = list(range(len(specs)))
    while len(wanted) < len(specs):
        kept = sorted(wanted)
        result = decide(And(*(specs[i] for i in kept), claim))
        if not isinstance(result, Sat):
            return result, kept
        full, violated = _completed(result.witness, specs, used, kept, claim, decide, base)
        if full is not None:
            return Sat(full), everything
        wanted |= violated or set(everything)
    return decide(And(And(*specs), claim)), everything


def covering(
    specs: list[Formula],
    claim: Formula,
    prints: list[int],
    claimed: int,
    nearest: list[int],
    decide: Decide,
    rounds: int,
) -> list[int] | None:
    """A few of the specs at `nearest` that with `claim` are unsatisfiable (an engine proof),
    or None where `rounds` engine questions or the budget did not find them.

    `prints` are the specs' fingerprints on one set of traces (`logic.fingerprint`) and
    `claimed` the claim's: a set of specs can only rule the claim out if on each trace of the
    set where the claim holds one of them fails. So the specs are chosen to cover those traces
    (`_Cover`), and only then asked; a witness of the chosen and the claim (a trace the set
    lacked) is covered next, by the nearest spec it violates among those over their names
    alone, else among those sharing a name with them (the others are apart from it; the
    witness does not say what those over other names do). Where a trace of the set is left
    that every spec at `nearest` holds on, they cannot rule the claim out: None at once."""
    cover = _Cover(specs, claim, prints, nearest)
    for _ in range(rounds):
        if not cover.covered(claimed):
            return None
        result = decide(And(*(specs[j] for j in cover.chosen), claim))
        if isinstance(result, Unsat):
            return cover.chosen
        if not isinstance(result, Sat):
            return None
        near = sorted(cover.near(), key=lambda j: not cover.used[j] <= cover.reach)  # (stable: nearest first)
        violated = next((j for j in near if not decide.satisfies(specs[j], result.witness)), None)
        if violated is None:
            return None
        cover.take(violated)
        claimed = 0
    return None


def few(
    specs: list[Formula], claim: Formula, prints: list[int], claimed: int, among: list[int], decide: Decide
) -> list[int]:
    """Of the specs at `among`, which with `claim` are known unsatisfiable, the first few that
    are too: `among` ordered by `_Cover` (those covering the claim's traces of the fingerprint
    set first, then those sharing names with them, nearest first), and prefixes of twice the
    length asked until one is unsatisfiable (`among` itself at the end, unasked): a core sought
    among them costs about twice its size in questions, not the log of hundreds times it."""
    cover = _Cover(specs, claim, prints, among)
    cover.covered(claimed)
    first = [*cover.chosen, *cover.near()]
    ahead = set(first)
    order = first + [j for j in among if j not in ahead]
    size = max(1, len(cover.chosen))
    while size < len(order):
        if isinstance(decide(And(*(specs[j] for j in order[:size]), claim)), Unsat):
            return order[:size]
        size *= 2
    return among


class _Cover:
    """Specs chosen among `nearest` (nearest first) to rule a claim out, and the names they and
    the claim reach."""

    def __init__(self, specs: list[Formula], claim: Formula, prints: list[int], nearest: list[int]) -> None:
        self.prints, self.nearest = prints, nearest
        self.rank = {j: r for r, j in enumerate(nearest)}
        self.used = {j: names(specs[j]) for j in nearest}
        self.chosen: list[int] = []
        self.reach = set(names(claim))

    def take(self, j: int) -> None:
        self.chosen.append(j)
        self.reach |= self.used[j]

    def covered(self, left: int) -> bool:
        """Chooses specs until each trace of `left` (bits of the fingerprint set) has one
        failing on it, greedily: the one failing on most of those left, first among those
        sharing a name with the claim or the chosen, then the nearest. False where a trace is
        left that no spec fails on."""
        while left:
            free = [j for j in self.nearest if left & ~self.prints[j] and j not in self.chosen]
            if not free:
                return False
            self.take(
                max(
                    free,
                    key=lambda j: (
                        bool(self.used[j] & self.reach),
                        (left & ~self.prints[j]).bit_count(),
                        -self.rank[j],
                    ),
                )
            )
            left &= self.prints[self.chosen[-1]]
        return True

    def near(self) -> list[int]:
        """The specs not chosen that share a name with the claim or the chosen, nearest first."""
        return [j for j in self.nearest if self.used[j] & self.reach and j not in self.chosen]


def jointly(specs: list[Formula], decide: Decide) -> tuple[Result, list[int]]:
    """Satisfiability of the conjunction of `specs`, and the specs that decided it: asked of
    each group of them connected by shared names apart (a FRET export is a dozen components),
    the groups' witnesses combined into one (a group that the combination breaks asked again
    for a trace of its shape) and checked against the conjunction as a whole; a group without
    a model is the answer, with its specs; where the groups do not combine, the whole is asked."""
    everything = list(range(len(specs)))
    used = [names(s) for s in specs]
    groups = sorted(_groups([], set(everything), used), key=len, reverse=True)
    if len(groups) < 2:
        return decide(And(*specs)), everything
    found: list[Trace] = []
    for group in groups:
        result = decide(And(*(specs[i] for i in group)))
        if isinstance(result, Unsat):
            return result, group
        if not isinstance(result, Sat) or not isinstance(result.witness, Trace):
            return decide(And(*specs)), everything
        found.append(result.witness)
    whole = And(*specs)
    longest = max(range(len(groups)), key=lambda k: len(found[k].steps))
    full: Trace | None = found[longest]
    for k, group in enumerate(groups):
        if k == longest or full is None:
            continue
        mine = frozenset().union(*(used[i] for i in group))
        attempt = combined(full, found[k], mine)
        if attempt is not None and not all(decide.satisfies(specs[i], attempt) for i in group):
            again = _as_long(And(*(specs[i] for i in group)), full, decide)
            attempt = combined(full, again, mine) if again is not None else None
        full = attempt
    if full is not None and decide.satisfies(whole, full):
        return Sat(full), everything
    return decide(whole), everything


def _completed(
    witness: Witness,
    specs: list[Formula],
    used: list[frozenset[str]],
    kept: list[int],
    claim: Formula,
    decide: Decide,
    base: Witness | None,
) -> tuple[Witness | None, set[int]]:
    """A witness of the whole question made from `witness` (of the specs at `kept` and the
    claim), or the specs outside `kept` it violates. The names of the specs outside come from
    `base`; where that breaks some of them that share no name with the inside (a trace of
    the question's length is needed: FRET's `H[<=100]` needs 101 instants, `base` may have
    one), each group of them connected by names is asked again for a trace of that shape."""
    if not isinstance(base, Trace) or not isinstance(witness, Trace):
        outside = [i for i in range(len(specs)) if i not in kept]
        return (witness, set()) if all(decide.satisfies(specs[i], witness) for i in outside) else (None, set(outside))
    inside = frozenset().union(*(used[i] for i in kept), names(claim))
    outside = [i for i in range(len(specs)) if i not in set(kept)]
    take = frozenset().union(*(used[i] for i in outside)) - inside
    full = combined(witness, base, take)
    if full is None:
        return None, set(outside)
    # A spec reads its own names alone. One outside that shares none with the inside reads
    # `base` alone, the same word where the shapes agree: it holds there as on `base`, which
    # was checked; the others outside are judged here, each on the word it reads in `full`.
    same = not witness.finite or len(witness.steps) == len(base.steps)
    suspects = [i for i in outside if not same or used[i] & inside]
    broken = {i for i in suspects if not decide.satisfies(specs[i], full)}
    if any(used[i] & inside for i in broken):
        return None, {i for i in broken if used[i] & inside}
    asked: set[int] = set()  # the groups asked again: their names' values change in `full`
    for group in _groups([i for i in outside if i not in broken], broken, used):
        names_ = frozenset().union(*(used[i] for i in group))
        if names_ & inside:
            return None, set(group)
        again = _as_long(And(*(specs[i] for i in group)), witness, decide)
        full = combined(full, again, names_) if again is not None else None
        if full is None:
            return None, set(group)
        asked |= set(group)
    # Judged on `full` as it is now: the claim, the inside, and the groups asked again; every
    # other spec reads the same word as when it was judged above (or on `base`).
    if all(decide.satisfies(specs[i], full) for i in [*kept, *sorted(asked)]) and decide.satisfies(claim, full):
        return full, set()
    return None, {i for i in outside if not decide.satisfies(specs[i], full)}


def _groups(others: list[int], broken: set[int], used: list[frozenset[str]]) -> list[list[int]]:
    """The broken specs, each with every spec of `others` connected to it by shared names
    (and so on), one group per set so connected."""
    groups: list[list[int]] = []
    free = set(others) | broken
    for i in sorted(broken):
        if i not in free:
            continue
        group, reach = {i}, set(used[i])
        grown = True
        while grown:
            grown = False
            for j in sorted(free - group):
                if used[j] & reach:
                    group.add(j)
                    reach |= used[j]
                    grown = True
        free -= group
        groups.append(sorted(group))
    return groups


def _as_long(formula: Formula, witness: Trace, decide: Decide) -> Trace | None:
    """A trace of `formula` of `witness`'s shape (`_shape`), to be checked: for a finite
    `witness` and a formula that only looks back (`looks_back`), the prefix of a lasso of it
    where one exists (the search for a lasso is short where one of exactly 101 instants,
    FRET's `persisted(100, p)` beside non-linear arithmetic, runs out of time), else a trace
    asked for that shape."""
    if witness.finite and looks_back(formula):
        lasso = decide.on_lassos()(formula)
        if isinstance(lasso, Sat) and isinstance(lasso.witness, Trace) and not lasso.witness.finite:
            return Trace(tuple(_at(lasso.witness, i) for i in range(len(witness.steps))), ())
    again = decide(And(formula, *_shape(witness)))
    return again.witness if isinstance(again, Sat) and isinstance(again.witness, Trace) else None


def looks_back(formula: Formula) -> bool:
    """Whether each conjunct of `formula` is `G` of a formula of the past and present alone:
    then every prefix of a model, and of a lasso, is a model on finite traces."""
    return all(
        c.op == "G"
        and not any(
            n.op in FUTURE or n.term is not None and any(t.op in ("next", "wnext") for t in n.term.walk())
            for n in postorder(c.children[0])
        )
        for c in conjuncts(formula)
    )


def _shape(witness: Trace) -> list[Formula]:
    """What a trace of `witness`'s shape satisfies: for a finite one, exactly its number of
    instants (`X^(n-1) 1 & !X^n 1`, `X` the strong next); for a lasso, nothing (lassos of any
    shapes combine, unrolled)."""
    if not witness.finite:
        return []
    n = len(witness.steps)
    longer = TRUE
    for _ in range(n):
        longer = Formula("X", (longer,))
    return [longer.children[0], Not(longer)]


def combined(trace: Trace, other: Trace, take: frozenset[str]) -> Trace | None:
    """`trace` with the values of the names `take` from `other` (each step's conjuncts over
    them): two lassos unrolled to a common shape, two finite traces to `trace`'s length
    (`other`'s last step repeated, or its end cut). None where they do not go together (a
    lasso and a finite trace, cycles whose common multiple is too long, a conjunct over names
    of both sides). Not a witness of anything until checked."""
    if not isinstance(other, Trace) or trace.finite != other.finite:
        return None
    if trace.finite:
        n = len(trace.steps)
        rows = [(trace.steps[i], other.steps[min(i, len(other.steps) - 1)]) for i in range(n)]
        prefix = n
    else:
        prefix = max(len(trace.prefix), len(other.prefix))
        cycle = lcm(len(trace.cycle), len(other.cycle))
        if cycle > LONGEST_CYCLE:
            return None
        rows = [(_at(trace, i), _at(other, i)) for i in range(prefix + cycle)]
    steps = []
    for mine, theirs in rows:
        own, given = _split(mine, take), _split(theirs, take)
        if own is None or given is None:
            return None
        steps.append(And(*own[0], *given[1]))
    return Trace(tuple(steps[:prefix]), tuple(steps[prefix:]))


def _split(step: Formula, take: frozenset[str]) -> tuple[list[Formula], list[Formula]] | None:
    """A step's conjuncts over names outside `take`, and those over names in it; None for a
    conjunct over both."""
    out: tuple[list[Formula], list[Formula]] = ([], [])
    for c in conjuncts(step):
        mine = names(c)
        if mine & take and not mine <= take:
            return None
        out[1 if mine and mine <= take else 0].append(c)
    return out


def _at(lasso: Trace, i: int) -> Formula:
    """The `i`-th step of a lasso's word (0-based), unrolled."""
    if i < len(lasso.prefix):
        return lasso.prefix[i]
    return lasso.cycle[(i - len(lasso.prefix)) % len(lasso.cycle)]
