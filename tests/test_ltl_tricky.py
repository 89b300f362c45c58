"""Named tricky cases for the engine, each checked against the reference evaluator."""

from __future__ import annotations

import random

import pytest
from ltl_reference import random_completions, satisfies

from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl import holds, solve
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_formula, parse_trace, print_trace


def _f(text: str) -> Formula:
    return parse_formula(text, "spot")


def _witness(text: str):
    f = _f(text)
    result = solve(f)
    assert isinstance(result, Sat), (text, result)
    trace = result.witness
    assert holds(f, trace)
    for prefix, cycle in random_completions(trace, f.aps(), random.Random(3), count=30):
        assert satisfies(f, prefix, cycle), (text, print_trace(trace), prefix, cycle)
    return trace


def _steps(trace) -> int:
    return len(trace.prefix) + len(trace.cycle)


def test_gfa_and_gf_not_a_needs_a_two_letter_cycle() -> None:
    trace = _witness("GFa & GF!a")
    assert not trace.prefix and len(trace.cycle) == 2


def test_fga_or_fg_not_a_fails_on_cycle_true() -> None:
    # every word of cycle{1} is not a witness: (a !a)^ω satisfies neither disjunct
    assert not holds(_f("FGa | FG!a"), parse_trace("cycle{1}"))
    assert holds(_f("FGa | FG!a"), parse_trace("cycle{a}"))
    assert _steps(_witness("FGa | FG!a")) == 1


def test_alternation() -> None:
    trace = _witness("G(a <-> X!a)")
    assert _steps(trace) == 2
    assert not holds(_f("G(a <-> X!a)"), parse_trace("cycle{a}"))
    assert not holds(_f("G(a <-> X!a)"), parse_trace("a; cycle{!a}"))


def test_gfa_and_fg_not_a_is_unsat() -> None:
    assert isinstance(solve(_f("GFa & FG!a")), Unsat)


def test_nested_until() -> None:
    assert print_trace(_witness("(a U b) U c")) == "cycle{c}"
    assert not holds(_f("(a U b) U c"), parse_trace("a; cycle{b}"))
    assert holds(_f("(a U b) U c"), parse_trace("a; b; cycle{c}"))
    assert not holds(_f("(a U b) U c"), parse_trace("a; 1; cycle{c}"))


def test_false_release() -> None:
    # 0 R b = G b
    assert print_trace(_witness("0 R b")) == "cycle{b}"
    assert not holds(_f("0 R b"), parse_trace("b; cycle{b; 1}"))


def test_next_chain() -> None:
    assert print_trace(_witness("XXX c")) == "cycle{c}"
    assert holds(_f("XXX c"), parse_trace("1; 1; 1; c; cycle{1}"))
    assert not holds(_f("XXX c"), parse_trace("1; 1; c; cycle{1}"))


def test_fga_with_early_not_a() -> None:
    trace = _witness("FGa & XX!a")
    assert print_trace(trace) == "1; 1; !a; cycle{a}"


def test_unsatisfiable_step_never_holds() -> None:
    assert not holds(_f("1"), parse_trace("a & !a; cycle{1}"))
    assert not holds(_f("a | !a"), parse_trace("cycle{b; a & !a}"))
    assert not holds(_f("G a"), parse_trace("cycle{0}"))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("G(req -> F grant)", ("cycle{!req}", "cycle{grant}")),
        ("Fa", ("cycle{a}",)),
        ("a U b", ("cycle{b}",)),
        ("a & X!a", ("a; cycle{!a}",)),
    ],
)
def test_witnesses_are_minimal(text: str, expected: tuple[str, ...]) -> None:
    assert print_trace(_witness(text)) in expected


@pytest.mark.parametrize(
    "text",
    ["0", "X(0)", "a & !a", "G a & F !a", "GF a & FG !a", "(a U b) & G!b", "F(a & X!a) & G(a -> Xa)", "(a <-> !a) U 0"],
)
def test_unsat(text: str) -> None:
    assert isinstance(solve(_f(text)), Unsat)


@pytest.mark.parametrize(
    "text",
    [
        "(a W b) & G!b",
        "a M b",
        "!(a M b) & Fa",
        "(a xor Xa) & G(a <-> XXa)",
        "(F a <-> G b) & X!b",
        "G(a xor Fb) & F!b",
        "!(GFa -> FGb)",
    ],
)
def test_native_operators(text: str) -> None:
    _witness(text)
