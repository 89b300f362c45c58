"""One reading of the names of a set of formulas: the sorts every question about a spec file shares.

A formula alone may read a name otherwise than the formulas beside it do: `G(k >= 0.0)` makes k
Real, `F(2 * k = m + 1)` alone leaves it Int, and asked alone and together the second would be
about two different variables (alone unsatisfiable over Int, together satisfiable over Real: a
set satisfiable while one of its members is not). So a file's formulas are read once, together
(`read_together`): every variable's sort and every uninterpreted function's signature is inferred
from all of them, as `sorts.resolve` infers them for one formula, and then declared for each, so
that each formula alone, their conjunction, and every question built from them (cores,
scenarios, vacuity, redundancy) read each name the same way.

Formulas that cannot be read with the others are set apart, each with its problem: a clash
(`m` an enumeration in one, a number in another) belongs to every formula that uses the name
(or, where no one name is to blame, to every formula of a smallest set that clashes), named to
each other (`Problem.partners`); a name whose sort nothing tells
(no declaration, no evidence in any formula, no domain) belongs to each formula that uses it;
any other problem (a division by the constant 0) to the formula alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ltlwit.logic.formula import And, Formula, postorder
from ltlwit.logic.theory.sorts import (
    BOOL,
    BUILTINS,
    REAL,
    Declarations,
    Signature,
    SortError,
    UnknownSort,
    boolean_comparisons,
    resolve,
)


@dataclass(frozen=True)
class Problem:
    """Why a formula cannot be read with the others: `error`, met when it is read with the
    formulas at `partners` (none: it cannot be read at all)."""

    error: SortError
    partners: tuple[int, ...] = ()


@dataclass(frozen=True)
class Reading:
    """The declarations every formula of the set is read with (what was declared, and every
    name's inferred sort), and the formulas set apart, by position."""

    declarations: Declarations | None
    problems: dict[int, Problem] = field(default_factory=dict)


def read_together(formulas: Sequence[Formula | None], declared: Declarations | None = None) -> Reading:
    """The one reading of `formulas` (module docstring); None entries (specs that did not
    parse) are ignored. A set without data keeps `declared` as it is."""
    present = {i: f for i, f in enumerate(formulas) if f is not None}
    if not any(f.data for f in present.values()):
        return Reading(declared)
    used = {i: names(f) for i, f in present.items()}
    problems: dict[int, Problem] = {}

    def live() -> list[int]:
        return [i for i in present if i not in problems]

    # Clashes first, read with a stand-in domain: a sort that nothing tells is no clash, and
    # `resolve` stops at the first problem it meets, which must not hide one.
    given = declared or Declarations()
    stand_in = Declarations(given.entries, given.domain or REAL, given.functions)
    while True:
        error = _error(formulas, live(), stand_in)
        if error is None:
            break
        culprits = _smallest(formulas, live(), stand_in, used, error)
        if len(culprits) > 1 and error.name is not None:  # every place the clashing name is used
            culprits = sorted(set(culprits) | {i for i in live() if error.name in used[i]})
        for i in culprits:
            problems[i] = Problem(error, tuple(j for j in culprits if j != i))
    while True:
        try:
            signature, conjunction = _resolve(formulas, live(), declared)
            break
        except UnknownSort as exc:
            users = [i for i in live() if exc.name in used[i]] or live()[:1]
            for i in users:
                problems[i] = Problem(exc)
        except SortError as exc:  # not expected once the clashes are apart; never a crash
            for i in live():
                problems[i] = Problem(exc)
            return Reading(declared, problems)
    return Reading(_declared(declared, signature, conjunction), problems)


def _resolve(
    formulas: Sequence[Formula | None], which: list[int], declared: Declarations | None
) -> tuple[Signature, Formula]:
    """The signature of the formulas at `which` read together, and their conjunction."""
    conjunction = And(*(f for f in (formulas[i] for i in which) if f is not None))
    return resolve(boolean_comparisons(conjunction, declared), declared), conjunction


def _error(formulas: Sequence[Formula | None], which: list[int], declared: Declarations) -> SortError | None:
    """The problem reading the formulas at `which` together, or None."""
    if not which:
        return None
    try:
        _resolve(formulas, which, declared)
    except SortError as exc:
        return exc
    return None


def _smallest(
    formulas: Sequence[Formula | None],
    which: list[int],
    declared: Declarations,
    used: dict[int, frozenset[str]],
    error: SortError,
) -> list[int]:
    """A smallest subset of `which` that cannot be read together (removing any one of its
    members mends it), looked for first among the formulas that use the name `error` is
    about; one formula alone when it cannot be read by itself."""
    users = [i for i in which if error.name is not None and error.name in used[i]]
    chosen = users if users and _error(formulas, users, declared) is not None else list(which)
    for i in reversed(list(chosen)):
        rest = [j for j in chosen if j != i]
        if rest and _error(formulas, rest, declared) is not None:
            chosen = rest
    return chosen


def _declared(declared: Declarations | None, signature: Signature, conjunction: Formula) -> Declarations:
    """`declared`, with the sort of every variable and the signature of every uninterpreted
    function the reading inferred, and Bool for each name compared as nuXmv compares
    propositions (`p = q`, p a proposition in another formula): a formula that compares them
    alone must read them as propositions too."""
    out = declared or Declarations()
    compared = {
        c.symbol
        for node in postorder(conjunction)
        if node.term is not None and node.term.op in ("=", "!=")
        for c in node.term.children
        if c.op == "var"
    }
    booleans = sorted(n for n in compared if n not in signature.variables and n not in signature.constants)
    inferred = Declarations(
        tuple(signature.variables.items()) + tuple((name, BOOL) for name in booleans),
        None,
        tuple(sorted(signature.functions.items(), key=lambda kv: kv[0])),
    )
    return out.merged(inferred)


def names(formula: Formula) -> frozenset[str]:
    """Every name a formula uses: its propositions, its data variables and its functions."""
    out = set(formula.aps())
    for node in postorder(formula):
        if node.term is not None:  # an atom
            for term in node.term.walk():
                if term.op in ("var", "call", "pred") and term.symbol not in BUILTINS:
                    out.add(term.symbol)
    return frozenset(out)


def usage(formula: Formula, name: str) -> str | None:
    """How a formula uses a name, in words (`applied to arguments`, `a variable`, `a
    proposition`), for a clash's message at each place; None where it does not use it."""
    for node in postorder(formula):
        if node.term is not None:  # an atom
            for term in node.term.walk():
                if term.name == name and term.op in ("call", "pred"):
                    return "applied to arguments"
                if term.name == name and term.op == "var":
                    return "a variable"
    return "a proposition" if name in formula.aps() else None


def explained(problem: Problem, formulas: Sequence[Formula | None], k: int, cited: Sequence[str]) -> str:
    """The formula at `k`'s problem in words, naming the formulas it is read with (`cited`, by
    position): where they use the clashing name otherwise than it does (a variable here, applied
    to arguments there), those, saying how; else all of them."""
    name = problem.error.name
    mine = formulas[k]
    how = usage(mine, name) if name is not None and mine is not None else None
    others: dict[str, list[str]] = {}
    for j in problem.partners:
        theirs = formulas[j]
        their_use = usage(theirs, name) if how is not None and name is not None and theirs is not None else None
        if their_use is not None and their_use != how:
            others.setdefault(their_use, []).append(cited[j])
    if others:
        return f"{name} is {how} here, but " + "; ".join(f"{use} in {', '.join(c)}" for use, c in others.items())
    partners = ", ".join(cited[j] for j in problem.partners)
    return str(problem.error) + (f" (read with {partners})" if partners else "")


def clash(formula: Formula, declared: Declarations | None) -> str | None:
    """Why the names of a formula cannot take one sort each as declared, or None."""
    if not formula.data:
        return None
    try:
        resolve(boolean_comparisons(formula, declared), declared)
    except SortError as exc:
        return str(exc)
    return None


def typed_together(
    formulas: Sequence[Formula], declared: Declarations | None
) -> tuple[list[int], list[tuple[int, str]]]:
    """The positions of the formulas whose names take one meaning together (each read alone
    may: `yout` a variable in one FRET component and a function in another), and the others
    with the reason: all of them where they do, else, in order, each one that does not with
    those kept before it is set apart."""
    if clash(And(*formulas), declared) is None:
        return list(range(len(formulas))), []
    together: list[int] = []
    apart: list[tuple[int, str]] = []
    for i, formula in enumerate(formulas):
        why = clash(And(*(formulas[j] for j in together), formula), declared)
        if why is None:
            together.append(i)
        else:
            apart.append((i, why))
    return together, apart


def merged(declared: Declarations | None, own: Declarations | None) -> Declarations | None:
    """`declared` with a formula's `own` declarations added (SortError where they clash)."""
    return declared.merged(own) if declared is not None else own
