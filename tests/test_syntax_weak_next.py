"""BLACK's weak next `wX` in every syntax that carries it (infix, LBT, spaced Polish,
auto-detection), the lexing of names that start with `wX`, Spot's strong next `X[!]` read as
`X`, minimal printing and round trips, network Polish and `ltlwit fmt --to spot` refusing
`wX`, and BLACK's finite-trace suite read and printed back."""

from __future__ import annotations

import gzip
import json

import pytest
from cli_support import run
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import shared_file
from strategies import formulas, weird_names

from ltlwit.logic.formula import WEAK_NEXT, Formula, ap
from ltlwit.logic.syntax import ParseError, parse_formula, parse_trace, print_formula, print_trace
from ltlwit.logic.syntax.detect import SyntaxGuess
from ltlwit.logic.syntax.names import spot_ap
from ltlwit.logic.syntax.polish import spaced_ap
from ltlwit.logic.trace import Trace

#: Every syntax that carries `wX` (all but network Polish).
WEAK_SYNTAXES = ("spot", "polish-spaced", "lbt")
#: Names that are, or start with, `wX`: some need quoting in infix, all in some syntax.
WEAK_NAMES = (
    "wX",
    "wXa",
    "wX1",
    "wXyz",
    "wX_b",
    "wX.c",
    "wXF",
    "wXFa",
    "wXF1",
    "wXGX",
    "wXX",
    "wXwX",
    "wXwXa",
    "Xw",
    "w",
    "wx",
    "WX",
)

SPOT_LTLF_MESSAGE = (
    "cannot print in spot syntax: Spot's syntax has no weak next wX (in Spot's LTLf reading plain X is the weak "
    "next and X[!] the strong one, so printing would change the meaning); --to infix, --to lbt and --to polish-spaced carry it"
)
SPOT_BOTH_MESSAGE = (
    "cannot print in spot syntax: Spot's syntax has no past operators (Y, Z, S, T, O, H) and no weak next wX "
    "(in Spot's LTLf reading plain X is the weak next and X[!] the strong one, so printing would change the "
    "meaning); --to infix, --to lbt and --to polish-spaced carry them"
)


def spot(text: str) -> Formula:
    return parse_formula(text, "spot")


def tree(f: Formula) -> str:
    """A fully parenthesised prefix rendering, to compare structures at a glance."""
    if f.op == "ap":
        return f.name
    if not f.children:
        return f.op
    return "(" + " ".join([f.op] + [tree(c) for c in f.children]) + ")"


def weak(child: Formula) -> Formula:
    return Formula(WEAK_NEXT, (child,))


# --- the operator in each syntax --------------------------------------------------------------


@pytest.mark.parametrize(
    "infix, spaced, lbt, expected",
    [
        ("wX a", "wX a", 'wX "a"', "(wX a)"),
        ("wX !a", "wX ! a", 'wX ! "a"', "(wX (! a))"),
        ("wX(a U b)", "wX U a b", 'wX U "a" "b"', "(wX (U a b))"),
        ("G(a -> wX b)", "G -> a wX b", 'G i "a" wX "b"', "(G (-> a (wX b)))"),
        ("wX(p2 U 0)", "wX U p2 0", "wX U p2 f", "(wX (U p2 0))"),
        ("wX wX p0", "wX wX p0", "wX wX p0", "(wX (wX p0))"),
    ],
)
def test_weak_next_reads_in_each_syntax(infix: str, spaced: str, lbt: str, expected: str):
    f = spot(infix)
    assert tree(f) == expected and f.weak and f.temporal and not f.past
    assert parse_formula(spaced, "polish-spaced") is f
    assert parse_formula(spaced, "polish") is f  # `polish` with spaces is the spaced form
    assert parse_formula(lbt, "lbt") is f
    for text in (infix, spaced, lbt):
        assert parse_formula(text, "auto") is f, text
    assert print_formula(f, "polish-spaced") == spaced
    assert print_formula(f, "lbt") == lbt


