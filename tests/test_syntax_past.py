"""The past-time operators `Y Z O H S T` in every syntax that carries them (infix, LBT, spaced
Polish, auto-detection), the lexing of names beside their letters, minimal printing and round
trips, and network Polish (future-only) and `ltlwit fmt --to spot` refusing them."""

from __future__ import annotations

import gzip
import json

import pytest
from cli_support import run
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import shared_file
from strategies import formulas, weird_names

from ltlwit.logic.formula import PAST, Formula, ap
from ltlwit.logic.syntax import ParseError, parse_formula, parse_trace, print_formula, print_trace
from ltlwit.logic.syntax.detect import SyntaxGuess
from ltlwit.logic.syntax.names import spot_ap
from ltlwit.logic.syntax.polish import spaced_ap
from ltlwit.logic.trace import Trace

#: Every syntax that carries the past operators (all but network Polish).
PAST_SYNTAXES = ("spot", "polish-spaced", "lbt")
#: Names that are, or start with, a past operator's letter: each needs quoting somewhere.
PAST_NAMES = (
    "Y",
    "Z",
    "O",
    "H",
    "S",
    "T",
    "Once",
    "Hold",
    "Yes",
    "Zero",
    "Sa",
    "Tb",
    "H1",
    "Y0x",
    "O_",
    "Sab",
    "YZ",
    "STa",
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


# --- each operator in each syntax ---------------------------------------------------------

OPERATOR_SPELLINGS = [
    # (infix, spaced Polish, LBT, tree)
    ("Y a", "Y a", 'Y "a"', "(Y a)"),
    ("Z a", "Z a", 'Z "a"', "(Z a)"),
    ("O a", "O a", 'O "a"', "(O a)"),
    ("H a", "H a", 'H "a"', "(H a)"),
    ("a S b", "S a b", 'S "a" "b"', "(S a b)"),
    ("a T b", "T a b", 'T "a" "b"', "(T a b)"),
]


@pytest.mark.parametrize("infix, spaced, lbt, expected", OPERATOR_SPELLINGS)
def test_each_past_operator_reads_in_each_syntax(infix: str, spaced: str, lbt: str, expected: str):
    f = spot(infix)
    assert tree(f) == expected and f.past and f.temporal
    assert parse_formula(spaced, "polish-spaced") is f
    assert parse_formula(spaced, "polish") is f  # `polish` with spaces is the spaced form
    assert parse_formula(lbt, "lbt") is f
    for text in (infix, spaced, lbt):
        assert parse_formula(text, "auto") is f, text
    assert print_formula(f, "polish-spaced") == spaced
    assert print_formula(f, "lbt") == lbt


@pytest.mark.parametrize(
    "text, infix",
    [
        ("G(grant -> O req)", "G(grant -> O req)"),
        ("G(grant->Oreq)", "G(grant -> O req)"),  # unspaced: not network Polish, so infix
        ("a S b", "a S b"),
        ("(p S q) T r", "(p S q) T r"),
        ("G -> grant O req", "G(grant -> O req)"),  # spaced Polish
        ("T S p q r", "(p S q) T r"),
        ('G i "grant" O "req"', "G(grant -> O req)"),  # LBT
        ("S p0 p1", "p0 S p1"),
        ("H i p0 Y p1", "H(p0 -> Y p1)"),
        ("Ya", "Y a"),
        ("HOa", "H O a"),
    ],
)
def test_auto_detection_reads_past_formulas(text: str, infix: str):
    assert parse_formula(text, "auto") is spot(infix)


def test_cli_auto_detection_reads_past_formulas():
    source = ["G(grant -> O req)", "a S b", "(p S q) T r", "G -> grant O req", 'G i "grant" O "req"', "S p0 p1"]
    result = run("fmt", "--syntax", "auto", "--to", "polish-spaced", *source)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "G -> grant O req",
        "S a b",
        "T S p q r",
        "G -> grant O req",
        "G -> grant O req",
        "S p0 p1",
    ]


