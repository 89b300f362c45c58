"""Printing then parsing gives back the very same (hash-consed) object, in every syntax; and what
`ltlwit fmt --to S` writes (`print_detectable`) reads back with auto-detection as the very same
object, not one equal after some normalisation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import formulas, weird_names

from ltlwit.logic import FMT_SYNTAXES
from ltlwit.logic.formula import BINARY, FALSE, OPERATORS, TRUE, UNARY, Formula, ap
from ltlwit.logic.syntax import parse_formula, print_detectable, print_formula
from ltlwit.logic.syntax.detect import SyntaxGuess
from ltlwit.logic.syntax.operators import NETWORK_ARITY

ALL = ("spot", "polish", "polish-spaced", "lbt")

#: Names that some syntax reads as something else when bare: constants and operators of Spot's
#: infix, LBT, spaced and network Polish, words that begin with an operator letter, solve's
#: status words, and names that need quotes anywhere.
COLLIDING = (
    *("t", "f", "i", "e", "V", "R", "U", "S", "T", "X", "F", "G", "Y", "O", "H", "M", "W", "wX", "xor"),
    *("true", "false", "TRUE", "False", "1", "0", "p0", "p12", "X1", "F0", "H1"),
    *("Fail", "Once", "Xa", "wXFa", "wXa", "Req", "Uab", "UNSAT", "x < 3", "a b", 'say "hi"'),
)
#: One-letter names: network Polish spells these (every letter but its operators X F G U R W M).
LETTERS = tuple(c for c in "abcdefghijklmnopqrstuvwxyzHOSTYZ")
NETWORK_UNARY = tuple(op for op in UNARY if NETWORK_ARITY.get(op) == 1)
NETWORK_BINARY = tuple(op for op in BINARY if NETWORK_ARITY.get(op) == 2)
ROUND_TRIPS = 10_000


def random_formula(rng: random.Random, size: int, names: tuple[str, ...], unary, binary) -> Formula:
    """A formula of exactly `size` nodes over `names`, `unary` and `binary` operators."""
    if size <= 1:
        x = rng.random()
        return ap(rng.choice(names)) if x < 0.8 else (TRUE if x < 0.9 else FALSE)
    if size == 2 or rng.random() < 0.4:
        return Formula(rng.choice(unary), (random_formula(rng, size - 1, names, unary, binary),))
    left = rng.randint(1, size - 2)
    return Formula(
        rng.choice(binary),
        (
            random_formula(rng, left, names, unary, binary),
            random_formula(rng, size - 1 - left, names, unary, binary),
        ),
    )


def _draws(syntax: str):
    """10,000 formulas for `syntax`, the same on every run. Network Polish is future-only with
    one-letter names, so most of its draws are (a tenth may use anything, to be refused)."""
    rng = random.Random(f"round trip {syntax}")
    for _ in range(ROUND_TRIPS):
        if syntax == "polish" and rng.random() < 0.9:
            names, unary, binary = LETTERS, NETWORK_UNARY, NETWORK_BINARY
        else:
            names, unary, binary = (COLLIDING if rng.random() < 0.5 else LETTERS), UNARY, BINARY
        yield random_formula(rng, rng.randint(1, 14), names, unary, binary)


def _may_refuse(f: Formula, syntax: str, message: str) -> bool:
    """Whether fmt may refuse to write `f` in `syntax`: what the syntax cannot spell, and LBT's
    one ambiguous shape."""
    if syntax == "polish":
        unspellable = any(n.op == "ap" and (n.name not in LETTERS or n.name in "XFGURWM") for n in f.walk())
        return f.past or f.weak or unspellable or "xor" in message
    if syntax == "lbt":
        while len(f.children) == 1:
            f = f.children[0]
        return f.is_constant
    return False


@pytest.mark.parametrize("syntax", FMT_SYNTAXES)
def test_what_fmt_writes_reads_back_as_the_same_formula_with_auto_detection(syntax: str):
    seen: set[str] = set()
    written = 0
    for f in _draws(syntax):
        seen.update(node.op for node in f.walk())
        try:
            text = print_detectable(f, syntax)
        except ValueError as exc:
            assert _may_refuse(f, syntax, str(exc)), (str(f), str(exc))
            continue
        written += 1
        assert parse_formula(text) is f, (str(f), text)
        assert parse_formula(text, "polish" if syntax == "polish" else syntax.replace("infix", "spot")) is f
    assert seen >= {*OPERATORS, "1", "0", "ap"}
    assert written > ROUND_TRIPS * 0.9


@settings(max_examples=200, deadline=None)
@given(formulas(aps=weird_names(), max_leaves=8, past=True, weak=True))
def test_what_fmt_writes_reads_back_whatever_the_names(f: Formula):
    for syntax in FMT_SYNTAXES:
        try:
            text = print_detectable(f, syntax)
        except ValueError as exc:
            assert _may_refuse(f, syntax, str(exc)), (syntax, str(f), str(exc))
        else:
            assert parse_formula(text) is f, (syntax, text)


@pytest.mark.parametrize(
    "infix, syntax, written",
    [
        ('"t" U "f"', "lbt", 'U "t" "f"'),
        ('X "t"', "lbt", 'X "t"'),
        ("X(1) U p0", "lbt", "U X t p0"),
        ('X "t" & "i"', "polish-spaced", '& X "t" "i"'),
        ('X "Fail"', "polish-spaced", 'X "Fail"'),
        ('G "TRUE"', "polish-spaced", 'G "TRUE"'),
        ("G(req -> F grant)", "polish-spaced", "G -> req F grant"),
        ("a U b", "polish", "U a b"),  # `Uab` is a name to Spot's infix
        ("X true", "polish", "X 1"),  # `X1` too
        ("a & X b", "polish", "&aXb"),
        ("G F a", "polish", "GFa"),  # the same formula either way
    ],
)
def test_fmt_spells_what_auto_detection_would_misread(infix: str, syntax: str, written: str):
    f = parse_formula(infix, "spot")
    assert print_detectable(f, syntax) == written
    assert parse_formula(written) is f


def test_lbt_refuses_a_constant_under_unary_operators_only():
    for infix in ("1", "0", "X(1)", "X[!](Y(wX(false)))", "!G(0)"):
        f = parse_formula(infix, "spot")
        lbt = print_formula(f, "lbt")  # LBT's own spelling, which --syntax lbt reads
        assert parse_formula(lbt, "lbt") is f
        assert parse_formula(lbt) is not f  # ... and auto-detection takes for infix, as Spot does
        with pytest.raises(ValueError, match="also infix over a proposition [tf], "):
            print_detectable(f, "lbt")


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
