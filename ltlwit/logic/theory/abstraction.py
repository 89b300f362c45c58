"""The Boolean abstraction: a formula over data as an LTL formula over propositions, one per
atom, which the engine's rewriting, step encoding and searches take unchanged; what the atoms
mean stays with the theory (the SMT encoding, the exact evaluator).

Two abstractions of one formula:
- `plain`: each atom replaced by its proposition (`names`). A concrete data trace decides each
  atom at each instant exactly (`evaluate`), and the checker decides `plain` on the result.
- `formula`, for solving: each atom with its boundary made explicit, so that its proposition
  only ever stands for the comparison at instants where the comparison is defined. With `n`
  its strong shifts' farthest reach ahead, `p` behind, and `w`, `v` the weak ones':
  `X^n 1 & Y^p 1 & (!X^w 1 | !Y^v 1 | q)` (BLACK's reading: a strong `next` makes the atom
  false at the last instant, a weak one true; on infinite traces the future guards vanish).
  A `preReal(init, e)` reads `init` at the first instant and e one instant before otherwise, so
  below its `horizon` which reads are made depends on the instant: the guard is written per
  instant there (`Y^j !Y 1`: the instant is j), and the SMT encoding decides each `pre` at the
  instant it is read, as the evaluator does. Its propositions stand for the atoms (`atoms`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ltlwit.logic.formula import FALSE, TRUE, And, Formula, Not, Or, ap, transform
from ltlwit.logic.theory.sorts import Signature
from ltlwit.logic.theory.terms import Term, branch_reads, horizon


@dataclass(frozen=True)
class Abstraction:
    formula: Formula
    plain: Formula
    #: each atom as written -> its proposition in `plain`
    names: dict[Term, str]
    #: each proposition of `formula` standing for an atom -> that atom
    atoms: dict[str, Term]
    signature: Signature
    finite: bool


def abstract(formula: Formula, signature: Signature, finite: bool) -> Abstraction:
    taken = set(formula.aps())
    names: dict[Term, str] = {}
    atoms: dict[str, Term] = {}

    def name(a: Term) -> str:
        found = names.get(a)
        if found is None:
            base = f"[{a}]"
            found, k = base, 0
            while found in taken:
                k += 1
                found = f"{base}#{k}"
            taken.add(found)
            names[a] = found
        return found

    def plain_rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.term is not None:  # an atom
            return ap(name(node.term))
        return Formula(node.op, kids) if kids else node

    def solve_rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.term is not None:  # an atom
            return _guarded(node.term, name, atoms, finite)
        return Formula(node.op, kids) if kids else node

    plain = transform(formula, plain_rule, skip=lambda node: not node.data)
    written = dict(names)
    solving = transform(formula, solve_rule, skip=lambda node: not node.data)
    return Abstraction(solving, plain, written, atoms, signature, finite)


def _guarded(a: Term, name: Callable[[Term], str], atoms: dict[str, Term], finite: bool) -> Formula:
    """The atom's proposition with its boundary made explicit (module docstring). With a `pre`,
    which reads are made depends on where the trace starts, so the guard is written per
    instant below its `horizon` (`Y^j !Y 1`: the instant is j) and once for the rest."""
    n = name(a)
    atoms[n] = a
    q = ap(n)
    last = horizon(a)
    if not last:
        return _guard(branch_reads(a, None), None, q, finite)
    cases = [
        And(_chain("Y", j, Not(Formula("Y", (TRUE,)))), _guard(branch_reads(a, j), j, q, finite)) for j in range(last)
    ]
    return Or(*cases, And(_chain("Y", last, TRUE), _guard(branch_reads(a, None), None, q, finite)))


def _guard(reads: list[tuple[int, bool]], first: int | None, q: Formula, finite: bool) -> Formula:
    """`q` where the reads are all there; false where a strong one is missing, true where only
    weak ones are. `first`: the instant is known (a read before 0 is missing outright), else
    the past's reads are guarded by `Y`."""
    strong_ahead = strong_back = weak_ahead = weak_back = 0
    for d, strong in reads:
        if strong:
            strong_ahead, strong_back = max(strong_ahead, d), max(strong_back, -d)
        else:
            weak_ahead, weak_back = max(weak_ahead, d), max(weak_back, -d)
    guards, escapes = [], []
    if finite and strong_ahead:
        guards.append(_chain("X", strong_ahead, TRUE))
    if first is not None:
        if strong_back > first:
            return FALSE
        if weak_back > first:
            escapes.append(TRUE)
    else:
        if strong_back:
            guards.append(_chain("Y", strong_back, TRUE))
        if weak_back > strong_back:
            escapes.append(Not(_chain("Y", weak_back, TRUE)))
    if finite and weak_ahead > strong_ahead:
        escapes.append(Not(_chain("X", weak_ahead, TRUE)))
    if TRUE in escapes:
        return And(*guards) if guards else TRUE
    return And(*guards, Or(*escapes, q)) if guards or escapes else q


def _chain(op: str, depth: int, f: Formula) -> Formula:
    """`op^depth f` (`op^depth 1`: the instant `depth` steps ahead (X) or back (Y) exists)."""
    for _ in range(depth):
        f = Formula(op, (f,))
    return f
