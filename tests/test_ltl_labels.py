"""Propositional labels: truth tables and BDDs agree with the reference semantics."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import prop_value
from strategies import formulas

from ltlwit.logic.formula import Formula, Not, ap
from ltlwit.logic.ltl.encoding.labels import MAX_TABLE_APS, Bdds, TruthTables, make_labels

NAMES = ("a", "b", "c", "d")
props = formulas(NAMES, max_leaves=10, temporal=False)
#: one manager per representation for the whole module (a CUDD manager takes ~10 ms to make)
MANAGERS = (TruthTables(NAMES), Bdds(NAMES))
MANY = make_labels([f"p{i}" for i in range(16)])


def _models(L, label) -> set[tuple[bool, ...]]:
    """Valuations (in L.names order) inside a label, by testing each minterm cube."""
    out = set()
    for values in itertools.product((False, True), repeat=len(L.names)):
        cube = L.cube(list(enumerate(values)))
        if cube & label != L.false:
            out.add(values)
    return out


def _reference(f: Formula) -> set[tuple[bool, ...]]:
    return {
        values
        for values in itertools.product((False, True), repeat=len(NAMES))
        if prop_value(f, dict(zip(NAMES, values)))
    }


@settings(max_examples=100, deadline=None)
@given(props)
def test_labels_match_reference(f: Formula) -> None:
    for L in MANAGERS:
        assert _models(L, L.of(f)) == _reference(f)


@settings(max_examples=100, deadline=None)
@given(props)
def test_small_cube_is_a_prime_implicant(f: Formula) -> None:
    for L in MANAGERS:
        label = L.of(f)
        if label == L.false:
            continue
        cube = list(L.small_cube(label))
        assert L.implies(L.cube(cube), label)
        for k in range(len(cube)):
            assert not L.implies(L.cube(cube[:k] + cube[k + 1 :]), label)


def test_minterm_is_a_full_valuation_inside() -> None:
    for L in MANAGERS:
        label = L.of(Not(ap("b"))) & L.var(2)
        lits = L.minterm(label)
        assert sorted(i for i, _ in lits) == [0, 1, 2, 3]
        assert L.implies(L.cube(lits), label)


def test_representation_by_size() -> None:
    assert isinstance(make_labels([f"p{i}" for i in range(MAX_TABLE_APS)]), TruthTables)
    assert isinstance(make_labels([f"p{i}" for i in range(MAX_TABLE_APS + 1)]), Bdds)


def test_to_formula_orders_literals() -> None:
    L = TruthTables(NAMES)
    assert str(L.to_formula([(2, True), (0, False)])) == "!a & c"
    assert str(L.to_formula([])) == "1"


def test_deep_propositional_formula() -> None:
    f = ap("a")
    for _ in range(20001):
        f = Formula("!", (f,))
    L = TruthTables(["a"])
    assert L.of(f) == L.var(0, False)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.booleans()), max_size=6))
def test_cube_over_many_aps(lits) -> None:
    L = MANY
    cube = L.cube(lits)
    consistent = all(v == w for (i, v), (j, w) in itertools.combinations(lits, 2) if i == j)
    assert (cube != L.false) == consistent