def test_the_weak_flag_marks_exactly_the_formulas_with_weak_next():
    assert not spot("X a U G b").weak and not spot('"wX" & wXa').weak
    assert spot("a U (b & wX c)").weak and spot("wX a U b").weak and spot("Y wX a").weak
    assert spot("Y wX a").past


# --- names beside the operator ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("wX a", "(wX a)"),
        ("wX(a)", "(wX a)"),
        ("wX!a", "(wX (! a))"),
        ("wX\ta", "(wX a)"),
        ("(wX a)", "(wX a)"),
        ("wXFa", "(wX (F a))"),  # a unary letter after `wX` is read as after `X`: `XFa` is `X F a`
        ("wXGFa", "(wX (G (F a)))"),
        ("wXXa", "(wX (X a))"),
        ("wXYa", "(wX (Y a))"),
        ("wXF1", "(wX F1)"),  # `F1` is a name, as in `XF1`
        ("wXX0y", "(wX X0y)"),
        ("wX[]a", "(wX (G a))"),  # Spin's `[]` is G, as in `X[]a`
        ("wXa", "wXa"),  # any other run starting with `wX` is one name
        ("wX1", "wX1"),
        ("wXyz", "wXyz"),
        ("wX_b", "wX_b"),
        ("wX.c", "wX.c"),
        ("wXwXa", "wXwXa"),
        ("wXxor", "wXxor"),
        ("XwXa", "(X wXa)"),
        ("GwX a", "(G (wX a))"),
        ("w & X a", "(& w (X a))"),
        ("wx & WX", "(& wx WX)"),
        ('"wX"', "wX"),
        ('"wX" U wX "wX"', "(U wX (wX wX))"),
        ('"wXFa" & wXa', "(& wXFa wXa)"),
    ],
)
def test_names_versus_weak_next(text: str, expected: str):
    assert tree(spot(text)) == expected


@pytest.mark.parametrize(
    "text, column, reason",
    [
        ("wX", 2, 'missing right operand for "weak next operator" (a proposition named wX is written "wX")'),
        ("wX & a", 3, 'unexpected and operator (a proposition named wX is written "wX")'),
        ("a & wX", 6, 'missing right operand for "weak next operator" (a proposition named wX is written "wX")'),
        ("G wX", 4, 'missing right operand for "weak next operator" (a proposition named wX is written "wX")'),
        ("a wX b", 2, "syntax error, unexpected weak next operator"),  # as `a X b` is
        ("a wX", 2, "syntax error, unexpected weak next operator"),
        ("(a)wXFb", 3, "syntax error, unexpected weak next operator"),
        ("a wXb", 2, "syntax error, unexpected atomic proposition"),  # `w` then `X b`, as Spot reads it
        ("wX=0", 2, "unexpected negative suffix"),  # `wX` is no longer a name to negate
        ("wX)", 2, "unexpected closing parenthesis"),
        ("wX[2] a", 0, "unsupported: bounded operator wX[..]"),
        ("wX[!] a", 0, "unsupported: bounded operator wX[..]"),
    ],
)
def test_malformed_weak_next_infix_is_located(text: str, column: int, reason: str):
    with pytest.raises(ParseError) as info:
        spot(text)
    assert info.value.column == column, info.value.render()
    assert reason in info.value.reason, info.value.reason
    assert info.value.render().split("\n")[1].index("^") == 4 + column


def test_no_name_hint_for_the_future_letters():
    with pytest.raises(ParseError) as info:
        spot("X & a")
    assert info.value.reason == "syntax error, unexpected and operator"


# --- Spot's strong next X[!] --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("X[!] a", "(X a)"),
        ("X[!]a", "(X a)"),
        ("X [!] a", "(X a)"),
        ("X[ !] a", "(X a)"),
        ("X\t[\n!]a", "(X a)"),
        ("X[!](a U b)", "(X (U a b))"),
        ("X[!]Fa", "(X (F a))"),
        ("X[!]X[!]a", "(X (X a))"),
        ("!X[!]a", "(! (X a))"),
        ("X[!] a U b", "(U (X a) b)"),
        ("G(a -> X[!] b)", "(G (-> a (X b)))"),
        ("wX X[!] a", "(wX (X a))"),
        ("X[!] wX a", "(X (wX a))"),
        ("X[]a", "(X (G a))"),  # Spin's `[]` is still G
        ("Ⓧa", "(X a)"),  # Spot's other spelling of the strong next
        ("Ⓧ Ⓧ a U b", "(U (X (X a)) b)"),
    ],
)
def test_spots_strong_next_reads_as_x(text: str, expected: str):
    assert tree(spot(text)) == expected
    assert parse_formula(text, "auto") is spot(text)


