"""Formulas over data as BLACK, nuXmv and FRET write them: what they parse to, how they print
back, where their errors are, and that formulas without data still read as Spot reads them."""

from __future__ import annotations

import re

import pytest

from ltlwit.logic.formula import ATOM, Formula, ap
from ltlwit.logic.syntax import ParseError, parse_formula
from ltlwit.logic.theory.terms import offsets


def tree(f: Formula) -> str:
    """Operators in prefix with atoms as their text: the structure, spelled out."""
    if f.op == ATOM:
        return f"[{f.term}]"
    if f.name is not None:  # an AP
        return f.name
    if not f.children:
        return f.op
    return "(" + " ".join([f.op, *(tree(c) for c in f.children)]) + ")"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(x = 0) & G(wnext(x) = x + 1) & F(x = 20)", "(& (& [x = 0] (G [wnext(x) = x + 1])) (F [x = 20]))"),
        ("G wnext(c) = 10.0 * c", "(G [wnext(c) = 10.0 * c])"),  # a unary operator takes the whole comparison
        ("!x = 1", "(! [x = 1])"),
        ("X a U b & x > 1", "(& (U (X a) b) [x > 1])"),  # still tighter than every binary connective
        ("-x + y * -3 < (a - (b - c)) / 2", "[-x + y * -3 < (a - (b - c)) / 2]"),
        ("p = TRUE & x != 2", "(& (<-> p 1) [x != 2])"),  # Booleans compared: an equivalence
        ("det_3x3(a, b, c) | q", "(| [det_3x3(a, b, c)] q)"),  # a predicate where a formula stands
        ("f(g(c)) != c", "[f(g(c)) != c]"),
        ("x > 1 xnor y < 2", "(<-> [x > 1] [y < 2])"),
        ("x > 1 V y < 2", "(R [x > 1] [y < 2])"),
        ("next(x) > x & prev(y) = wprev(y)", "(& [next(x) > x] [prev(y) = wprev(y)])"),
        ("(x + 1) > y", "[x + 1 > y]"),
        ("1 & x > 0", "(& 1 [x > 0])"),  # 1 and 0 standing for formulas are the constants
        ("x > 1 /* a comment */ & y / 2 < 3", "(& [x > 1] [y / 2 < 3])"),
        ("G -x > 0", "(G [-x > 0])"),  # a unary operator's letter before a minus is the operator
        ("x<-1", "[x < -1]"),  # no arrow: a comparison
    ],
)
def test_data_formulas_parse_as_meant(text: str, expected: str) -> None:
    assert tree(parse_formula(text)) == expected


def test_operators_are_whole_words_and_letters_can_be_names() -> None:
    """BLACK's and nuXmv's lexing: `GFa` and `FC` are names; an operator's letter where it
    cannot be one is a name too (FRET's variables T and H)."""
    assert parse_formula("G F a & x > 1").children[0] is parse_formula("G F a")
    assert tree(parse_formula("GFa & FC = 2")) == "(& GFa [FC = 2])"
    assert tree(parse_formula("x <= T * 2")) == '[x <= "T" * 2]'  # printed quoted: read back as the name
    assert tree(parse_formula("H = 3 & G p")) == '(& ["H" = 3] (G p))'


def test_bounded_operators_spell_out() -> None:
    """nuXmv's `O[a,b]`/`H[a,b]` (inclusive; the strong `Y` and the weak `Z`), `F[a,b]`,
    `G[a,b]` with a comma as in nuXmv."""
    assert parse_formula("O[1,2] (x > 0)") is parse_formula("Y(x > 0 | Y(x > 0))")
    assert parse_formula("H[0,1] (x > 0)") is parse_formula("x > 0 & Z(x > 0)")
    assert parse_formula("F[1,2] (x > 0)") is parse_formula("X(x > 0 | X(x > 0))")
    assert parse_formula("G[0,1] (x > 0)") is parse_formula("x > 0 & wX(x > 0)")


def test_fret_s_bounds_up_to_n() -> None:
    """FRET's `O[<=n]` is `O[0,n]`, `O[<n]` `O[0,n-1]` and `O[=n]` `O[n,n]`, for F, G and H too; older
    exports write them so (`O[<= 200 ]` once its HTML is taken out)."""
    assert parse_formula("O[<= 2 ] (x > 0)") is parse_formula("O[0,2] (x > 0)")
    assert parse_formula("H[<3] (x > 0)") is parse_formula("H[0,2] (x > 0)")
    assert parse_formula("F[<=1] (x > 0)") is parse_formula("F[0,1] (x > 0)")
    assert parse_formula("G[<1] (x > 0)") is parse_formula("x > 0")
    assert parse_formula("O[= 2] (x > 0)") is parse_formula("O[2,2] (x > 0)")


def test_pre_bool_is_spelled_out() -> None:
    """FRET's `preBool(init, e)`: `init` at the first instant, e at the previous one after."""
    assert parse_formula("preBool(FALSE, p) & x > 0") is parse_formula("(!Y 1 & 0 | Y p) & x > 0")


