"""Spot's infix syntax: precedence, aliases, UTF-8 operators and the AP lexing rule."""

from __future__ import annotations

import pytest

from ltlwit.logic.formula import FALSE, TRUE, Formula, ap
from ltlwit.logic.syntax import ParseError, parse_formula


def spot(text: str) -> Formula:
    return parse_formula(text, "spot")


def tree(f: Formula) -> str:
    """A fully parenthesised prefix rendering, to compare structures at a glance."""
    if f.op == "ap":
        return f.name
    if not f.children:
        return f.op
    return "(" + " ".join([f.op] + [tree(c) for c in f.children]) + ")"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a -> b -> c", "(-> a (-> b c))"),
        ("a <-> b -> c", "(<-> a (-> b c))"),
        ("a -> b | c", "(-> a (| b c))"),
        ("a | b xor c", "(| a (xor b c))"),
        ("a xor b & c", "(xor a (& b c))"),
        ("a & b U c", "(& a (U b c))"),
        ("a U b R c W d M e", "(U a (R b (W c (M d e))))"),
        ("a & b & c", "(& (& a b) c)"),
        ("a | b | c", "(| (| a b) c)"),
        ("a xor b xor c", "(xor (xor a b) c)"),
        ("F a U b", "(U (F a) b)"),
        ("X a U b", "(U (X a) b)"),
        ("!a U b", "(U (! a) b)"),
        ("!F a U b", "(U (! (F a)) b)"),
        ("G F a", "(G (F a))"),
        ("a U X b", "(U a (X b))"),
        ("a * b & c", "(& (& a b) c)"),
        ("a & b * c", "(& a (& b c))"),
        ("a * b U c", "(& a (U b c))"),
    ],
)
def test_precedence_and_associativity_follow_spot(text: str, expected: str):
    assert tree(spot(text)) == expected


@pytest.mark.parametrize(
    "alias, canonical",
    [
        ("[]a", "G a"),
        ("<>a", "F a"),
        ("()a", "X a"),
        ("a && b", "a & b"),
        ("a || b", "a | b"),
        ("a /\\ b", "a & b"),
        ("a \\/ b", "a | b"),
        ("a => b", "a -> b"),
        ("a <=> b", "a <-> b"),
        ("a ^ b", "a xor b"),
        ("a V b", "a R b"),
        ("~a", "!a"),
        ("a --> b", "a -> b"),
        ("a <--> b", "a <-> b"),
        ("a + b", "a | b"),
        ("true", "1"),
        ("false", "0"),
        ("TRUE", "1"),
        ("False", "0"),
        ("¬a", "!a"),
        ("a ∧ b", "a & b"),
        ("a ∨ b", "a | b"),
        ("a → b", "a -> b"),
        ("a ↔ b", "a <-> b"),
        ("a ⊕ b", "a xor b"),
        ("○a", "X a"),
        ("◇a", "F a"),
        ("□a", "G a"),
        ("a ⇒ b", "a -> b"),
        ("a ⇔ b", "a <-> b"),
        ("a ⟶ b", "a -> b"),
        ("◯a", "X a"),
        ("⋄a", "F a"),
        ("◻a", "G a"),
        ("a ∩ b", "a & b"),
        ("a ∪ b", "a | b"),
        ("a̅", "!a"),
        ("a=0", "!a"),
        ("a=1", "a"),
        ("X[]a", "X G a"),
        ("a /* comment /* nested */ */ U b", "a U b"),
    ],
)
def test_aliases_read_like_their_canonical_spelling(alias: str, canonical: str):
    assert spot(alias) is spot(canonical)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("GFa", "(G (F a))"),
        ("XXa", "(X (X a))"),
        ("aUb", "aUb"),
        ("Ua", "Ua"),
        ("U", None),
        ("a Ub", "(U a b)"),
        ("(a)Ub", "(U a b)"),
        ("F0", "F0"),
        ("X1y", "X1y"),
        ("Xp0", "(X p0)"),
        ("Fack", "(F ack)"),
        ("FGXreq", "(F (G (X req)))"),
        ("trueish", "trueish"),
        ("xor_gate", "xor_gate"),
        ("a.b_c9", "a.b_c9"),
        ("Falsey", None),
    ],
)
def test_names_versus_operator_letters_follow_spots_lexer(text: str, expected: str | None):
    if expected is None:
        with pytest.raises(ParseError):
            spot(text)
    else:
        assert tree(spot(text)) == expected


def test_quoted_names_hold_any_characters():
    f = spot('"x < 3" U "say \\"hi\\"" & "U" & "a;b{}"')
    assert f.aps() == ("x < 3", 'say "hi"', "U", "a;b{}")
    assert spot('"G"') is ap("G")
    assert spot('"true"') is ap("true")
    assert spot("true") is TRUE and spot("0") is FALSE


def test_constants_and_spaces_are_flexible():
    assert spot("  ( a )  ") is ap("a")
    assert spot("a\tU\nb") is spot("a U b")
    assert tree(spot("1 U a")) == "(U 1 a)"


@pytest.mark.parametrize(
    "text, column",
    [("{a;b}", 0), ("a U {b}", 4), ("Y[2] a", 0), ("first_match(a)", 0), ("a |-> b", 2), ("a[*]", 1), ("##1 a", 0)],
)
def test_psl_and_bounded_syntax_is_reported_as_unsupported(text: str, column: int):
    with pytest.raises(ParseError, match="unsupported") as info:
        spot(text)
    assert info.value.column == column


def test_bounded_past_needs_both_bounds():
    """nuXmv's bounded past is `O[a,b]`, `H[a,b]`; one number is an error under the bracket."""
    with pytest.raises(
        ParseError, match=r"malformed bounded operator: expected O\[a..b\], O\[a,b\] or O\[<=n\]"
    ) as info:
        spot("O[2] a")
    assert info.value.column == 1