@pytest.mark.parametrize("text", ["X[! ] a", "X[!!] a", "X[2!] a", "F[!] a", "G[!] a", "Y[!] a"])
def test_other_brackets_are_errors(text: str):
    """Not `X[!]` nor one of Spot's bounded operators (tests/test_syntax_bounded.py): malformed
    under the bracket, or unsupported after a letter Spot has no operator for."""
    with pytest.raises(ParseError) as info:
        spot(text)
    if text[0] == "Y":
        assert info.value.column == 0
        assert info.value.reason.startswith("unsupported: bounded operator Y[..]"), info.value.reason
    else:
        assert info.value.column == text.index("[")
        assert info.value.reason.startswith("syntax error, malformed bounded operator"), info.value.reason


def test_strong_next_after_an_operand_is_an_error():
    with pytest.raises(ParseError) as info:
        spot("a X[!] b")
    assert (info.value.column, info.value.reason) == (2, "syntax error, unexpected next operator")


# --- precedence ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("wX a U b", "(U (wX a) b)"),
        ("a U wX b", "(U a (wX b))"),
        ("wX a & b", "(& (wX a) b)"),
        ("wX a -> b", "(-> (wX a) b)"),
        ("wX a S b", "(S (wX a) b)"),
        ("!wX a", "(! (wX a))"),
        ("wX !a", "(wX (! a))"),
        ("!wX !a", "(! (wX (! a)))"),
        ("wX X a", "(wX (X a))"),
        ("X wX a", "(X (wX a))"),
        ("G wX F a", "(G (wX (F a)))"),
        ("F wX a U b", "(U (F (wX a)) b)"),
        ("wX(a U b)", "(wX (U a b))"),
        ("wX (a) & b", "(& (wX a) b)"),
        ("Y wX Z a", "(Y (wX (Z a)))"),
        ("a * wX b U c", "(& a (U (wX b) c))"),
    ],
)
def test_weak_next_takes_the_precedence_of_x(text: str, expected: str):
    assert tree(spot(text)) == expected
    assert tree(spot(text.replace("wX", "X"))) == expected.replace("wX", "X")


# --- printing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("wX a", "wX a"),
        ("wX(a)", "wX a"),
        ("wX !a", "wX !a"),
        ("!wX a", "!wX a"),
        ("wX(a U b)", "wX(a U b)"),
        ("wX(a & b) | c", "wX(a & b) | c"),
        ("wX X a", "wX Xa"),
        ("wXFGa", "wX FGa"),
        ("wX wX a", "wX wX a"),
        ("X wX a", "X wX a"),  # a letter before `wX` keeps a space: `XwX a` would hide it
        ("G(a -> wX b)", "G(a -> wX b)"),
        ("wX a U b", "wX a U b"),
        ("(wX a) U (wX b)", "wX a U wX b"),
        ("wX true", "wX 1"),  # `wX1` would be a name
        ("wX 0", "wX 0"),
        ("X[!] a", "Xa"),
        ('wX "wX"', 'wX "wX"'),
        ('wX "x < 3"', 'wX "x < 3"'),
        ("wX wXa", "wX wXa"),
        ('wX "wXFa"', 'wX "wXFa"'),
        ("Y wX O a", "Y wX Oa"),
    ],
)
def test_spot_printer_spaces_weak_next(text: str, expected: str):
    f = spot(text)
    assert print_formula(f, "spot") == expected == str(f)
    assert spot(expected) is f
    assert parse_formula(expected, "auto") is f