@pytest.mark.parametrize(
    "text",
    [
        "(x = 0) & G(wnext(x) = x + 1) & F(x = 20)",
        "G(mode = on -> X(mode = off)) & F(speed >= 2.5)",
        "absReal(Psi - Cmd) <= 1.0 & preReal(113.0, Psi - Cmd) > -1 - -2",
        "-(-x) > 0 & -(a + b) < a - (b - c)",
        "x / y * 3 = 1.0 / 3 & x mod 2 = 1",
        '"Grant" & x > 1 & "T" = 1',
        "O[0,3] (x > 1) & H[2,3] p",
        "f(n) = 2 * f(n - 1) + c & det(a, b)",
    ],
)
def test_printing_reads_back_as_the_same_formula(text: str) -> None:
    f = parse_formula(text)
    assert parse_formula(f.to_str("spot")) is f
    assert parse_formula(f.to_str("infix")) is f


def test_other_syntaxes_say_they_have_no_data_atoms() -> None:
    f = parse_formula("x > 1 & G p")
    for syntax in ("lbt", "polish", "polish-spaced"):
        with pytest.raises(ValueError, match="no data atoms"):
            f.to_str(syntax)


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("x + 1 & p > 0", 0, "an arithmetic term where a formula was expected"),
        ("x > (p & q)", 4, "a formula where a term"),
        ("x < y < z", 0, "comparisons do not nest"),
        ("absReal(x) & p", 0, "is a number, not a formula"),
        ("next(x, y) > 0", 0, "next takes one argument, not 2"),
        ("preReal(x) > 0", 0, "preReal takes 2 arguments, not 1"),
        ("forall x . f(x) > 0", 0, "unsupported: quantifiers"),
        ("x > 1 & 7", 8, "a number where a formula was expected"),
        ("x > 1 & (y = )", 13, "unexpected closing parenthesis"),
        ("x > 1 & {a}", 8, "PSL/SERE syntax"),
        ("O[3,1] (x > 0)", 1, "reversed range"),
        ("O[<0] (x > 0)", 1, "empty range in O[<0]"),
        ("F[<=1001] (x > 0)", 1, "bound 1001 too large"),
        ("H[<= 200 sec] (x > 0)", 1, "expected H[a..b], H[a,b] or H[<=n]"),
        ("absreal(x) > 1", 0, "unknown function absreal (did you mean absReal?)"),
        ("G(PreReal(0, x) < 1)", 2, "unknown function PreReal (did you mean preReal?)"),
        # Python converts at most 4,300 digits, and said so in its words: ltlwit's, with a caret
        ("G(x > " + "7" * 5000 + ")", 6, "numeral 777777777777... (5,000 digits) too long (at most 4,000 characters)"),
        ("F(x = 0." + "5" * 4000 + ")", 6, "numeral 0.5555555555... (4,002 digits) too long"),
        ("F[<=" + "9" * 5000 + "] (x > 0)", 1, "bound 999999999999... (5,000 digits) too large in F[..]"),
    ],
)
def test_errors_have_their_column(text: str, column: int, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        parse_formula(text)
    assert info.value.column == column


def test_the_longest_numeral_reads() -> None:
    formula = parse_formula("G(x > " + "7" * 4000 + ")")
    assert str(formula).count("7") == 4000


def test_formulas_without_data_read_as_spot_reads_them() -> None:
    """Wring's suffixes, Spot's `+` and `*`, quoted names holding `<`: no data reading."""
    assert parse_formula("a=0 & b=1") is parse_formula("!a & b")
    assert parse_formula("a + b * c") is parse_formula("a | b & c")
    assert parse_formula('"x < 3" U b').children[0] is ap("x < 3")
    assert not parse_formula('"x < 3" U b').data


def test_offsets_say_where_and_how_strongly_an_atom_reads() -> None:
    atom = parse_formula("next(wnext(x)) + prev(y) > wprev(z)").term
    assert atom is not None
    assert sorted(offsets(atom)) == [("x", 2, True), ("y", -1, True), ("z", -1, False)]


@pytest.mark.parametrize(
    "text, same",
    [
        ("[](x > 1) & <>(x < 3)", "G(x > 1) & F(x < 3)"),
        ("□ (x > 1) ∨ ¬(x = 2) ∧ ◇ p", "G(x > 1) | !(x = 2) & F p"),
        ("(x > 1) /\\ (x < 3) \\/ (x = 7) → ○(x = 3)", "(x > 1) & (x < 3) | (x = 7) -> X(x = 3)"),
    ],
)
def test_spot_spellings_read_in_data_formulas(text: str, same: str) -> None:
    assert parse_formula(text) == parse_formula(same)


def test_quoted_functions_are_calls_and_builtins_keep_their_names() -> None:
    """Witnesses quote a function named as an operator (`"R"(3) = 2`): that reads back."""
    assert parse_formula('"R"(x) > 1') == parse_formula("R(x) > 1")
    with pytest.raises(ParseError, match="next is built in: a function of its own needs another name"):
        parse_formula('"next"(x) > 0')


# -- nuXmv's text: LTLSPEC statements, `--` comments, case ---------------------------------


@pytest.mark.parametrize(
    "text, same",
    [
        ("LTLSPEC NAME r1 := G(x > 3);", "G(x > 3)"),
        ("LTLSPEC G(x > 3)", "G(x > 3)"),
        ("G(x > 3);", "G(x > 3)"),
        ("INVARSPEC x > 3;", "G(x > 3)"),  # an invariant: at every instant, the whole formula
        ("INVARSPEC NAME inv := x > 3 -> p", "G(x > 3 -> p)"),
        ("G(x > 3) -- a note: y < 1", "G(x > 3)"),
        ("G(x > 3) -- first\n & F p; -- the end", "G(x > 3) & F p"),
        ("LTLSPEC NAME r2 := G(p -> F q); -- no data atom at all", "G(p -> F q)"),
        ("G p -- Spot's reading fails at the comment", "G p"),
        ('x > 1 & "a--b"', 'x > 1 & "a--b"'),  # inside a quoted name, no comment
        ("x > 1 /* -- */ & p", "x > 1 & p"),
        ("a --> b", "a -> b"),  # Spot's long arrow is no comment
    ],
)
def test_nuxmv_statements_and_comments_read_as_nuxmv_reads_them(text: str, same: str) -> None:
    assert parse_formula(text) is parse_formula(same)
    if text != "a --> b":
        assert parse_formula(text, "nuxmv") is parse_formula(same, "nuxmv")


@pytest.mark.parametrize(
    "text, expected",
    [
        # a Boolean case: the first branch whose condition holds
        ("case x > 3 : p; TRUE : q; esac", "(| (& [x > 3] p) (& (! [x > 3]) q))"),
        ("case a : p; b : q; TRUE : r; esac", "(| (& a p) (& (! a) (| (& b q) (& (! b) r))))"),
        # a term case in a comparison: a disjunct per branch, guarded by the earlier conditions
        (
            "case x > 3 : 1; x > 0 : 2; TRUE : 3; esac = y",
            "(| (| (& [x > 3] [1 = y]) (& (& (! [x > 3]) [x > 0]) [2 = y])) (& (& (! [x > 3]) (! [x > 0])) [3 = y]))",
        ),
        ("y + case p : 1; TRUE : 2; esac > 0", "(| (& p [y + 1 > 0]) (& (! p) [y + 2 > 0]))"),
        ("f(case p : 1; TRUE : x; esac)", "(| (& p [f(1)]) (& (! p) [f(x)]))"),
        (
            "case p : 1; TRUE : 2; esac < case q : 1; TRUE : 2; esac",
            "(| (| (| (& (& p q) [1 < 1]) (& (& p (! q)) [1 < 2])) (& (& (! p) q) [2 < 1])) (& (& (! p) (! q)) [2 < 2]))",
        ),
        ("case p : TRUE; TRUE : q; esac = r", "(<-> (| (& p 1) (& (! p) q)) r)"),  # Booleans compared
        ("case p : 1; TRUE : 2; q : 3; esac = y", "(| (& p [1 = y]) (& (! p) [2 = y]))"),  # never taken
        (
            "G(case mode = on : next(x) = x + 1; TRUE : next(x) = x; esac)",
            "(G (| (& [mode = on] [next(x) = x + 1]) (& (! [mode = on]) [next(x) = x])))",
        ),
    ],
)
def test_case_spells_out_as_the_first_branch_whose_condition_holds(text: str, expected: str) -> None:
    assert tree(parse_formula(text)) == expected


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("case x > 3 : 1; x <= 3 : 2; esac = y", 16, "a case whose last condition is not TRUE"),
        ("case p : q; esac", 5, "end the case with a branch `TRUE : value;`"),
        ("next(case p : 1; TRUE : 2; esac) = y", 0, "unsupported: a case inside next(...)"),
        ("preReal(0, case p : 1; TRUE : 2; esac) = y", 0, "unsupported: a case inside preReal(...)"),
        ("case p : 1; TRUE : 2 = y", 0, "a case without esac"),
        ("case p : 1 : 2; esac = y", 11, "unexpected ':' (a case's branches are `condition : value;`"),
        ("case p ; 1; esac = y", 7, "unexpected ';' (a case's branches"),
        ("case esac = y", 5, "unexpected esac"),
        ("(case p : 1; TRUE : 2) = y", 21, "unexpected closing parenthesis inside a case"),
        ("x > 1; y > 2", 5, "unexpected ';'"),  # one formula a statement
        ("LTLSPEC NAME r1 := ;", 19, "no formula after LTLSPEC"),
        ("LTLSPEC NAME r1 := G(x > ) -- note", 25, "unexpected closing parenthesis"),  # columns of the text as written
    ],
)
def test_nuxmv_errors_have_their_column(text: str, column: int, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        parse_formula(text)
    assert info.value.column == column
    assert info.value.text == text