# --- precedence and associativity --------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Y a & b", "(& (Y a) b)"),
        ("Z a | b", "(| (Z a) b)"),
        ("O a U b", "(U (O a) b)"),
        ("H a S b", "(S (H a) b)"),
        ("a S b U c", "(S a (U b c))"),
        ("a U b S c", "(U a (S b c))"),
        ("a S b T c", "(S a (T b c))"),
        ("a T b R c W d", "(T a (R b (W c d)))"),
        ("a S b & c", "(& (S a b) c)"),
        ("a & b S c", "(& a (S b c))"),
        ("a -> b S c", "(-> a (S b c))"),
        ("a S b -> c", "(-> (S a b) c)"),
        ("a | b T c", "(| a (T b c))"),
        ("!Y a", "(! (Y a))"),
        ("Y !a", "(Y (! a))"),
        ("X Y a", "(X (Y a))"),
        ("G O a", "(G (O a))"),
        ("a S X b", "(S a (X b))"),
        ("(a S b) S c", "(S (S a b) c)"),
        ("Y(a S b)", "(Y (S a b))"),
        ("a * b S c", "(& a (S b c))"),
    ],
)
def test_past_operators_take_their_future_twins_precedence(text: str, expected: str):
    assert tree(spot(text)) == expected


# --- names beside the operators' letters ------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Once", "(O nce)"),
        ('"Once"', "Once"),
        ("Hold", "(H old)"),
        ("Yes & Zoo", "(& (Y es) (Z oo))"),
        ("H1", "H1"),
        ("Y0x", "Y0x"),
        ("O1 S Z2", "(S O1 Z2)"),
        ("GOa", "(G (O a))"),
        ("YZOHa", "(Y (Z (O (H a))))"),
        ("Sa", "Sa"),  # in operand position S starts a name, as U does (`Ua`)
        ("Ta", "Ta"),
        ("Sa S Tb", "(S Sa Tb)"),
        ("a Sb", "(S a b)"),  # after an operand no name starts with S or T: `a Ub` is `a U b`
        ("a Tb", "(T a b)"),
        ("(a)Sb", "(S a b)"),
        ("a S Sb", "(S a Sb)"),
        ('"Y" & "S" & "T"', "(& (& Y S) T)"),
        ("H[]a", "(H (G a))"),
    ],
)
def test_names_versus_past_letters(text: str, expected: str):
    assert tree(spot(text)) == expected


@pytest.mark.parametrize("text", ["Y", "S", "T", "T & a", "a & O", "Y & a", "a Yb"])
def test_a_past_letter_alone_is_no_infix_name(text: str):
    with pytest.raises(ParseError):
        spot(text)


@pytest.mark.parametrize(
    "name, infix",
    [
        ("Once", '"Once"'),
        ("T", '"T"'),
        ("S", '"S"'),
        ("Hold", '"Hold"'),
        ("Y", '"Y"'),
        ("Zed", '"Zed"'),
        ("H1", "H1"),
        ("Y0x", "Y0x"),
        ("Sa", "Sa"),
        ("Tb", "Tb"),
        ("Sab", "Sab"),
        ("Ia", "Ia"),
        ("P", "P"),
    ],
)
def test_spot_printer_quotes_names_that_would_read_as_past_operators(name: str, infix: str):
    assert spot_ap(name) == infix
    assert spot(infix) is ap(name)
    assert parse_formula(infix) is ap(name)


def test_prefix_printers_quote_names_spelling_a_past_operator():
    for letter in sorted(PAST):
        assert spaced_ap(letter) == f'"{letter}"'
        assert parse_formula(f'"{letter}"', "polish-spaced") is ap(letter)
        assert print_formula(ap(letter), "lbt") == f'"{letter}"'
    assert spaced_ap("H1") == "H1"
    assert spaced_ap("Once") == '"Once"'  # Spot's infix reads `X Once` as `X O nce`
    f = spot('"Y" S "Once"')
    assert print_formula(f, "polish-spaced") == 'S "Y" "Once"'
    assert print_formula(f, "lbt") == 'S "Y" "Once"'


# --- printing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Y a", "Ya"),
        ("Z(a & b)", "Z(a & b)"),
        ("O H a", "OHa"),
        ("Y true", "Y(1)"),  # `Y1` would be a name
        ("Z 0", "Z(0)"),
        ("a S (b S c)", "a S b S c"),
        ("(a S b) S c", "(a S b) S c"),
        ("a S (b U c)", "a S b U c"),
        ("(a U b) S c", "(a U b) S c"),
        ("(a S b) & c", "a S b & c"),
        ("a S (b & c)", "a S (b & c)"),
        ("(a T b) T c", "(a T b) T c"),
        ("G(grant -> O req)", "G(grant -> Oreq)"),
        ("!(a S b)", "!(a S b)"),
        ('"Once" T "H1"', '"Once" T H1'),
    ],
)
def test_spot_printer_uses_minimal_parentheses_for_past_operators(text: str, expected: str):
    f = spot(text)
    assert print_formula(f, "spot") == expected == str(f)
    assert spot(expected) is f