@pytest.mark.parametrize(
    "name, infix",
    [
        ("wX", '"wX"'),
        ("wXF", '"wXF"'),
        ("wXFa", '"wXFa"'),
        ("wXF1", '"wXF1"'),
        ("wXGX", '"wXGX"'),
        ("wXX", '"wXX"'),
        ("wXO", '"wXO"'),
        ("wXH1", '"wXH1"'),
        ("wXa", "wXa"),
        ("wX1", "wX1"),
        ("wXyz", "wXyz"),
        ("wX_b", "wX_b"),
        ("wX.c", "wX.c"),
        ("wXwX", "wXwX"),
        ("wXwXa", "wXwXa"),
        ("wXU", "wXU"),
        ("wXS", "wXS"),
        ("w", "w"),
        ("wx", "wx"),
        ("WX", "WX"),
    ],
)
def test_spot_printer_quotes_names_that_would_read_as_weak_next(name: str, infix: str):
    assert spot_ap(name) == infix
    assert print_formula(ap(name), "spot") == infix
    assert spot(infix) is ap(name)
    assert parse_formula(infix) is ap(name)


def test_prefix_printers_quote_a_name_spelling_weak_next():
    assert spaced_ap("wX") == '"wX"'
    assert parse_formula('"wX"', "polish-spaced") is ap("wX")
    assert print_formula(ap("wX"), "lbt") == '"wX"'
    assert parse_formula('"wX"', "lbt") is ap("wX")
    assert spaced_ap("wXa") == "wXa"  # one word in spaced Polish and in infix
    assert spaced_ap("wXFa") == '"wXFa"'  # infix reads `X wXFa` as `X wX F a`
    f = spot('wX "wX" U wXFb')
    assert tree(f) == "(U (wX wX) (wX (F b)))"
    assert print_formula(f, "polish-spaced") == 'U wX "wX" wX F b'
    assert print_formula(f, "lbt") == 'U wX "wX" wX F "b"'
    assert parse_formula("wXp0", "lbt") is ap("wXp0")  # a word, as `Xp0` is
    assert parse_formula("wX p0", "lbt") is weak(ap("p0"))


@settings(max_examples=300, deadline=None)
@given(formulas(max_leaves=16, weak=True))
def test_weak_formulas_round_trip_in_every_syntax_that_carries_them(f: Formula):
    for syntax in WEAK_SYNTAXES:
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)
    assert parse_formula(print_formula(f, "spot")) is f  # auto reads Spot's output back


@settings(max_examples=300, deadline=None)
@given(formulas(aps=weird_names() | st.sampled_from(WEAK_NAMES), max_leaves=10, past=True, weak=True))
def test_weak_and_past_formulas_with_any_names_round_trip(f: Formula):
    for syntax in WEAK_SYNTAXES:
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)
    assert parse_formula(print_formula(f, "spot")) is f


@settings(max_examples=200, deadline=None)
@given(formulas(aps=("req", "grant", "p0", "x_1", "wXa", "w"), max_leaves=12, weak=True))
def test_auto_detection_reads_the_spaced_weak_forms_back(f: Formula):
    for syntax in WEAK_SYNTAXES:
        if syntax == "lbt" and _unary_chain_to_constant(f):
            continue  # `wX t` is also valid infix (over the name `t`); auto reads it as Spot does
        assert parse_formula(print_formula(f, syntax)) is f, syntax


def _unary_chain_to_constant(f: Formula) -> bool:
    while len(f.children) == 1:
        f = f.children[0]
    return f.is_constant


def test_the_strategy_draws_weak_next_only_when_asked():
    seen: list[Formula] = []

    @settings(max_examples=200, deadline=None)
    @given(formulas(max_leaves=8), formulas(max_leaves=8, weak=True))
    def draw(plain: Formula, with_weak: Formula) -> None:
        assert not plain.weak
        seen.append(with_weak)

    draw()
    assert any(f.weak for f in seen)


