"""Canonical renaming into slots, permutations, and mapping witnesses back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import assignments, formulas, traces, weird_names

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming, slot_name
from ltlwit.logic.syntax import parse_formula, parse_trace


def spot(text: str) -> Formula:
    return parse_formula(text, "spot")


def test_slot_names():
    assert [slot_name(i) for i in (0, 1, 25, 26, 27, 100)] == ["a", "b", "z", "p26", "p27", "p100"]
    with pytest.raises(ValueError):
        slot_name(-1)


def test_canonical_renaming_numbers_aps_by_first_appearance_in_polish_order():
    f = spot("G(req -> F grant) & X req U busy")
    r = Renaming.canonical(f)
    assert r.slots == ("req", "grant", "busy")
    assert r.apply(f) is spot("G(a -> F b) & X a U c")
    assert r.invert_trace(parse_trace("a & !c; cycle{b}")) == parse_trace("req & !busy; cycle{grant}")
    assert r.invert_assignment(Assignment.of({"a": True, "b": False})) == Assignment.of({"req": True, "grant": False})
    assert r.apply_assignment(Assignment.of({"busy": True})) == Assignment.of({"c": True})


def test_canonical_renaming_keeps_names_that_collide_with_slots_apart():
    f = spot("b & a & p26")
    r = Renaming.canonical(f)
    assert r.apply(f) is spot("a & b & c")
    assert r.inverse().apply(r.apply(f)) is f


def test_more_than_26_aps_use_numbered_slots():
    names = [f"x{i}" for i in range(30)]
    f = parse_formula(" & ".join(names), "spot")
    assert Renaming.canonical(f).apply(f).aps() == tuple(slot_name(i) for i in range(30))


def test_permutations_must_be_bijective():
    swap = Renaming.permutation({"a": "b", "b": "a"})
    assert swap.apply(spot("a U !b")) is spot("b U !a")
    assert Renaming.permutation([("a", "c")]).apply(spot("X a")) is spot("X c")
    with pytest.raises(ValueError, match="bijection"):
        Renaming.permutation({"a": "c", "b": "c"})
    with pytest.raises(ValueError):
        Renaming.permutation([("a", "b"), ("a", "c")])
    with pytest.raises(ValueError):
        Renaming.permutation({"a": ""})


def test_names_outside_the_renaming_are_value_errors_not_key_errors():
    r = Renaming.canonical(spot("req U grant"))
    with pytest.raises(ValueError, match="'c'"):
        r.invert_trace(parse_trace("a; cycle{c}"))
    with pytest.raises(ValueError, match="'z'"):
        r.invert_assignment(Assignment.of({"z": True}))
    with pytest.raises(ValueError, match="'other'"):
        r.apply(spot("req & other"))


@settings(max_examples=150, deadline=None)
@given(formulas(aps=weird_names(), max_leaves=12))
def test_canonical_renaming_round_trips_and_never_merges(f: Formula):
    r = Renaming.canonical(f)
    g = r.apply(f)
    assert g.aps() == tuple(slot_name(i) for i in range(len(f.aps())))
    assert g.size == f.size
    assert r.inverse().apply(g) is f


@settings(max_examples=100, deadline=None)
@given(st.permutations("abcde"), traces(aps="abcde"), assignments(aps="abcde"))
def test_permutation_round_trips_on_traces_and_assignments(perm, t, a):
    r = Renaming.permutation(dict(zip("abcde", perm)))
    assert r.invert_trace(r.apply_trace(t)) == t
    assert r.invert_assignment(r.apply_assignment(a)) == a
    assert len(r.apply_assignment(a).values) == len(a.values)
