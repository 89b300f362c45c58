"""Network Polish, spaced Polish, LBT, and how `auto` chooses between the syntaxes."""

from __future__ import annotations

import gzip

import pytest
from shared_data import shared_file

from ltlwit.logic.formula import ap
from ltlwit.logic.syntax import SYNTAXES, ParseError, parse_formula, print_formula
from ltlwit.logic.syntax.detect import SyntaxGuess


def spot(text: str):
    return parse_formula(text, "spot")


@pytest.mark.parametrize(
    "text, infix",
    [
        ("&Uab!Xc", "(a U b) & !Xc"),
        ("xorab", "a xor b"),
        ("<->a->bc", "a <-> (b -> c)"),
        ("|!a1", "!a | 1"),
        ("RFaGWbMcd", "Fa R G(b W (c M d))"),
        ("  &ab  ", "a & b"),
    ],
)
def test_network_polish(text: str, infix: str):
    assert parse_formula(text, "polish") is spot(infix)
    data_file = SyntaxGuess()
    assert data_file.parse("&ab") is spot("a & b")  # a line only Polish reads, as in DeepLTL data
    assert data_file.parse(text) is spot(infix)


def test_polish_with_spaces_is_the_spaced_form():
    f = spot('(req U "x < 3") & !X ack')
    assert parse_formula('& U req "x < 3" ! X ack', "polish") is f
    assert parse_formula('& U req "x < 3" ! X ack', "polish-spaced") is f
    assert print_formula(f, "polish-spaced") == '& U req "x < 3" ! X ack'
    g = spot('"U" & "1" & "xor" & t')
    assert print_formula(g, "polish-spaced") == '& & & "U" "1" "xor" "t"'  # bare, LBT's `t` would be 1
    assert parse_formula('& & & "U" "1" "xor" "t"') is g


@pytest.mark.parametrize(
    "text, infix",
    [
        ('V i p0 "req" ^ e t f M W X F G ! p1 p2 p3', "(p0 -> req) R ((1 <-> 0) xor ((XFG!p1 W p2) M p3))"),
        ("& | U p4 p5 p6 R p7 p8", "((p4 U p5) | p6) & (p7 R p8)"),
        ("&p0!p1", "p0 & !p1"),
        ('& "a b" p2', '"a b" & p2'),
        ("U req ack", "req U ack"),
    ],
)
def test_lbt_reads_spot_and_ltl2dstar_spellings(text: str, infix: str):
    f = parse_formula(text, "lbt")
    assert f is spot(infix)
    assert parse_formula(print_formula(f, "lbt"), "lbt") is f


@pytest.mark.parametrize(
    "text, infix",
    [
        ("&Uab!Xc", "(a U b) & !Xc"),  # network Polish
        ("G(a -> F b)", "G(a -> F b)"),  # infix
        ("GFa", "G F a"),  # same in every syntax
        ("a", "a"),
        ("Xa", "X a"),
        ("aUb", '"aUb"'),  # not valid Polish, so Spot's name rule applies
        ("a&b", "a & b"),
        ("p0", "p0"),
        ("true", "1"),
        ("F | G e F e", "F(G e | F e)"),  # spaced Polish
        ("& U req b ! X c", "(req U b) & !X c"),
        ("-> a <-> b 1", "a -> (b <-> 1)"),
        ('& U "req" "b" ! X "c"', "(req U b) & !X c"),  # LBT
        ("i p0 e p1 t", "p0 -> (p1 <-> 1)"),
        ("V p0 ^ p1 f", "p0 R (p1 xor 0)"),
        ("X U ! M e X b xor a d", "X(!(e M X b) U (a xor d))"),  # `xor` decides for Polish
        ("& t p0", "1 & p0"),  # `t` decides for LBT
        ("& t a", "t & a"),  # but LBT proper has no name `a`: spaced Polish
        ("& G ! t a", "G!t & a"),  # what `ltlwit fmt --to polish-spaced` prints
        ('&"a""b"', "a & b"),  # unspaced LBT with quoted names
        ("X ! G a", "X!Ga"),
    ],
)
def test_auto_detection(text: str, infix: str):
    assert parse_formula(text, "auto") is spot(infix)


def test_strings_both_spot_and_polish_read_as_spot_unless_the_source_is_polish():
    # Spot reads operator-looking words as names: so does auto, as a Spot user means them.
    for text, infix in [("Uab", '"Uab"'), ("Req", '"Req"'), ("!Req", '!"Req"'), ("G!X1", 'G!"X1"'), ("F0", '"F0"')]:
        assert parse_formula(text) is spot(infix), text
    assert parse_formula("Uab", "polish") is spot("a U b")
    data_set = SyntaxGuess()  # lines of one file: Polish-only lines so far make it a data set
    assert data_set.parse("Uab") is ap("Uab")  # no evidence yet
    assert data_set.parse("!&ab") is spot("!(a & b)")  # only Polish reads this
    assert data_set.parse("UX0&cXe") is spot("(X 0) U (c & X e)")
    assert data_set.parse("G!X1") is spot("G!X 1")
    assert data_set.parse("a&b") is spot("a & b")  # only Spot reads this: the file is not a data set
    assert data_set.parse("UX0&cXe") is spot('"UX0" & "cXe"')


def test_unknown_syntax_is_a_value_error_not_a_parse_error():
    assert SYNTAXES == ("auto", "spot", "polish", "polish-spaced", "lbt", "nuxmv")
    with pytest.raises(ValueError) as info:
        parse_formula("a", "ltl")
    assert not isinstance(info.value, ParseError)
    with pytest.raises(ValueError):
        print_formula(ap("a"), "auto")
    with pytest.raises(TypeError):
        parse_formula(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["ltl35/test", "prop35/test"])
def test_data_set_formulas_round_trip_through_network_polish(name: str):
    lines = gzip.open(shared_file(f"{name}.txt.gz"), "rt").read().splitlines()[:4000:2]
    data_file = SyntaxGuess()  # auto-detection over the file's lines, as `solve -F FILE` does
    for line in lines:
        f = parse_formula(line, "polish")
        assert print_formula(f, "polish") == line
        assert data_file.parse(line) is f
        assert parse_formula(print_formula(f, "spot"), "spot") is f
