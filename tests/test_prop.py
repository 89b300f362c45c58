"""Propositional solving against Spot's golden verdicts and a brute-force reference."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from prop_reference import brute_entails, brute_minimal, brute_sat

from ltlwit.logic import prop
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import FALSE, TRUE, And, Not, Or, ap, binop, make, unop
from ltlwit.logic.prop import entails, solve_prop, to_aiger
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_assignment, parse_formula

GOLDEN = [json.loads(line) for line in (Path(__file__).parent / "data" / "prop-sat.jsonl").open()]


def test_golden_verdicts_and_witnesses() -> None:
    """Every verdict equals Spot's; every witness is a subset-minimal entailing assignment by
    brute force; tautologies (Spot: sat, no assignment) get the empty assignment."""
    wrong: list[str] = []
    for row in GOLDEN:
        formula = parse_formula(row["formula"], "spot")
        result = solve_prop(formula)
        if isinstance(result, Sat) != row["sat"]:
            wrong.append(f"verdict {row['formula']}")
            continue
        if isinstance(result, Unsat):
            assert result.proof == "sat-solver"
            continue
        witness = result.witness
        if not brute_minimal(witness, formula):
            wrong.append(f"witness {witness} of {row['formula']}")
        if row["assignment"] is None and witness.values:
            wrong.append(f"tautology {row['formula']} answered with {witness}")
        if row["assignment"] is not None:
            # Spot's label is minimal too: same size class, and it must entail by our check.
            assert entails(parse_assignment(row["assignment"]), formula), row
    assert not wrong, wrong[:10]
    assert len(GOLDEN) == 2000


def test_golden_has_all_kinds() -> None:
    kinds = {(row["sat"], row["assignment"] is None) for row in GOLDEN}
    assert kinds == {(True, False), (True, True), (False, True)}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a", {"a": True}),
        ("!a", {"a": False}),
        ("1", {}),
        ("a | !a", {}),
        ("a xor !a", {}),
        ("(a & 0) | b", {"b": True}),  # `a` is folded away: it cannot matter
        ("a <-> a", {}),
    ],
)
def test_small_witnesses(text: str, expected: dict[str, bool]) -> None:
    result = solve_prop(parse_formula(text))
    assert result == Sat(Assignment.of(expected))


@pytest.mark.parametrize("text", ["0", "a & !a", "!(a xor !a)", "(a <-> b) & (a xor b)", "a & (a -> b) & !b"])
def test_unsat(text: str) -> None:
    assert solve_prop(parse_formula(text)) == Unsat("sat-solver")


def test_entails_partial_assignments() -> None:
    f = parse_formula("(a & b) | c")
    assert entails(Assignment.of({"c": True}), f)
    assert entails(Assignment.of({"a": True, "b": True}), f)
    assert not entails(Assignment.of({"a": True}), f)
    assert not entails(Assignment.of({}), f)
    assert entails(Assignment.of({}), parse_formula("a | !a"))
    assert not entails(Assignment.of({"a": True}), parse_formula("a & !a"))
    # An AP that constant folding removed is still a legal (irrelevant) part of an assignment.
    g = parse_formula("(a & 0) | b")
    assert not entails(Assignment.of({"a": True}), g)
    assert entails(Assignment.of({"a": False, "b": True}), g)


def test_foreign_ap_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="names q, z, which the formula does not mention"):
        entails(Assignment.of({"a": True, "z": False, "q": True}), parse_formula("a | b"))
    with pytest.raises(ValueError, match="names z"):
        entails(Assignment.of({"z": True}), parse_formula("a"), backend="aiger")


def test_temporal_formula_is_rejected() -> None:
    with pytest.raises(ValueError, match="temporal"):
        solve_prop(parse_formula("F a"))
    with pytest.raises(ValueError, match="temporal"):
        entails(Assignment.of({"a": True}), parse_formula("a & X a"))


def test_deep_formulas_do_not_recurse() -> None:
    f = ap("a")
    for _ in range(10_001):
        f = Not(f)
    assert solve_prop(f) == Sat(Assignment.of({"a": False}))
    assert solve_prop(f, backend="aiger") == Sat(Assignment.of({"a": False}))
    chain = ap("x0")
    for i in range(1, 10_000):
        chain = make(("xor", "<->", "|", "&")[i % 4], ap(f"x{i % 12}"), chain)
    result = solve_prop(chain)
    assert isinstance(result, Sat)
    assert entails(result.witness, chain)
    # The same through the parser: 10,000 nested parentheses.
    nested = parse_formula("(" * 10_000 + "a & b" + ")" * 10_000)
    assert solve_prop(nested) == Sat(Assignment.of({"a": True, "b": True}))


def test_witnesses_do_not_depend_on_history() -> None:
    """The same formula gets the same witness whatever was solved or checked before (a reused
    SAT solver's saved phases would otherwise steer the model)."""
    rng = random.Random(7)
    formulas = [parse_formula(row["formula"], "spot") for row in GOLDEN[:300]]
    first = [solve_prop(f) for f in formulas]
    for f in formulas:
        for _ in range(4):
            chosen = {name: rng.random() < 0.5 for name in f.aps() if rng.random() < 0.6}
            entails(Assignment.of(chosen), f)
    assert [solve_prop(f) for f in reversed(formulas)] == first[::-1]


def test_cache_eviction_keeps_answers_right() -> None:
    first = Or(And(ap("p"), ap("q")), Not(ap("r")))
    assert entails(Assignment.of({"r": False}), first)
    for i in range(prop.CACHE_SIZE * 2):  # push `first` out of the LRU cache
        solve_prop(And(ap(f"v{i}"), Not(ap(f"w{i}"))))
    assert len(prop._cache) == prop.CACHE_SIZE
    assert entails(Assignment.of({"p": True, "q": True}), first)
    assert not entails(Assignment.of({"p": True}), first)


def test_to_aiger_builds_an_equivalent_circuit() -> None:
    f = binop("->", binop("xor", ap("a"), ap("b")), binop("<->", ap("c"), Or(TRUE, FALSE)))
    expr = to_aiger(f)
    negated = to_aiger(f, negate=True)
    for a in (False, True):
        for b in (False, True):
            for c in (False, True):
                value = brute_entails(Assignment.of({"a": a, "b": b, "c": c}), f)
                assert expr({"a": a, "b": b, "c": c}) == value
                assert negated({"a": a, "b": b, "c": c}) == (not value)
    with pytest.raises(ValueError, match="temporal"):
        to_aiger(unop("G", ap("a")))


def test_brute_force_reference_itself() -> None:
    """The reference must be able to fail, or it proves nothing."""
    f = parse_formula("a & (b | c)")
    assert brute_sat(f) and not brute_sat(parse_formula("a & !a"))
    assert brute_minimal(Assignment.of({"a": True, "b": True}), f)
    assert not brute_minimal(Assignment.of({"a": True, "b": True, "c": True}), f)
    assert not brute_minimal(Assignment.of({"b": True}), f)


def test_the_reference_backend_says_where_to_get_py_aiger(monkeypatch) -> None:
    """py-aiger is a test dependency only: without it the fast path works and the reference
    backend says how to install it."""
    monkeypatch.setitem(sys.modules, "aiger", None)  # `import aiger` raises ImportError
    assert solve_prop(parse_formula("a & !b")) == Sat(Assignment.of({"a": True, "b": False}))
    with pytest.raises(ImportError, match=r"pip install 'ltlwit\[aiger\]'"):
        solve_prop(parse_formula("a"), backend="aiger")
