"""Asking a question about many specs together of the few that matter to it.

A file's vacuity and redundancy questions each conjoin every requirement with a claim about
one of them (C & !s[o := v], C - s & !s), but most of the requirements share no name with that
one: a FRET export is a dozen components whose names are apart. So a question is asked first
of the specs connected to the claim by shared names (`conjoined`). An unsatisfiable subset
proves the question unsatisfiable. A witness of the subset answers the whole question once the
specs outside it hold on it too: the witness is completed with the values of the names outside
the subset from a witness of all the specs (`completed`: a trace of C, which the questions are
only asked once C is known satisfiable), and checked against every spec and the claim; where it
is not a witness, the subset grows by the specs it violates, up to all of them.
"""

from __future__ import annotations

from math import lcm
from typing import Protocol

from ltlwit.logic.formula import And, Formula, conjuncts
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness

#: The longest cycle a completed lasso may have (the two cycles' least common multiple).
LONGEST_CYCLE = 64


class Decide(Protocol):
    """A decision procedure (satisfiability with a budget; the check's `Decider`), and how it
    reads a witness against a formula (the file's semantics and sorts)."""

    def __call__(self, formula: Formula) -> Result: ...

    def satisfies(self, formula: Formula, witness: Witness) -> bool: ...


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
    time also those that the subset's witness, completed from `base` (a witness of every spec)
    where it can be, violates; a subset left undecided leaves the whole question to `decide`."""
    used = [names(s) for s in specs]
    wanted = set(chosen) | {i for i, mine in enumerate(used) if mine & start}
    everything = list(range(len(specs)))
    while len(wanted) < len(specs):
        kept = sorted(wanted)
        result = decide(And(*(specs[i] for i in kept), claim))
        if isinstance(result, Unsat):
            return result, kept
        if not isinstance(result, Sat):
            break
        if base is not None:
            inside = frozenset().union(*(used[i] for i in kept), names(claim))
            full = completed(result.witness, base, inside)
            if full is not None:
                broken = {i for i in everything if not decide.satisfies(specs[i], full)}
                if not broken and decide.satisfies(claim, full):
                    return Sat(full), everything
                if broken - wanted:
                    wanted |= broken
                    continue
        violated = {i for i in everything if i not in wanted and not decide.satisfies(specs[i], result.witness)}
        if not violated:
            return result, everything
        wanted |= violated
    return decide(And(And(*specs), claim)), everything


def completed(inner: Witness, outer: Witness, inside: frozenset[str]) -> Trace | None:
    """`inner` with the values `outer` gives the names not `inside` (each step of `outer`
    restricted to its conjuncts over other names), step by step: two lassos unrolled to a
    common shape, two finite traces to `inner`'s length (`outer`'s last step repeated, or its
    end cut). None where they do not go together (a lasso and a finite trace, cycles whose
    common multiple is too long, steps that mix inner and outer names). Not a witness of
    anything until checked."""
    if not isinstance(inner, Trace) or not isinstance(outer, Trace) or inner.finite != outer.finite:
        return None
    if inner.finite:
        n = len(inner.steps)
        rows = [(inner.steps[i], outer.steps[min(i, len(outer.steps) - 1)]) for i in range(n)]
        prefix = n
    else:
        prefix = max(len(inner.prefix), len(outer.prefix))
        cycle = lcm(len(inner.cycle), len(outer.cycle))
        if cycle > LONGEST_CYCLE:
            return None
        rows = [(_at(inner, i), _at(outer, i)) for i in range(prefix + cycle)]
    steps = []
    for mine, theirs in rows:
        kept = [c for c in conjuncts(theirs) if not names(c) & inside]
        if any(names(c) & inside and not names(c) <= inside for c in conjuncts(theirs)):
            return None
        steps.append(And(mine, *kept))
    return Trace(tuple(steps[:prefix]), tuple(steps[prefix:]))


def _at(lasso: Trace, i: int) -> Formula:
    """The `i`-th step of a lasso's word (0-based), unrolled."""
    if i < len(lasso.prefix):
        return lasso.prefix[i]
    return lasso.cycle[(i - len(lasso.prefix)) % len(lasso.cycle)]
