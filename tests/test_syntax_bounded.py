"""Spot's bounded operators `X[n]`, `F[n..m]`, `G[n..m]`: sugar, spelled out with the plain
operators when read (strong `X` for `X` and `F`, weak `wX` for `G`), in Spot's infix syntax only."""

from __future__ import annotations

import pytest
from cli_support import run

from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl import finite, holds
from ltlwit.logic.syntax import ParseError, parse_formula, parse_trace
from ltlwit.logic.syntax.infix_lex import MAX_BOUND


def spot(text: str) -> Formula:
    return parse_formula(text, "spot")


@pytest.mark.parametrize(
    "text, spelled",
    [
        ("X[3] a", "X X X a"),
        ("X[1] a", "X a"),
        ("X[0] a", "a"),
        ("X [ 2 ] a", "X X a"),
        ("X[2]X[!]a", "X X X a"),
        ("F[0..0] b", "b"),
        ("F[1..2] b", "X(b | X b)"),
        ("F[2..4] b", "X X(b | X(b | X b))"),
        ("F[2:4] b", "X X(b | X(b | X b))"),
        ("F [ 2 .. 4 ] b", "X X(b | X(b | X b))"),
        ("F[2..] b", "X X F b"),
        ("F[0:] b", "F b"),
        ("G[0..2] c", "c & wX(c & wX c)"),
        ("G[1:2] c", "wX(c & wX c)"),
        ("G[3..] c", "wX wX wX G c"),
        ("G[0..1](a U b)", "(a U b) & wX(a U b)"),
        ("!F[1..2] a U b", "!X(a | X a) U b"),  # binds as F does
        ("G(req -> F[1..3] grant)", "G(req -> X(grant | X(grant | X grant)))"),
        ("F[1..2]G[0..1]a", "X(G[0..1]a | X G[0..1]a)"),
    ],
)
def test_bounded_operators_are_spelled_out(text: str, spelled: str) -> None:
    assert spot(text) is spot(spelled)  # formulas are hash-consed: equal is identical
    assert parse_formula(text, "auto") is spot(text)


def test_the_spelled_out_form_prints_and_reads_back() -> None:
    f = spot("F[1..2] b & G[0..1] c")
    assert f.to_str("spot") == "X(b | Xb) & (c & wX c)"
    assert spot(f.to_str("spot")) is f


def test_largest_bound_is_accepted() -> None:
    assert spot(f"X[{MAX_BOUND}] a").size == MAX_BOUND + 1


@pytest.mark.parametrize(
    "text, column, width, reason",
    [
        ("F[4..2] a", 1, 6, "reversed range in F[4..2]: the upper bound is below the lower one"),
        ("G [3:1] a", 2, 5, "reversed range in G[3..1]"),
        (f"X[{MAX_BOUND + 1}] a", 1, 6, f"bound {MAX_BOUND + 1} too large in X[..] (at most {MAX_BOUND})"),
        ("F[0..99999999999999999999] a", 1, 25, "bound 99999999999999999999 too large in F[..]"),
        ("G[2000..] a", 1, 8, "bound 2000 too large in G[..]"),
        ("X[1..2] a", 1, 6, "malformed bounded operator: expected X[n] or X[!]"),
        ("F[2] a", 1, 3, "malformed bounded operator: expected F[n..m], F[n:m] or F[n..]"),
        ("G[..3] a", 1, 5, "malformed bounded operator: expected G[n..m]"),
        ("F[a..b] a", 1, 6, "malformed bounded operator"),
        ("F[1..2 a", 1, 7, "malformed bounded operator"),
    ],
)
def test_bad_brackets_are_marked_under_the_bracket(text: str, column: int, width: int, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        spot(text)
    assert (info.value.column, info.value.length) == (column, width), info.value.render()
    assert reason in info.value.reason, info.value.reason
    assert info.value.render().split("\n")[1] == " " * (4 + column) + "^" * width


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{a;b[*]}[]-> c", "unsupported: PSL/SERE syntax ('{')"),
        ("Y[2] a", "unsupported: bounded operator Y[..] ('Y[')"),
        ("wX[2] a", "unsupported: bounded operator wX[..] ('wX[')"),
    ],
)
def test_psl_and_past_brackets_stay_unsupported(text: str, reason: str) -> None:
    with pytest.raises(ParseError) as info:
        spot(text)
    assert info.value.reason == reason
    assert info.value.column == 0


