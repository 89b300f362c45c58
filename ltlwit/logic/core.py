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

from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence, TypeVar

from ltlwit.logic.formula import And, Formula, conjuncts
from ltlwit.logic.polarity import child_positions, polarities, replace_many, weakening
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
    #: With the fine core (`fine_core`): each member with the occurrences that do not matter
    #: weakened to constants, in the members' order.
    fine: tuple[Formula, ...] | None = None
    #: The occurrences kept in `fine`, as (k-th member, Polish position in `fine[k]`), each
    #: with the witness that shows it needed (None where not shown): it satisfies the fine
    #: core with that occurrence weakened too.
    fine_witnesses: tuple[tuple[tuple[int, int], Witness | None], ...] = ()
    #: False when the deadline stopped the fine core before every level was tried.
    fine_complete: bool = True

    @property
    def minimal(self) -> bool:
        """Proven: every member needed and, for a fine core, every kept occurrence too."""
        return (
            all(w is not None for w in self.witnesses)
            and self.fine_complete
            and all(w is not None for _, w in self.fine_witnesses)
        )

    @property
    def formulas(self) -> tuple[Formula, ...]:
        return tuple(self.parts[i] for i in self.members)


def top_conjuncts(formula: Formula) -> tuple[Formula, ...]:
    """The formula's top-level conjuncts, `&` flattened left to right (`1` dropped)."""
    return tuple(conjuncts(formula)) or (formula,)


def unsat_core(
    parts: Sequence[Formula], decide: Callable[[Formula], Result], expired: Callable[[], bool] = lambda: False
) -> Core:
    """A core of the unsatisfiable conjunction of `parts` (module docstring). `expired()`
    stops the extraction early (the run's deadline): the core found so far is returned, not
    proven minimal."""
    parts = tuple(parts)
    members, needed, _ = _shrink(list(range(len(parts))), lambda kept: decide(And(*(parts[i] for i in kept))), expired)
    return Core(parts, tuple(members), tuple(needed.get(m) for m in members))


def fine_core(core: Core, decide: Callable[[Formula], Result], expired: Callable[[], bool] = lambda: False) -> Core:
    """The core with as many subformula occurrences of its members as possible weakened to a
    constant (`1` where the occurrence is positive, `0` where negative: `ltlwit.logic.polarity`)
    while their conjunction stays unsatisfiable, as BLACK's `-c` does: it shows which parts of
    the conflicting requirements matter.

    Top-down, one level of the members' trees at a time, by the same deletion as for the
    conjuncts: an occurrence that cannot be weakened stays and its children are tried next (a
    weakened one takes its subtree with it). Weakening more only weakens the conjunction, so a
    witness that shows an occurrence needed stays valid as later ones are weakened: each kept
    occurrence ends with its proof, as each member does. Occurrences under `<->`/`xor` have no
    weakening constant and stay."""
    members = core.formulas
    trees = [list(m.walk()) for m in members]
    signs = [polarities(m) for m in members]

    def below(k: int, position: int) -> list[tuple[int, int]]:
        return [
            (k, c)
            for c in child_positions(trees[k][position], position)
            if not trees[k][c].is_constant and signs[k][c] != 0
        ]

    def weakened(occurrences: Iterable[tuple[int, int]]) -> tuple[Formula, ...]:
        by_member: dict[int, dict[int, Formula]] = {}
        for k, position in occurrences:
            constant = weakening(signs[k][position])
            if constant is not None:  # none under `<->`/`xor`, whose occurrences are not offered
                by_member.setdefault(k, {})[position] = constant
        return tuple(replace_many(m, by_member.get(k, {})) for k, m in enumerate(members))

    replaced: set[tuple[int, int]] = set()
    proofs: dict[tuple[int, int], Witness | None] = {}
    frontier = [o for k in range(len(members)) for o in below(k, 0)]
    while frontier:
        level = frontier
        kept, needed, complete = _shrink(
            level, lambda keep: decide(And(*weakened(replaced | (set(level) - set(keep))))), expired
        )
        replaced |= set(level) - set(kept)
        proofs.update((o, needed.get(o)) for o in kept)
        frontier = [c for o in kept for c in below(*o)]
        if not complete:  # the deadline: what lies below stays, unproven
            break
    moved = [_positions_after(trees[k], {p for j, p in replaced if j == k}) for k in range(len(members))]
    return replace(
        core,
        fine=weakened(replaced),
        fine_witnesses=tuple(((k, moved[k][p]), w) for (k, p), w in proofs.items()),
        fine_complete=not frontier,
    )


