"""Unsatisfiable cores: which top-level conjuncts of an unsatisfiable formula conflict, proven
minimal with the engine's own answers.

A core is a subset of the conjuncts whose conjunction is unsatisfiable (an engine proof), and
it is *minimal* when each member is needed: without it the rest is satisfiable, shown by a
verified witness of the rest (which then violates that member). Nothing here is a new
procedure: `decide` is the engine (`ltlwit.logic.ltl.solve` or the SAT path, with the run's
budget), asked about sub-conjunctions.

Extraction is deletion in halving chunks (the ddmin/QuickXplain idea that `witness.minimise`
also uses for literals): drop half of the candidates and ask; unsatisfiable, they were not
needed; otherwise try smaller chunks, down to single conjuncts, each of which then ends with
its proof of necessity. Dropping conjuncts only makes a conjunction easier to satisfy, so a
witness found for `S - {m}` still witnesses every later, smaller `S' - {m}`: a member proven
needed stays proven. A core of k among n conjuncts costs about k·log(n/k) + k questions.
An `Unknown` answer (the budget) never removes a conjunct, so the result is always an
unsatisfiable core; it is minimal only where every member has its witness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ltlwit.logic.formula import And, Formula, conjuncts
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.witness import Witness


@dataclass(frozen=True)
class Core:
    """Members of an unsatisfiable set of conjuncts (0-based positions among `parts`, in
    order), and for each member the witness of the others that proves it needed (None where
    that was not shown: then `minimal` is False)."""

    parts: tuple[Formula, ...]
    members: tuple[int, ...]
    witnesses: tuple[Witness | None, ...]
    #: Where each part is written in the input text, (start, end) columns, when known.
    spans: tuple[tuple[int, int], ...] | None = None

    @property
    def minimal(self) -> bool:
        return all(w is not None for w in self.witnesses)

    @property
    def formulas(self) -> tuple[Formula, ...]:
        return tuple(self.parts[i] for i in self.members)


def top_conjuncts(formula: Formula) -> tuple[Formula, ...]:
    """The formula's top-level conjuncts, `&` flattened left to right (`1` dropped)."""
    return tuple(conjuncts(formula)) or (formula,)


def unsat_core(parts: Sequence[Formula], decide: Callable[[Formula], Result],
               expired: Callable[[], bool] = lambda: False) -> Core:
    """A core of the unsatisfiable conjunction of `parts` (module docstring). `expired()`
    stops the extraction early (the run's deadline): the core found so far is returned, not
    proven minimal."""
    parts = tuple(parts)
    members = list(range(len(parts)))
    needed: dict[int, Witness] = {}
    chunk = max(1, len(members) // 2)
    while True:
        k = 0
        while k < len(members):
            if expired():
                return _core(parts, members, needed)
            dropped = members[k:k + chunk]
            rest = members[:k] + members[k + chunk:]
            answer = decide(And(*(parts[i] for i in rest)))
            if isinstance(answer, Unsat):
                members = rest
            else:
                if isinstance(answer, Sat) and chunk == 1:
                    needed[dropped[0]] = answer.witness
                k += chunk
        if chunk == 1:
            return _core(parts, members, needed)
        chunk = max(1, chunk // 2)


def _core(parts: tuple[Formula, ...], members: list[int], needed: dict[int, Witness]) -> Core:
    return Core(parts, tuple(members), tuple(needed.get(m) for m in members))
