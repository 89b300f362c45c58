"""Rewriting into a model's core operators keeps the meaning (checked against the textbook
evaluator on random words, not against the engine) and uses only the core operators."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import prop_value, satisfies
from strategies import formulas

from ltlwit.logic.formula import Formula, ap
from ltlwit.logic.syntax import parse_formula
from ltlwit.pipeline.coreform import CORE_OPS, to_core


def only_core(f: Formula, task: str) -> bool:
    return all(n.op == "ap" or n.op in CORE_OPS[task] for n in f.walk())


def random_word(names: tuple[str, ...], rng: random.Random) -> tuple[list[dict], list[dict]]:
    def letter() -> dict:
        return {n: rng.random() < 0.5 for n in names}

    return [letter() for _ in range(rng.randint(0, 3))], [letter() for _ in range(rng.randint(1, 3))]


@settings(max_examples=150, deadline=None)
@given(formulas(aps=("a", "b", "c"), max_leaves=8), st.integers(0, 2**32))
def test_ltl_core_form_is_equivalent_on_random_words(f: Formula, seed: int) -> None:
    core = to_core(f, "ltl")
    assert only_core(core, "ltl")
    assert set(core.aps()) == set(f.aps())  # no AP lost: the renaming covers the model's answer
    rng = random.Random(seed)
    for _ in range(12):
        prefix, cycle = random_word(("a", "b", "c"), rng)
        assert satisfies(core, prefix, cycle) == satisfies(f, prefix, cycle)


@settings(max_examples=150, deadline=None)
@given(formulas(aps=("a", "b", "c", "d"), max_leaves=10, temporal=False))
def test_prop_core_form_is_equivalent_on_every_valuation(f: Formula) -> None:
    core = to_core(f, "prop")
    assert only_core(core, "prop") and set(core.aps()) == set(f.aps())
    for bits in itertools.product((False, True), repeat=4):
        letter = dict(zip("abcd", bits))
        assert prop_value(core, letter) == prop_value(f, letter)


def test_each_rewrite_spelled_out() -> None:
    cases = {
        "F a": "1 U a",
        "G a": "!(1 U !a)",
        "a | b": "!(!a & !b)",
        "a -> b": "!(a & !b)",
        "a R b": "!(!a U !b)",
        "a M b": "b U (a & b)",
        "!!X a": "Xa",
        "a W b": "!(!(a U b) & (1 U !a))",
    }
    for text, expected in cases.items():
        assert to_core(parse_formula(text), "ltl") is parse_formula(expected), text
    assert to_core(parse_formula("a -> (b | !!c)"), "prop") is parse_formula("!a | (b | c)")


def test_deep_formulas_are_rewritten_without_recursion() -> None:
    f = ap("a")
    for i in range(20_000):
        f = Formula("G" if i % 2 else "F", (f,))
    core = to_core(f, "ltl")
    assert core.size > f.size and only_core(core, "ltl")
