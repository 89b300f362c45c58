"""Lasso traces (Spot word syntax and DeepLTL's) and partial assignments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies import assignments, traces, weird_names

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import TRUE, ap
from ltlwit.logic.syntax import (
    ParseError,
    parse_assignment,
    parse_formula,
    parse_trace,
    print_assignment,
    print_trace,
)
from ltlwit.logic.trace import Trace


def spot(text: str):
    return parse_formula(text, "spot")


def test_spot_and_deepltl_traces_read_the_same():
    expected = Trace((spot("a & !b"), TRUE), (spot("c"),))
    for text in ["a & !b; 1; cycle{c}", "a&!b;1;cycle{c}", "  a & !b ;1;  cycle { c } ", "&a!b;1;{c}"]:
        assert parse_trace(text) == expected, text
    assert parse_trace("a & !b; 1; cycle{c}", "spot") == expected
    assert parse_trace("&a!b;1;{c}", "polish") == expected
    assert print_trace(expected, "spot") == "a & !b; 1; cycle{c}"
    assert print_trace(expected, "polish") == "&a!b;1;{c}"


def test_trace_steps_may_be_any_propositional_formula():
    t = parse_trace("a | b -> c; a xor b; cycle{a; !a <-> b}")
    assert t.prefix == (spot("a | b -> c"), spot("a xor b"))
    assert t.cycle == (ap("a"), spot("!a <-> b"))
    assert parse_trace("cycle{a}") == Trace((), (ap("a"),))
    assert parse_trace("{a}") == Trace((), (ap("a"),))
    assert parse_trace('"x; y" & "{z}"; cycle{"}"}').aps() == ("x; y", "{z}", "}")


@pytest.mark.parametrize(
    "text, syntax, column",
    [
        ("a; cycle{}", "auto", 8),
        ("a; {}", "auto", 3),
        ("a; cycle", "auto", 8),
        ("a; cycle{b", "auto", 10),
        ("a cycle{b}", "auto", 1),
        ("a;; cycle{b}", "auto", 2),
        ("a; cycle{b;}", "auto", 11),
        ("a; cycle{b} c", "auto", 12),
        ("X a; cycle{b}", "auto", 0),
        ("a; cycle{b U c}", "auto", 9),
        ("a; cycle{b &}", "auto", 12),
        ("a;{b}", "spot", 2),
        ("a; cycle{b}", "polish", 3),
        ('"a; cycle{b}', "auto", 0),
    ],
)
def test_malformed_traces_are_located(text: str, syntax: str, column: int):
    with pytest.raises(ParseError) as info:
        parse_trace(text, syntax)
    assert info.value.column == column, info.value.render()
    assert info.value.text == text


@settings(max_examples=150, deadline=None)
@given(traces())
def test_traces_round_trip_in_both_syntaxes(t: Trace):
    for syntax in ("spot", "polish"):
        text = print_trace(t, syntax)
        assert parse_trace(text, syntax) == t
        assert parse_trace(text) == t


@settings(max_examples=100, deadline=None)
@given(traces(aps=weird_names()))
def test_traces_with_any_names_round_trip_in_spot_syntax(t: Trace):
    assert parse_trace(print_trace(t, "spot"), "spot") == t


def test_assignment_syntaxes():
    a = Assignment.of({"a": True, "c": False})
    for text in ["a1c0", "c0a1", " a1 c0 ", "a1,c0", '{"a": true, "c": false}', "a & !c", "!c & a", "a1a1c0"]:
        assert parse_assignment(text) == a, text
    assert print_assignment(a, "spot") == "a & !c"
    assert print_assignment(a, "polish") == "a1c0"
    assert print_assignment(a, "json") == '{"a": true, "c": false}'
    empty = Assignment.of({})
    assert [print_assignment(empty, s) for s in ("spot", "polish", "json")] == ["1", "1", "{}"]  # never blank
    assert parse_assignment("") == parse_assignment("1") == parse_assignment("{}") == empty
    assert parse_assignment("1", "polish") == parse_assignment("", "polish") == empty


def test_compact_assignment_names_may_hold_digits():
    assert parse_assignment("req1ack0") == Assignment.of({"req": True, "ack": False})
    assert parse_assignment("p01p10") == Assignment.of({"p0": True, "p1": False})
    assert parse_assignment("x_11") == Assignment.of({"x_1": True})
    assert parse_assignment('"x < 3"1b0') == Assignment.of({"x < 3": True, "b": False})
    assert print_assignment(Assignment.of({"p0": True, "x y": False}), "polish") == 'p01"x y"0'


@pytest.mark.parametrize(
    "text", ["a1a0", '{"a": true, "a": false}', "a & !a", "1a", '{"a": "yes"}', "[1]", '{"a": tru', "a | b", "X a"]
)
def test_bad_assignments_are_parse_errors(text: str):
    with pytest.raises(ParseError):
        parse_assignment(text)


@settings(max_examples=150, deadline=None)
@given(assignments(aps=weird_names()))
def test_assignments_round_trip_in_every_syntax(a: Assignment):
    for syntax in ("spot", "polish", "json"):
        assert parse_assignment(print_assignment(a, syntax), syntax) == a, syntax
    assert parse_assignment(print_assignment(a, "polish")) == a
    assert parse_assignment(print_assignment(a, "json")) == a


def test_auto_reads_compact_first_and_cubes_otherwise():
    assert parse_assignment("a1") == Assignment.of({"a": True})
    assert parse_assignment("a1", "spot") == Assignment.of({"a1": True})
    assert parse_assignment("req") == Assignment.of({"req": True})
    assert parse_assignment("!req & ack") == Assignment.of({"req": False, "ack": True})
