"""Spot's trivial identities (`ltlwit.logic.trivial`) and the data generator's formulas that
none of them rewrites (`RandomFormulas.normal_formula`)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ltl_reference import satisfies
from strategies import formulas

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trivial import rewrites_root, trivial
from ltlwit.train.generate import PRIORITIES, RandomFormulas

APS = ("a", "b", "c")
letters = st.fixed_dictionaries({n: st.booleans() for n in APS})
lassos = st.tuples(st.lists(letters, max_size=3), st.lists(letters, min_size=1, max_size=3))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("!!a", "a"),
        ("!!!a", "!a"),
        ("!1", "0"),
        ("X 1", "1"),
        ("X 0", "X 0"),
        ("F 0", "0"),
        ("GGa", "Ga"),
        ("a & 1", "a"),
        ("0 & a", "0"),
        ("a & a", "a"),
        ("a & !a", "a & !a"),
        ("a | 1", "1"),
        ("0 | a", "a"),
        ("1 -> a", "a"),
        ("a -> 0", "!a"),
        ("!a -> 0", "a"),
        ("a -> a", "1"),
        ("0 -> a", "1"),
        ("a <-> 1", "a"),
        ("0 <-> a", "!a"),
        ("a <-> a", "1"),
        ("a xor 1", "!a"),
        ("a xor a", "0"),
        ("a U 1", "1"),
        ("a U 0", "0"),
        ("0 U a", "a"),
        ("1 U a", "1 U a"),
        ("a U a", "a"),
        ("a R 1", "1"),
        ("1 R a", "a"),
        ("0 R a", "0 R a"),
        ("a W 1", "1"),
        ("0 W a", "a"),
        ("1 W a", "1"),
        ("a M 0", "0"),
        ("1 M a", "a"),
        ("0 M a", "0"),
        ("a M a", "a"),
        ("(b & !!1) U (X(c | 0) & a)", "b U (Xc & a)"),
        ("X(a & 1) xor X a", "0"),
    ],
)
def test_identities(text: str, expected: str) -> None:
    f = parse_formula(text, "spot")
    assert trivial(f) == parse_formula(expected, "spot")
    if all(trivial(c) == c for c in f.children):
        assert rewrites_root(f) == (trivial(f) != f)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(APS, max_leaves=10), lassos)
def test_equivalent_never_larger_and_a_fixpoint(f: Formula, word) -> None:
    g = trivial(f)
    assert satisfies(g, *word) == satisfies(f, *word)  # the independent reference evaluator
    assert g.size <= f.size and trivial(g) == g
    assert not any(rewrites_root(node) for node in g.walk())


@pytest.mark.parametrize("alphabet", sorted(PRIORITIES))
def test_generated_formulas_have_the_size_asked_and_no_trivial_redex(alphabet: str) -> None:
    gen, rng = RandomFormulas(4, alphabet), random.Random(3)
    for n in [1, 2, 3, 5, 8, 13, 21, 35, 60] * 5:
        if not gen.feasible(n):
            continue
        f = gen.normal_formula(n, rng)
        assert f is not None and f.size == n and trivial(f) == f
        assert set(f.aps()) <= set("abcd")


def test_what_no_redex_free_formula_exists_for_is_none() -> None:
    constants_only = RandomFormulas(0, {"1": 1, "0": 1, "!": 1})  # every `!c` is rewritten
    assert constants_only.normal_formula(1, random.Random(0)) is not None
    assert constants_only.normal_formula(2, random.Random(0)) is None
    with pytest.raises(ValueError, match="sizes up to"):
        RandomFormulas(2).normal_formula(10_000, random.Random(0))