@pytest.mark.parametrize("text, expanded", [("H[1..2] a", "Z(a & Za)"), ("O[0,1] a", "a | Ya")])
def test_bounded_past_as_fret_writes_it(text: str, expanded: str) -> None:
    """`H[a,b]`, `O[a,b]`: the instants a..b steps back; the ones before the first instant are
    missing, vacuous for H (a weak yesterday), failing for O (a strong one)."""
    assert spot(text) == spot(expanded)


def test_other_syntaxes_are_unchanged() -> None:
    with pytest.raises(ParseError):
        parse_formula("F[1..2] a", "polish-spaced")
    with pytest.raises(ParseError):
        parse_formula("X[2]a", "polish")


@pytest.mark.parametrize(
    "formula, trace, expected",
    [
        ("G[0..5] c", "c; c; c", True),  # weak nexts: instants 3 to 5 do not exist
        ("G[0..5] c", "c; !c; c", False),
        ("G[1..2] c", "!c; c", True),
        ("G[3..] c", "!c; !c", True),
        ("F[2..4] b", "b; b", False),  # strong nexts: instant 2 must exist
        ("F[2..4] b", "1; 1; b", True),
        ("F[2..4] b", "1; 1; !b; !b; b", True),
        ("F[2..4] b", "1; 1; !b; !b; !b; b", False),
        ("X[2] a", "1; a", False),
        ("X[2] a", "1; 1; a", True),
        ("F[1..] a", "a; !a", False),
        ("F[1..] a", "a; !a; a", True),
    ],
)
def test_finite_semantics(formula: str, trace: str, expected: bool) -> None:
    f, t = spot(formula), parse_trace(trace)
    assert t.finite
    assert finite.holds(f, t) is expected
    assert holds(f, t) is expected


def test_infinite_semantics_are_spots() -> None:
    assert holds(spot("F[2..4] b"), parse_trace("1; 1; 1; cycle{b}"))
    assert not holds(spot("F[2..4] b"), parse_trace("1; 1; 1; 1; 1; cycle{b}"))
    assert holds(spot("G[1..2] c"), parse_trace("!c; c; c; cycle{!c}"))
    assert not holds(spot("G[1..2] c"), parse_trace("!c; c; cycle{!c}"))


def test_solve_prints_a_witness() -> None:
    result = run("solve", "F[2..4] b")
    assert result.exit_code == 0, result.stderr
    witness = parse_trace(result.stdout.strip())
    assert holds(spot("F[2..4] b"), witness)
    assert result.stderr == ""


def _nested(op: str, count: int, inner: str) -> Formula:
    return parse_formula(op * count + " " + inner)


def test_nested_bounded_past_shares_its_copies_and_its_names_are_read_once_each() -> None:
    """`O[<=3]` nested 8 times is 4^8 copies of `a` as a tree, but a few dozen distinct nodes:
    the names of a formula (finite semantics' alive proposition is named from them) are found
    in one visit of each distinct node (a walk of the tree had taken seconds at 10 nestings,
    minutes at 16, for a formula that solves at once)."""
    from ltlwit.logic.formula import TICK, postorder

    for op in ("O[<=3]", "H[0,3]"):
        f = _nested(op, 8, "a")
        nodes = len(postorder(f))
        assert nodes < 100
        ticks: list[None] = []
        assert f.aps(tick=lambda: ticks.append(None)) == ("a",)
        assert len(ticks) <= nodes // TICK  # the tree's 4^8 leaves would have ticked 16 times


def test_nested_bounded_past_expands_each_template_once(monkeypatch) -> None:
    """Declare's templates are expanded once per distinct atom, not once per copy a bounded
    operator's spelling shares (4^8 copies here)."""
    from ltlwit.logic import declare

    calls: list[object] = []
    template = declare._template
    monkeypatch.setattr(declare, "_template", lambda node: calls.append(node) or template(node))
    f = declare.expanded(_nested("O[<=3]", 8, "response(a, b)"))
    assert len(calls) == 1
    assert f == _nested("O[<=3]", 8, "G(a -> F b)")