@settings(max_examples=300, deadline=None)
@given(formulas(max_leaves=16, past=True))
def test_past_formulas_round_trip_in_every_syntax_that_carries_them(f: Formula):
    for syntax in PAST_SYNTAXES:
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)


@settings(max_examples=300, deadline=None)
@given(formulas(aps=weird_names() | st.sampled_from(PAST_NAMES), max_leaves=10, past=True))
def test_past_formulas_with_any_names_round_trip(f: Formula):
    for syntax in PAST_SYNTAXES:
        text = print_formula(f, syntax)
        assert parse_formula(text, syntax) is f, (syntax, text)
    assert parse_formula(print_formula(f, "spot")) is f  # auto reads Spot's output back


@settings(max_examples=200, deadline=None)
@given(formulas(aps=("req", "grant", "p0", "x_1", "H1", "Sa"), max_leaves=12, past=True))
def test_auto_detection_reads_spaced_past_forms_back(f: Formula):
    for syntax in PAST_SYNTAXES:
        if syntax == "lbt" and _unary_chain_to_constant(f):
            continue  # `Y t` is also valid infix; auto reads it as Spot does
        assert parse_formula(print_formula(f, syntax)) is f, syntax


def _unary_chain_to_constant(f: Formula) -> bool:
    while len(f.children) == 1:
        f = f.children[0]
    return f.is_constant


# --- network Polish stays future-only ------------------------------------------------------


def test_network_polish_refuses_past_operators_on_print():
    for text in ("Y a", "a S b", "G(a -> O b)", "X Z H a", "a T b"):
        with pytest.raises(ValueError, match="network Polish has no past operators; use polish-spaced"):
            print_formula(spot(text), "polish")


def test_network_polish_reads_the_past_letters_as_names():
    assert parse_formula("&SY", "polish") is spot('"S" & "Y"')
    assert parse_formula("UTO", "polish") is spot('"T" U "O"')
    assert print_formula(spot('"S" & "Y"'), "polish") == "&SY"
    with pytest.raises(ParseError):
        parse_formula("Sab", "polish")  # three names, not `a S b`
    data_file = SyntaxGuess()
    data_file.parse("&ab")  # a DeepLTL data file
    assert data_file.parse("|HZ") is spot('"H" | "Z"')
    assert parse_formula("Y") is ap("Y")  # not infix (an operator alone): network Polish's name


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, column, reason",
    [
        ("a S", 3, 'unexpected end of formula, missing right operand for "since operator"'),
        ("a T", 3, 'missing right operand for "triggered operator"'),
        ("Y", 1, 'missing right operand for "yesterday operator" (a proposition named Y is written "Y")'),
        ("G Z", 3, 'missing right operand for "weak yesterday operator"'),
        ("a & O", 5, 'missing right operand for "once operator"'),
        ("H", 1, 'missing right operand for "historically operator"'),
        ("Y & a", 2, 'unexpected and operator (a proposition named Y is written "Y")'),
        ("S & a", 0, 'unexpected since operator (a proposition named S is written "S")'),
        ("T", 0, "unexpected triggered operator"),
        ("a S S b", 4, "unexpected since operator"),
        ("a Y b", 2, "unexpected yesterday operator"),
        ("(O)", 2, "unexpected closing parenthesis"),
        ("O[2] a", 1, "malformed bounded operator: expected O[a..b], O[a,b] or O[<=n]"),
    ],
)
def test_malformed_past_infix_is_located(text: str, column: int, reason: str):
    with pytest.raises(ParseError) as info:
        spot(text)
    assert info.value.column == column, info.value.render()
    assert reason in info.value.reason
    assert info.value.render().split("\n")[1].index("^") == 4 + column


def test_no_hint_for_future_letters():
    with pytest.raises(ParseError) as info:
        spot("X & a")
    assert info.value.reason == "syntax error, unexpected and operator"


@pytest.mark.parametrize(
    "text, syntax, column",
    [("S a", "polish-spaced", 3), ("Y", "polish-spaced", 1), ("S p0", "lbt", 4), ("& Y p0 p1 p2", "lbt", 10)],
)
def test_malformed_past_prefix_input_is_located(text: str, syntax: str, column: int):
    with pytest.raises(ParseError) as info:
        parse_formula(text, syntax)
    assert info.value.column == column, info.value.render()


