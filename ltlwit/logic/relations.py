"""How two formulas relate, decided: equivalent, one stronger than the other, overlapping, or
disjoint. What `ltlwit similar` says of each pair a ranking puts side by side: a ranking by
similarity is a guess, the relation a claim, so the claim is the engine's.

Three questions decide it: is `a & !b` satisfiable (a trace of a that b rules out), `!a & b`,
and `a & b`. Where both fingerprints are known (`fingerprint`), a trace of their set on which
one formula holds and the other does not answers a question `sat` at once (the trace is
checked against the question all the same); only the questions no trace of the set answers go
to the engine, whose `Unsat` is a proof. A pair of unrelated formulas is decided without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from ltlwit.logic.fingerprint import Fingerprints
from ltlwit.logic.formula import And, Formula, Not
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.trace import Trace


class Relation(str, Enum):
    """What a pair's traces are to each other (of `a` to `b`)."""

    #: The same traces.
    EQUIVALENT = "equivalent"
    #: Every trace of a is one of b (a implies b), not the other way round.
    STRONGER = "stronger"
    #: Every trace of b is one of a (b implies a), not the other way round.
    WEAKER = "weaker"
    #: Some traces in common and some apart, both ways.
    OVERLAPPING = "overlapping"
    #: No trace satisfies both (jointly unsatisfiable), and neither implies the other.
    DISJOINT = "disjoint"
    #: A question the engine left open (`Related.reason`).
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Related:
    """A pair's relation, and why it is undecided where it is (the engine's reason)."""

    relation: Relation
    reason: str | None = None


def relate(
    a: Formula,
    b: Formula,
    decide: Callable[[Formula], Result],
    fingerprints: tuple[Fingerprints, int, int] | None = None,
) -> Related:
    """How `a` relates to `b` (module docstring), `decide` answering satisfiability (with the
    semantics and declarations the two are read with); `fingerprints`: the set and the two
    formulas' fingerprints on it, where known (over data they prove nothing: not used)."""
    answer = _Answers(a, b, decide, None if a.data or b.data else fingerprints)
    only_a, only_b = answer(And(a, Not(b)), 0), answer(And(Not(a), b), 1)
    if only_a is False and only_b is False:
        return Related(Relation.EQUIVALENT)
    if only_a is False or only_b is False:
        other = only_b if only_a is False else only_a
        if other is True:
            return Related(Relation.STRONGER if only_a is False else Relation.WEAKER)
        return Related(Relation.UNDECIDED, f"{'stronger' if only_a is False else 'weaker'} or equivalent: {other}")
    if isinstance(only_a, str) or isinstance(only_b, str):
        reasons = [r for r in (only_a, only_b) if isinstance(r, str)]
        return Related(Relation.UNDECIDED, reasons[0])
    both = answer(And(a, b), 2)
    if isinstance(both, str):
        return Related(Relation.UNDECIDED, f"overlapping or disjoint: {both}")
    return Related(Relation.OVERLAPPING if both else Relation.DISJOINT)


class _Answers:
    """Each question's answer: True (satisfiable), False (unsatisfiable), or why it is open."""

    def __init__(
        self,
        a: Formula,
        b: Formula,
        decide: Callable[[Formula], Result],
        fingerprints: tuple[Fingerprints, int, int] | None,
    ) -> None:
        self.decide = decide
        self.names = tuple(dict.fromkeys(a.aps() + b.aps()))
        self.prints = fingerprints[0] if fingerprints is not None else None
        #: Per question, the traces of the set that answer it: a & !b, !a & b, a & b.
        self.masks = (0, 0, 0)
        if fingerprints is not None:
            fa, fb = fingerprints[1:]
            full = (1 << fingerprints[0].size) - 1
            self.masks = (fa & ~fb & full, ~fa & fb & full, fa & fb)

    def __call__(self, question: Formula, which: int) -> bool | str:
        mask = self.masks[which]
        if mask and self.prints is not None:
            from ltlwit.logic.ltl import holds

            trace: Trace = self.prints.trace((mask & -mask).bit_length() - 1, self.names)
            if holds(question, trace, engine="builtin"):  # (by construction; checked all the same)
                return True
        result = self.decide(question)
        if isinstance(result, Sat):
            return True
        if isinstance(result, Unsat):
            return False
        assert isinstance(result, Unknown)  # (the three answers)
        return result.reason or "no answer"