# --- auto-detection ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, infix",
    [
        ("wX a", "wX a"),
        ("G(a -> wX b)", "G(a -> wX b)"),
        ("wX(p2 U 0)", "wX(p2 U 0)"),
        ("wX(a)", "wX a"),  # unspaced: network Polish reads `w X ( a )`, not a formula
        ("!wX!a", "!wX !a"),
        ("wXFa", "wX F a"),
        ("G(a->wX(b))", "G(a -> wX b)"),
        ("wXa", '"wXa"'),
        ("G -> a wX b", "G(a -> wX b)"),  # spaced Polish
        ('G i "a" wX "b"', "G(a -> wX b)"),  # LBT
        ("U wX p0 p1", "wX p0 U p1"),
        ("wX U p2 0", "wX(p2 U 0)"),
        ("X[!] a", "X a"),
        ("G(a -> X[!]b)", "G(a -> X b)"),
    ],
)
def test_auto_detection_reads_weak_next_formulas(text: str, infix: str):
    assert parse_formula(text, "auto") is spot(infix)


def test_auto_detection_in_a_network_polish_source():
    source = SyntaxGuess()
    source.parse("&ab")  # a DeepLTL data file so far
    assert source.parse("&wX!a") is spot("w & X !a")  # no infix reading at all
    # Both readings exist: the source decides, as for any such string (network Polish reads
    # the name `w` and the operator `X`); a fresh guess reads infix.
    assert source.parse("Uw&wX!a") is spot("w U (w & X !a)")
    assert parse_formula("Uw&wX!a") is spot("Uw & wX !a")
    assert source.parse("!wX!a") is spot("!wX !a")  # no network reading: now the source has infix
    assert source.parse("Uw&wX!a") is spot("Uw & wX !a")


def test_cli_auto_detection_reads_weak_next_formulas():
    source = ["wX a", "G(a -> wX b)", "wX(p2 U 0)", "G -> a wX b", 'G i "a" wX "b"', "X[!] a"]
    result = run("fmt", "--syntax", "auto", "--to", "polish-spaced", *source)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == ["wX a", "G -> a wX b", "wX U p2 0", "G -> a wX b", "G -> a wX b", "X a"]


# --- network Polish has no weak next ----------------------------------------------------------------


def test_network_polish_refuses_weak_next_on_print():
    for text in ("wX a", "G(a -> wX b)", "X wX X a", "wX(a U b)"):
        with pytest.raises(ValueError, match=r"^network Polish has no weak next \(wX\); use polish-spaced$"):
            print_formula(spot(text), "polish")
    with pytest.raises(
        ValueError,
        match=r"^network Polish has no past operators and no weak next \(wX\); "
        r"use polish-spaced$",
    ):
        print_formula(spot("Y wX a"), "polish")
    with pytest.raises(ValueError, match=r"^network Polish has no past operators; use polish-spaced$"):
        print_formula(spot("Y X a"), "polish")


def test_network_polish_reads_w_and_x_as_a_name_and_the_next():
    assert parse_formula("&wX!a", "polish") is spot("w & X !a")
    assert print_formula(spot("w & X !a"), "polish") == "&wX!a"
    for text in ("wXa", "wX"):  # two complete formulas in a row, or `X` without its operand
        with pytest.raises(ParseError):
            parse_formula(text, "polish")


def test_fmt_to_network_polish_refuses_weak_formulas():
    result = run("fmt", "--to", "polish", "wX a", "&ab", "H wX a")
    assert (result.exit_code, result.stdout) == (2, "ERROR\n&ab\nERROR\n")
    assert result.stderr.splitlines() == [
        "ltlwit: <arg 1>: cannot print in polish syntax: network Polish has no weak next (wX); use polish-spaced",
        "ltlwit: <arg 3>: cannot print in polish syntax: network Polish has no past operators and no weak next "
        "(wX); use polish-spaced",
    ]


# --- ltlwit fmt --to spot ---------------------------------------------------------------------------