# --- traces -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, syntax, column, reason",
    [
        ("Y a; cycle{b}", "auto", 0, "trace step is not propositional"),
        ("a; cycle{b S c}", "auto", 9, "trace step is not propositional"),
        ("a; cycle{b S c}", "spot", 9, "trace step is not propositional"),
        ("Once; cycle{b}", "spot", 0, "trace step is not propositional"),
        ("a; cycle{& b Y c}", "auto", 9, "trace step is not propositional"),
        ("Y & a; cycle{b}", "auto", 2, 'unexpected and operator (a proposition named Y is written "Y")'),
        ("a; cycle{H}", "spot", 10, 'missing right operand for "historically operator"'),
    ],
)
def test_past_trace_steps_are_errors(text: str, syntax: str, column: int, reason: str):
    with pytest.raises(ParseError) as info:
        parse_trace(text, syntax)
    assert info.value.column == column, info.value.render()
    assert reason in info.value.reason
    assert info.value.text == text


def test_trace_steps_with_past_letter_names_print_quoted_and_read_back():
    t = Trace((ap("Y"), spot('"Once" & !"S"')), (ap("H1"), ap("T")))
    assert print_trace(t, "spot") == '"Y"; "Once" & !"S"; cycle{H1; "T"}'
    assert print_trace(t, "lbt") == '"Y"; & "Once" ! "S"; cycle{"H1"; "T"}'
    assert print_trace(t, "polish-spaced") == '"Y";& "Once" ! "S";{H1;"T"}'
    for syntax in ("spot", "polish", "polish-spaced", "lbt"):
        assert parse_trace(print_trace(t, syntax)) == t, syntax
    assert parse_trace(print_trace(t, "spot"), "spot") == t
    single = Trace((ap("Y"),), (spot('"S" & !"O"'),))
    assert print_trace(single, "polish") == "Y;{&S!O}"  # network Polish: the letters are names
    assert parse_trace("Y;{&S!O}", "polish") == single
    assert parse_trace("Y;{&S!O}") == single


# --- ltlwit fmt ----------------------------------------------------------------------------------


def test_fmt_to_spot_refuses_past_formulas_and_converts_the_rest(tmp_path):
    path = tmp_path / "specs.txt"
    path.write_text("a U b\nG(grant -> O req)\nS p0 p1\n!c\n")
    result = run("fmt", "--to", "spot", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == "a U b\nERROR\nERROR\n!c\n"
    message = (
        "cannot print in spot syntax: Spot's syntax has no past operators (Y, Z, S, T, O, H); "
        "--to infix, --to lbt and --to polish-spaced carry them"
    )
    assert result.stderr.splitlines() == [f"ltlwit: {path}:2: {message}", f"ltlwit: {path}:3: {message}"]
    single = run("fmt", "--to", "spot", "a S b", "a & b")
    assert (single.exit_code, single.stdout) == (2, "ERROR\na & b\n")
    assert single.stderr == f"ltlwit: <arg 1>: {message}\n"


@pytest.mark.parametrize("to, expected", [("lbt", 'G i "grant" O "req"'), ("polish-spaced", "G -> grant O req")])
def test_fmt_to_the_prefix_syntaxes_carries_past_operators(to: str, expected: str):
    result = run("fmt", "--to", to, "G(grant -> O req)", "(p S q) T r")
    assert result.exit_code == 0 and result.stderr == ""
    out = result.stdout.splitlines()
    assert out[0] == expected
    assert parse_formula(out[1], to) is spot("(p S q) T r")


def test_fmt_to_network_polish_refuses_past_formulas():
    result = run("fmt", "--to", "polish", "Y a", "&ab")
    assert (result.exit_code, result.stdout) == (2, "ERROR\n&ab\n")
    assert result.stderr == (
        "ltlwit: <arg 1>: cannot print in polish syntax: network Polish has no past operators; use polish-spaced\n"
    )


# --- BLACK's own past formulas -------------------------------------------------------------------


def test_blacks_past_benchmarks_read_and_round_trip():
    """BLACK writes its LTL+Past suite in these letters: every 20th formula of our half of it
    reads in infix and with auto-detection alike, and prints back in each past syntax."""
    with gzip.open(shared_file("black-past/past.jsonl.gz"), "rt") as fh:
        rows = [json.loads(line) for line in fh][::20]
    for row in rows:
        f = spot(row["formula"])
        assert f.past, row["name"]
        assert parse_formula(row["formula"]) is f, row["name"]
        for syntax in PAST_SYNTAXES:
            assert parse_formula(print_formula(f, syntax), syntax) is f, (row["name"], syntax)
