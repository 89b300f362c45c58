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
  A `preReal(init, e)` needs no guard (it reads `init` at the first instant and e at an
  instant that exists otherwise): the SMT encoding decides it at the instant it is read, as
  the evaluator does. Its propositions stand for the atoms (`atoms`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ltlwit.logic.formula import ATOM, TRUE, And, Formula, Not, Or, ap, transform
from ltlwit.logic.theory.sorts import Signature
from ltlwit.logic.theory.terms import Term, offsets


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
        if node.op == ATOM:
            return ap(name(node.name))  # type: ignore[arg-type]
        return Formula(node.op, kids, node.name) if kids else node

    def solve_rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op == ATOM:
            return _guarded(node.name, name, atoms, finite)  # type: ignore[arg-type]
        return Formula(node.op, kids, node.name) if kids else node

    plain = transform(formula, plain_rule, skip=lambda node: not node.data)
    written = dict(names)
    solving = transform(formula, solve_rule, skip=lambda node: not node.data)
    return Abstraction(solving, plain, written, atoms, signature, finite)


def _guarded(a: Term, name, atoms: dict[str, Term], finite: bool) -> Formula:
    strong_ahead = strong_back = weak_ahead = weak_back = 0
    for _, d, strong in offsets(a):
        if strong:
            strong_ahead, strong_back = max(strong_ahead, d), max(strong_back, -d)
        else:
            weak_ahead, weak_back = max(weak_ahead, d), max(weak_back, -d)
    n = name(a)
    atoms[n] = a
    guards = []
    if finite and strong_ahead:
        guards.append(_chain("X", strong_ahead))
    if strong_back:
        guards.append(_chain("Y", strong_back))
    escapes = []
    if finite and weak_ahead > strong_ahead:
        escapes.append(Not(_chain("X", weak_ahead)))
    if weak_back > strong_back:
        escapes.append(Not(_chain("Y", weak_back)))
    return And(*guards, Or(*escapes, ap(n))) if guards or escapes else ap(n)


def _chain(op: str, depth: int) -> Formula:
    """`op^depth 1`: the instant `depth` steps ahead (X) or back (Y) exists."""
    f = TRUE
    for _ in range(depth):
        f = Formula(op, (f,))
    return f
