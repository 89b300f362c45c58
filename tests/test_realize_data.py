"""Realizability over data atoms with inputs (`games.theory`): the finite abstraction where
each atom reads one player's values at one instant, its strategies written over the values and
its plays checked on the formula as written; and `monitors.hoisted`, which keeps FRET's
`G(H ...)` invariants from needing monitors."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import lassos, satisfies
from strategies import formulas

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import And, Formula, Not, ap, binop, rebuilt, transform, unop
from ltlwit.logic.ltl import holds
from ltlwit.logic.ltl.games import Realizable, Unrealizable, realize
from ltlwit.logic.ltl.games.monitors import hoisted
from ltlwit.logic.result import Unknown
from ltlwit.logic.syntax import parse_formula as parse
from ltlwit.logic.theory.sorts import Declarations, parse_declaration

INTS = Declarations().declare(*parse_declaration("s:Int")).declare(*parse_declaration("o:Int"))


def decided(text: str, inputs: list[str]) -> object:
    return realize(parse(text), inputs, budget=Budget(seconds=60), declarations=INTS)


def test_strategies_write_values_and_their_plays_are_checked() -> None:
    f = "G((s = 1 -> X(o = 2)) & (s = 2 -> X(o = 1)) & (o = 1 | o = 2))"
    verdict = decided(f, ["s"])
    assert isinstance(verdict, Realizable)
    machine = verdict.controller
    assert machine.reads == ("s",) and machine.writes == ("o",)
    assert {str(t.write) for ts in machine.states for t in ts} <= {"o = 1", "o = 2"}
    assert verdict.play.data and holds(parse(f), verdict.play, declarations=INTS)
    f = "G(s > 3 -> o > s0) & G(s0 = 5) & G(s < 0 -> o < 0) & G(o > 10 -> F b)"
    verdict = decided(f, ["s"])  # o and s0 are the system's (s0 an Int by its 5)
    assert isinstance(verdict, Realizable)
    conflict = "G((s = 1 -> o = 2) & (s = 1 -> o = 1))"
    verdict = decided(conflict, ["s"])
    assert isinstance(verdict, Unrealizable) and verdict.counter_strategy.writes == ("s",)
    assert not holds(parse(conflict), verdict.play, declarations=INTS)  # the environment writes s = 1


def test_atoms_the_abstraction_does_not_read_exactly_are_unknown_saying_why() -> None:
    reason = decided("G(s < o)", ["s"]).reason
    assert "compares an input with an output" in reason and "s < o" in reason
    assert "another instant" in decided("G(next(o) > s)", ["s"]).reason
    assert "finite semantics" in realize(parse("G(s > o)"), ["s"], declarations=INTS, semantics="finite").reason


#: the random formulas' propositions as atoms over data, and as the test's own propositions
ATOMS = {"p1": "s = 1", "p2": "s = 2", "q1": "o = 1", "q2": "o = 2"}


def _over(f: Formula, by: dict[str, Formula]) -> Formula:
    return transform(f, lambda n, kids: by[n.name] if n.op == "ap" and n.name in by else rebuilt(n, kids))


@settings(max_examples=25, deadline=None)
@given(formulas(("p1", "p2", "q1", "q2", "a", "b"), max_leaves=6, constants=False, past=False))
def test_verdicts_agree_with_a_finite_reading(f: Formula) -> None:
    """Over atoms `s = k` (input) and `o = k` (output), the data game's verdict is the verdict
    of the Boolean game the test writes by hand: a proposition per atom, at most one of a
    variable's at a time (both false: another value)."""
    data = _over(f, {p: parse(text) for p, text in ATOMS.items()})
    one = lambda x, y: unop("G", Not(And(ap(x), ap(y))))  # noqa: E731
    finite = binop("->", one("p1", "p2"), And(one("q1", "q2"), f))
    ours = realize(data, ["s", "a"], budget=Budget(seconds=20), declarations=INTS)
    theirs = realize(finite, ["p1", "p2", "a"], budget=Budget(seconds=20))
    if not isinstance(ours, Unknown) and not isinstance(theirs, Unknown):
        assert type(ours) is type(theirs), data


@settings(max_examples=80, deadline=None)
@given(
    formulas(("a", "b"), max_leaves=4, constants=False, past=True),
    formulas(("a", "b"), max_leaves=4, constants=False, past=True),
    st.booleans(),
)
def test_hoisted_invariants_keep_their_traces(f: Formula, g: Formula, guarded: bool) -> None:
    """`G(H f & g)` and `G(H a -> H f & g)` against their hoisted forms on every short lasso,
    by the test's own semantics (`ltl_reference`)."""
    body = And(unop("H", f), g)
    spec = unop("G", binop("->", unop("H", g), body) if guarded else body)
    plain = hoisted(spec)
    assert not any(c.op == "H" and c.children[0] is f for c in _conjuncts_under_g(plain))
    for prefix, cycle in itertools.islice(lassos(2, 2, ("a", "b")), 0, None, 3):
        assert satisfies(spec, prefix, cycle) == satisfies(plain, prefix, cycle)


def _conjuncts_under_g(f: Formula) -> list[Formula]:
    body = f.children[0]
    if body.op == "->":
        body = body.children[1]
    return [body] if body.op != "&" else list(body.children)