def test_fmt_to_spot_refuses_weak_formulas_and_converts_the_rest(tmp_path):
    path = tmp_path / "specs.txt"
    path.write_text('a U b\nG(a -> wX b)\nwX U p0 p1\n!c\nO wX a\n"wX" & X[!] b\n')
    result = run("fmt", "--to", "spot", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == 'a U b\nERROR\nERROR\n!c\nERROR\n"wX" & Xb\n'
    assert result.stderr.splitlines() == [
        f"ltlwit: {path}:2: {SPOT_LTLF_MESSAGE}",
        f"ltlwit: {path}:3: {SPOT_LTLF_MESSAGE}",
        f"ltlwit: {path}:5: {SPOT_BOTH_MESSAGE}",
    ]
    single = run("fmt", "--to", "spot", "wX a", "a & b")
    assert (single.exit_code, single.stdout) == (2, "ERROR\na & b\n")
    assert single.stderr == f"ltlwit: <arg 1>: {SPOT_LTLF_MESSAGE}\n"


def test_fmt_to_spot_keeps_the_past_only_message():
    result = run("fmt", "--to", "spot", "Y a")
    assert result.exit_code == 2
    assert result.stderr == (
        "ltlwit: <arg 1>: cannot print in spot syntax: Spot's syntax has no past operators (Y, Z, S, T, O, H); "
        "--to infix, --to lbt and --to polish-spaced carry them\n"
    )


@pytest.mark.parametrize("to, expected", [("lbt", 'G i "a" wX "b"'), ("polish-spaced", "G -> a wX b")])
def test_fmt_to_the_prefix_syntaxes_carries_weak_next(to: str, expected: str):
    result = run("fmt", "--to", to, "G(a -> wX b)", "wX(p S q) U r")
    assert (result.exit_code, result.stderr) == (0, "")
    out = result.stdout.splitlines()
    assert out[0] == expected
    assert parse_formula(out[1], to) is spot("wX(p S q) U r")


# --- traces -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, column", [("wX a; cycle{b}", 0), ("a; cycle{wX b}", 9), ("a; cycle{& b wX c}", 9)])
def test_weak_next_trace_steps_are_errors(text: str, column: int):
    with pytest.raises(ParseError) as info:
        parse_trace(text)
    assert info.value.column == column, info.value.render()
    assert "trace step is not propositional" in info.value.reason


def test_trace_steps_named_wx_print_quoted_and_read_back():
    t = Trace((ap("wX"), spot('"wXFa" & !wXa')), (ap("wX1"),))
    assert print_trace(t, "spot") == '"wX"; "wXFa" & !wXa; cycle{wX1}'
    for syntax in ("spot", "polish", "polish-spaced", "lbt"):
        assert parse_trace(print_trace(t, syntax)) == t, syntax


# --- BLACK's finite-trace suite ---------------------------------------------------------------------


def _black_finite_rows() -> list[dict]:
    with gzip.open(shared_file("black-finite/finite.jsonl.gz"), "rt") as fh:
        return [json.loads(line) for line in fh]


def _read_black_row(row: dict) -> Formula:
    text = row["formula"]
    f = spot(text)
    assert parse_formula(text, "auto") is f, row["name"]
    return f


def _check_black_row(row: dict) -> Formula:
    f = _read_black_row(row)
    for syntax in WEAK_SYNTAXES:
        assert parse_formula(print_formula(f, syntax), syntax) is f, (row["name"], syntax)
    return f


def test_blacks_finite_benchmarks_read_and_round_trip():
    """BLACK's finite-trace suite, in its letters (`X` strong, `wX` weak next): every formula
    with `wX` and every 40th of the rest read in infix and with auto-detection alike, and
    print back in each syntax that carries `wX` (the whole suite: the slow test below)."""
    rows = _black_finite_rows()
    weak_rows = [row for row in rows if "wX" in row["formula"]]
    assert weak_rows
    assert any(_check_black_row(row).weak for row in weak_rows)
    for row in rows[::40]:
        _check_black_row(row)


@pytest.mark.slow
def test_every_black_finite_benchmark_reads_and_round_trips():
    """All 3,224 formulas (9.5 MB of text) read in infix and with auto-detection alike, every
    fifth also printed back in each syntax that carries `wX` (every one: about a minute more)."""
    rows = _black_finite_rows()
    read = [_check_black_row(row) if k % 5 == 0 else _read_black_row(row) for k, row in enumerate(rows)]
    assert len(read) == len(rows) and any(f.weak for f in read)