def _positions_after(nodes: list[Formula], replaced: set[int]) -> dict[int, int]:
    """Where each node of a tree (its nodes in Polish order) that stays is once the subtrees
    at `replaced` are each one constant: their positions in the weakened formula."""
    moved, shift, position = {}, 0, 0
    while position < len(nodes):
        moved[position] = position - shift
        if position in replaced:
            shift += nodes[position].size - 1
            position += nodes[position].size
        else:
            position += 1
    return moved


T = TypeVar("T")


def _shrink(
    candidates: list[T], ask: Callable[[list[T]], Result], expired: Callable[[], bool]
) -> tuple[list[T], dict[T, Witness], bool]:
    """Deletion in halving chunks (module docstring): the candidates that stay, where
    `ask(kept)` answers the question with only `kept` of the candidates (unsatisfiable: the
    others may go); the witness that shows each one needed; False when `expired()` stopped it."""
    members = list(candidates)
    needed: dict[T, Witness] = {}
    chunk = max(1, len(members) // 2)
    while True:
        k = 0
        while k < len(members):
            if expired():
                return members, needed, False
            dropped = members[k : k + chunk]
            rest = members[:k] + members[k + chunk :]
            answer = ask(rest)
            if isinstance(answer, Unsat):
                members = rest
            else:
                if isinstance(answer, Sat) and chunk == 1:
                    needed[dropped[0]] = answer.witness
                k += chunk
        if chunk == 1:
            return members, needed, True
        chunk = max(1, chunk // 2)


@dataclass(frozen=True)
class Conflicts:
    """Every way a set of conjuncts conflicts (`all_conflicts`): its minimal unsatisfiable
    subsets (each a minimal core: positions among the parts) and its minimal correction sets
    (the positions whose removal leaves a satisfiable rest, none of them needed for that), both
    in the order found; `complete` when the enumeration ended before the deadline, so that there
    are no others."""

    cores: tuple[tuple[int, ...], ...]
    corrections: tuple[tuple[int, ...], ...]
    complete: bool


def all_conflicts(
    parts: Sequence[Formula], decide: Callable[[Formula], Result], expired: Callable[[], bool] = lambda: False
) -> Conflicts:
    """MARCO (Liffiton et al., 2016): a SAT solver over one selector per part holds the subsets
    not yet explored; a seed taken from it, as large as it allows, is asked of the engine: a
    satisfiable one grows to a maximal satisfiable subset, whose complement is a minimal
    correction set, and every subset of it is explored; an unsatisfiable one shrinks to a minimal
    core (`unsat_core`'s deletion), and every superset of it is explored. When the map has no
    seed left, every minimal core and correction set has been found. An `Unknown` answer (the
    budget) ends the enumeration as incomplete."""
    from pysat.solvers import Solver

    from ltlwit.logic.ltl.encoding.xnf import SOLVER

    n = len(parts)
    cores: list[tuple[int, ...]] = []
    corrections: list[tuple[int, ...]] = []

    def ask(kept: Iterable[int]) -> Result:
        return decide(And(*(parts[i] for i in kept)))

    with Solver(name=SOLVER) as unexplored:
        unexplored.set_phases(list(range(1, n + 1)))  # seeds as large as the map allows
        while unexplored.solve():
            if expired():
                return Conflicts(tuple(cores), tuple(corrections), False)
            seed = [i for i in range(n) if unexplored.get_model()[i] > 0]
            answer = ask(seed)
            if isinstance(answer, Sat):
                for i in range(n):
                    if i not in seed:
                        if expired():
                            return Conflicts(tuple(cores), tuple(corrections), False)
                        grown = ask(seed + [i])
                        if isinstance(grown, Sat):
                            seed.append(i)
                        elif not isinstance(grown, Unsat):
                            return Conflicts(tuple(cores), tuple(corrections), False)
                correction = tuple(i for i in range(n) if i not in seed)
                if not correction:
                    break  # all of them together are satisfiable: nothing conflicts
                corrections.append(correction)
                unexplored.add_clause([i + 1 for i in correction])
            elif isinstance(answer, Unsat):
                members, needed, finished = _shrink(seed, ask, expired)
                if not finished or set(needed) != set(members):
                    return Conflicts(tuple(cores), tuple(corrections), False)
                cores.append(tuple(members))
                unexplored.add_clause([-(i + 1) for i in members])
            else:
                return Conflicts(tuple(cores), tuple(corrections), False)
    return Conflicts(tuple(cores), tuple(corrections), True)
