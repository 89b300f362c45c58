"""nuXmv's `case c1 : e1; c2 : e2; TRUE : e3; esac`, spelled out with the connectives, as the
data parser (`data`) reads it: the value of the first branch whose condition holds.

A case is a formula where its values are (`case c : p; TRUE : q; esac` is
`(c & p) | (!c & q)`), and a term where they are: terms have no if-then-else, so a term case
is carried up to the comparison (or predicate) it is in as its alternatives, each a guard (the
branch's condition, the earlier ones false) with its term, and the comparison becomes their
disjunction: `case c : 1; TRUE : x; esac = y` is `(c & 1 = y) | (!c & x = y)`; arithmetic and
function calls over cases combine the alternatives (`case ... esac + case ... esac` has one per
pair of branches). A case inside a shift (`next(case ... esac)`, FRET's `preReal`) would need
its conditions read at another instant: that is an error naming the shift.

nuXmv reports an error where no condition of a case holds. A case's last condition must
therefore be `TRUE` (as nuXmv's manual writes every case), so that the case has a value at
every instant: ltlwit cannot tell from the text that other conditions always cover every
value, and a case that had none would be false in a comparison and true under its negation,
silently. Branches after a `TRUE` condition are never taken and are left out.
"""

from __future__ import annotations

from itertools import product
from typing import Callable, Generic, Sequence, TypeVar, cast

from ltlwit.logic.formula import TRUE, And, Formula, Not, Or
from ltlwit.logic.theory.terms import Term

#: What a case's alternatives hold: terms, or the atoms built over them (`lift`).
T = TypeVar("T")
R = TypeVar("R")


class Alternatives(tuple[tuple[Formula, T], ...], Generic[T]):
    """A term case as (guard, term) pairs, or what is built over it (guard, atom): exactly one
    guard holds at any instant."""


def branches(kids: Sequence) -> list[tuple[Formula, object]]:
    """A case's (condition, value) branches up to its first `TRUE` condition; ValueError when
    none is `TRUE` (the module docstring says why)."""
    out = []
    for condition, value in zip(kids[::2], kids[1::2]):
        out.append((condition, value))
        if condition is TRUE:
            return out
    raise ValueError("no TRUE branch")


def case_formula(kids: Sequence[Formula]) -> Formula:
    """A Boolean case: `(c1 & e1) | (!c1 & ((c2 & e2) | (!c2 & ...)))`, its last branch's value
    unguarded (its condition is `TRUE`)."""
    taken = [(condition, cast(Formula, value)) for condition, value in branches(kids)]  # (a Boolean case's values)
    body = taken[-1][1]
    for condition, value in reversed(taken[:-1]):
        body = Or(And(condition, value), And(Not(condition), body))
    return body


def case_term(kids: Sequence) -> Alternatives[Term]:
    """A term case's alternatives: branch i's guard is `!c1 & ... & !c(i-1) & ci` (its own
    condition left out when `TRUE`), with the alternatives of a value that is a case itself."""
    out: list[tuple[Formula, Term]] = []
    earlier: Formula = TRUE
    for condition, value in branches(kids):
        guard = earlier if condition is TRUE else _and(earlier, condition)
        if isinstance(value, Alternatives):
            out.extend((_and(guard, inner), term) for inner, term in value)
        else:
            assert isinstance(value, Term)  # read where a term is wanted (`data._typed`)
            out.append((guard, value))
        earlier = _and(earlier, Not(condition))
    return Alternatives(out)


def lift(kids: Sequence[Term | Alternatives[Term]], make: Callable[[tuple[Term, ...]], R]) -> R | Alternatives[R]:
    """`make(kids)` where some kids may be cases: the alternatives of every choice of their
    branches, or `make`'s term where none is a case."""
    terms = tuple(k for k in kids if not isinstance(k, Alternatives))
    if len(terms) == len(kids):
        return make(terms)
    choices = [k if isinstance(k, Alternatives) else ((TRUE, k),) for k in kids]
    out = []
    for picked in product(*choices):
        guard: Formula = TRUE
        for inner, _ in picked:
            guard = _and(guard, inner)
        out.append((guard, make(tuple(term for _, term in picked))))
    return Alternatives(out)


def disjunction(found: Formula | Alternatives[Formula]) -> Formula:
    """A comparison or predicate built over cases (`lift` with an atom-making `make`), as the
    formula it is: the disjunction of its guarded atoms."""
    if not isinstance(found, Alternatives):
        return found
    return Or(*(_and(guard, atom) for guard, atom in found))


def _and(a: Formula, b: Formula) -> Formula:
    return b if a is TRUE else a if b is TRUE else And(a, b)
