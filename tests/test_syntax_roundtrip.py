"""Printing then parsing gives back the very same (hash-consed) object, in every syntax."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import formulas, weird_names

from ltlwit.logic.formula import Formula, ap
from ltlwit.logic.syntax import parse_formula, print_formula
from ltlwit.logic.syntax.detect import SyntaxGuess

ALL = ("spot", "polish", "polish-spaced", "lbt")


@settings(max_examples=300, deadline=None)
@given(formulas(max_leaves=16))
def test_single_letter_formulas_round_trip_in_every_syntax(f: Formula):
    for syntax in ALL:
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)


@settings(max_examples=300, deadline=None)
@given(formulas(max_leaves=16))
def test_auto_detection_reads_spot_and_network_polish_back(f: Formula):
    assert parse_formula(print_formula(f, "spot")) is f
    data_file = SyntaxGuess()
    data_file.parse("&ab")  # network Polish in a file of DeepLTL lines
    assert data_file.parse(print_formula(f, "polish")) is f


@settings(max_examples=200, deadline=None)
@given(formulas(aps=weird_names(), max_leaves=10))
def test_any_ap_name_round_trips_where_the_syntax_can_spell_it(f: Formula):
    for syntax in ("spot", "polish-spaced", "lbt"):
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)


@settings(max_examples=300, deadline=None)
@given(formulas(aps=weird_names(), max_leaves=6))
def test_auto_detection_reads_spot_output_back_whatever_the_names(f: Formula):
    assert parse_formula(print_formula(f, "spot")) is f


@settings(max_examples=200, deadline=None)
@given(formulas(aps=("req", "grant", "p0", "x_1"), max_leaves=12))
def test_auto_detection_reads_spaced_forms_back(f: Formula):
    for syntax in ("spot", "polish-spaced", "lbt"):
        if syntax == "lbt" and _unary_chain_to_constant(f):
            continue  # `X t` is also valid infix; auto reads it as Spot does (see below)
        assert parse_formula(print_formula(f, syntax)) is f, syntax


def _unary_chain_to_constant(f: Formula) -> bool:
    while len(f.children) == 1:
        f = f.children[0]
    return f.is_constant


def test_auto_reads_an_lbt_unary_chain_as_infix_like_spot():
    assert parse_formula("X ! t") is parse_formula('X !"t"', "spot")
    assert parse_formula("X ! t", "lbt") is parse_formula("X !1", "spot")


def test_network_polish_refuses_names_it_cannot_spell():
    for name in ("req", "X", "U", "1", "é1"):
        with pytest.raises(ValueError):
            print_formula(ap(name), "polish")


def test_network_polish_refuses_x_o_r_in_a_row():
    f = parse_formula("(x & o) & r", "spot")
    with pytest.raises(ValueError, match="xor"):
        print_formula(f, "polish")
    g = parse_formula("x xor (o & r)", "spot")
    assert print_formula(g, "polish") == "xorx&or"
    assert parse_formula("xorx&or", "polish") is g


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a & (b & c)", "a & (b & c)"),
        ("(a & b) & c", "a & b & c"),
        ("(a U b) U c", "(a U b) U c"),
        ("a U (b U c)", "a U b U c"),
        ("(a -> b) -> c", "(a -> b) -> c"),
        ("a -> (b <-> c)", "a -> b <-> c"),
        ("(a | b) & c", "(a | b) & c"),
        ("a | (b & c)", "a | b & c"),
        ("(a xor b) | c", "a xor b | c"),
        ("a xor (b xor c)", "a xor (b xor c)"),
        ("G(a -> F b)", "G(a -> Fb)"),
        ("!(a U b)", "!(a U b)"),
        ("X true", "X(1)"),
        ("F false", "F(0)"),
        ("!true", "!1"),
        ("(F a) U b", "Fa U b"),
        ('"X" & "aUb" & "true" & F1x', '"X" & aUb & "true" & F1x'),
        ('"Uab" | "F0" | xorab', "Uab | F0 | xorab"),  # network Polish as a whole, but names to Spot: bare
        ('"x < 3" U "U"', '"x < 3" U "U"'),
    ],
)
def test_spot_printer_uses_minimal_parentheses(text: str, expected: str):
    f = parse_formula(text, "spot")
    assert print_formula(f, "spot") == expected
    assert parse_formula(expected, "spot") is f


def test_prefix_printers_spell_every_operator():
    f = parse_formula(
        "!a & (b | c) & (d -> e) & (a <-> b) & (a xor 1) & X F G 0 & (a U b) & (a R b) & (a W b) & (a M b)", "spot"
    )
    spaced = print_formula(f, "polish-spaced")
    assert set(spaced.split()) >= {"!", "&", "|", "->", "<->", "xor", "1", "0", "X", "F", "G", "U", "R", "W", "M"}
    lbt = print_formula(f, "lbt")
    assert set(lbt.split()) >= {"!", "&", "|", "i", "e", "^", "t", "f", "X", "F", "G", "U", "V", "W", "M"}
    assert print_formula(parse_formula("p0 U p12", "spot"), "lbt") == "U p0 p12"
    assert print_formula(parse_formula("req", "spot"), "lbt") == '"req"'


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from("abcde"), min_size=1, max_size=6))
def test_conjunction_chains_nest_to_the_left(names):
    f = parse_formula(" & ".join(names), "spot")
    node = f
    for name in reversed(names[1:]):
        assert node.op == "&" and node.children[1] is ap(name)
        node = node.children[0]
    assert node is ap(names[0])
