"""Property tests: both backends agree with brute force on random propositional formulas."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from prop_reference import brute_entails, brute_minimal, brute_sat
from strategies import formulas

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.prop import entails, solve_prop
from ltlwit.logic.result import Sat

PROP = formulas(aps=("a", "b", "c", "d", "e"), max_leaves=14, temporal=False)


@settings(max_examples=200, deadline=None)
@given(PROP)
def test_solve_matches_brute_force(formula: Formula) -> None:
    result = solve_prop(formula)
    assert isinstance(result, Sat) == brute_sat(formula)
    if isinstance(result, Sat):
        assert brute_minimal(result.witness, formula)


@settings(max_examples=60, deadline=None)
@given(PROP)
def test_aiger_backend_matches_brute_force(formula: Formula) -> None:
    result = solve_prop(formula, backend="aiger")
    assert isinstance(result, Sat) == brute_sat(formula)
    if isinstance(result, Sat):
        assert brute_minimal(result.witness, formula)


@settings(max_examples=200, deadline=None)
@given(PROP, st.data())
def test_entails_matches_brute_force(formula: Formula, data: st.DataObject) -> None:
    aps = formula.aps()
    names = data.draw(st.lists(st.sampled_from(aps), unique=True) if aps else st.just([]))
    assignment = Assignment.of({name: data.draw(st.booleans()) for name in names})
    expected = brute_entails(assignment, formula)
    assert entails(assignment, formula) == expected
    assert entails(assignment, formula, backend="aiger") == expected
