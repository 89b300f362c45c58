"""Bad input gives a ParseError with a column and Spot's caret rendering; never a traceback
from deep inside the parser, never a RecursionError, however deep the input nests."""

from __future__ import annotations

import pytest

from ltlwit.logic.formula import ap
from ltlwit.logic.syntax import ParseError, parse_assignment, parse_formula, parse_trace, print_formula


def error(text: str, syntax: str = "auto") -> ParseError:
    with pytest.raises(ParseError) as info:
        parse_formula(text, syntax)
    return info.value


def test_render_is_spots_three_line_form():
    e = error("(a U b U) U c")
    assert (e.column, e.reason) == (8, "syntax error, unexpected closing parenthesis")
    assert str(e) == "column 9: syntax error, unexpected closing parenthesis"  # 1-based for humans
    assert e.render() == ">>> (a U b U) U c\n            ^\nsyntax error, unexpected closing parenthesis"
    assert e.located("specs.ltl:3") == "specs.ltl:3: column 9: syntax error, unexpected closing parenthesis"
    assert isinstance(e, ValueError) and e.text == "(a U b U) U c"


@pytest.mark.parametrize(
    "text, column, reason",
    [
        ("", 0, "empty input"),
        ("   ", 0, "empty input"),
        ("a &", 3, 'missing right operand for "and operator"'),
        ("G(a -> ", 6, 'missing right operand for "implication operator"'),
        ("(a U b", 0, "missing closing parenthesis"),
        ("a U b)", 5, "unexpected closing parenthesis"),
        ("a $ b", 2, "unexpected character '$'"),
        ('"unterminated U b', 0, "unclosed string"),
        ("a b", 2, "unexpected atomic proposition"),
        ("a U U b", 4, "unexpected until operator"),
        ("()", 2, 'missing right operand for "next operator"'),  # `()` is Spot's next operator
        ("( )", 0, "unexpected empty block"),
        ("!", 1, 'missing right operand for "not operator"'),
        ("a /* open", 2, "unclosed comment"),
        ("1=0", 1, "negative suffix"),
        ("true=0", 4, "negative suffix"),
        ("true Ua", 5, "unexpected atomic proposition"),
    ],
)
def test_malformed_infix_is_located(text: str, column: int, reason: str):
    e = error(text)
    assert e.column == column, e.render()
    assert reason in e.reason
    assert "\n" not in str(e)
    caret_line = e.render().split("\n")[1]
    assert caret_line.index("^") == 4 + column


def test_parse_errors_survive_pickling():
    import pickle

    e = pickle.loads(pickle.dumps(error("a U )")))
    assert (e.text, e.column, e.reason) == ("a U )", 4, "syntax error, unexpected closing parenthesis")


def test_errors_at_the_end_put_the_caret_after_the_last_character():
    e = error("G(a -> F", "spot")
    assert e.render().split("\n")[1] == " " * (4 + len("G(a -> F")) + "^"


def test_caret_keeps_tabs_aligned():
    e = error("\ta U )", "spot")
    assert e.render().split("\n")[1] == "    \t    ^"


@pytest.mark.parametrize(
    "text, syntax, column",
    [
        ("&ab!", "polish", 3),
        ("&abc", "polish", 3),
        ("&a$", "polish", 2),
        ("& a", "polish-spaced", 3),
        ("& a b c", "polish-spaced", 6),
        ("& a (b)", "polish-spaced", 4),
        ('& a "b', "polish-spaced", 4),
        ("U p0", "lbt", 4),
        ("& p0 p1 p2", "lbt", 8),
        ("& p0 1", "lbt", 5),
        ("", "lbt", 0),
        ("", "polish", 0),
    ],
)
def test_malformed_prefix_input_is_located(text: str, syntax: str, column: int):
    e = error(text, syntax)
    assert e.column == column, e.render()


def test_auto_reports_the_infix_error_when_nothing_parses():
    e = error("(a U b U) U c")
    assert "closing parenthesis" in e.reason
    assert error("& a", "auto").reason.startswith("syntax error, unexpected and operator")


N = 10_000


@pytest.mark.parametrize("syntax", ["auto", "spot"])
def test_ten_thousand_nested_parentheses_parse(syntax: str):
    f = parse_formula("(" * N + "a" + ")" * N, syntax)
    assert f is ap("a")
    g = parse_formula("G(" * N + "a" + ")" * N, syntax)
    assert g.size == N + 1
    assert parse_formula(print_formula(g, "spot"), syntax) is g


@pytest.mark.parametrize("text", ["(" * N + "a", "a" + ")" * N, "(" * N + ")" * N, "(" * N])
def test_ten_thousand_unbalanced_parentheses_fail_cleanly(text: str):
    error(text)


@pytest.mark.parametrize("syntax", ["auto", "spot", "polish", "polish-spaced", "lbt"])
def test_ten_thousand_long_x_chains_parse_and_print_in_every_syntax(syntax: str):
    f = parse_formula("X " * N + "a", "spot")
    assert f.size == N + 1
    out = "spot" if syntax == "auto" else syntax
    text = print_formula(f, out)
    assert parse_formula(text, syntax) is f
    deep = parse_formula(" & ".join(["a"] * N) + " U b", "spot")
    assert parse_formula(print_formula(deep, out), syntax) is deep


def test_deep_traces_and_huge_inputs_fail_cleanly():
    with pytest.raises(ParseError):
        parse_trace("(" * N + "a; cycle{b}")
    with pytest.raises(ParseError):
        parse_formula("X" * N)
    with pytest.raises(ParseError):
        parse_assignment("a1" * N + "a0")


@pytest.mark.parametrize(
    "text, call",
    [
        ("det(a, b)", True),
        ("G det_3x3 (a)", True),
        ("9f(x)", True),  # digits before a name: the name is applied
        ("a.f(x)", True),
        ("X(a) & F (b) & wX(c) & first_match(a)", False),  # operators, not calls
        ("G(a)", False),
        (") " + "a" * 50, False),
        ("a9" * 20, False),
    ],
)
def test_a_call_is_told_from_the_names_before_parentheses(text: str, call: bool) -> None:
    from ltlwit.logic.syntax.data_hints import call_hint

    assert call_hint(text) is call


def test_the_call_hint_tries_a_name_once_not_at_each_of_its_letters() -> None:
    """Whether a line that Spot cannot read applies a name (then it may be a predicate over
    data) is asked of every bad line: a match starting inside a name (`bc(` in `abc(`) was
    tried at each letter of the name, each try to its end, quadratic in the name (33 s before
    the caret error of a 50,000-letter name). A match may begin where a name begins only."""
    from ltlwit.logic.syntax.data_hints import _CALL

    text = "x & abc9d (y)"
    starts = [m.start() for m in (_CALL.match(text, i) for i in range(len(text))) if m is not None]
    assert starts == [text.index("abc")]
    assert _CALL.match("9f(x)", 0).group(1) == "f"  # type: ignore[union-attr]
    assert _CALL.match("9f(x)", 1) is None
