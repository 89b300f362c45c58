"""Sorts of data variables: declared, inferred where that is unambiguous, and errors that name
the variable when they clash or cannot be told."""

from __future__ import annotations

import pytest

from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.theory.sorts import (
    BOOL,
    INT,
    REAL,
    Declarations,
    SortError,
    parse_declaration,
    parse_sort,
    resolve,
)


def sorts(text: str, declarations: Declarations | None = None) -> dict[str, str]:
    return {name: str(sort) for name, sort in resolve(parse_formula(text), declarations).variables.items()}


def test_declarations_read_every_spelling() -> None:
    assert parse_declaration("speed:Real") == ("speed", REAL)
    assert parse_declaration("n : integer") == ("n", INT)
    assert parse_declaration("p:Bool") == ("p", BOOL)
    assert parse_sort("int32") == INT and parse_sort("double") == REAL and parse_sort("boolean") == BOOL
    assert parse_declaration("mode: {off, on}") == ("mode", parse_sort("{off, on}"))
    for bad, message in [
        ("speed", "expected NAME:SORT"),
        ("speed:Complex", "unknown sort"),
        ("mode:{}", "needs values"),
        ("mode:{a, a}", "lists a value twice"),
        ("mode:{a b}", "is not a name"),
    ]:
        with pytest.raises(SortError, match=message):
            parse_declaration(bad)


def test_inference_where_it_is_unambiguous() -> None:
    # a decimal numeral makes its class Real, through the comparisons and arithmetic that link it
    assert sorts("x > 1.5 & y < x + 1") == {"x": "Real", "y": "Real"}
    # a declared Int links the others to Int; mod is Int
    assert sorts("x > y & z mod 2 = 1", Declarations().declare("x", INT)) == {"x": "Int", "y": "Int", "z": "Int"}
    # FRET's functions say their sort
    assert sorts("absInt(a) > 0 & preReal(0, b) < 1") == {"a": "Int", "b": "Real"}
    # separate classes are decided separately, even where they share a numeral
    assert sorts("x > 1.0 & n = 2", Declarations(domain=INT)) == {"x": "Real", "n": "Int"}
    assert sorts("n > 0 & r > 0 & r < 0.5", Declarations(domain=INT)) == {"n": "Int", "r": "Real"}


def test_an_unknown_sort_says_how_to_give_one() -> None:
    with pytest.raises(
        SortError, match=r"the sort of x is unknown \(Int or Real\?\): declare it \(--var x:Int\)"
    ) as info:
        resolve(parse_formula("x > 1 & x < 2"))
    assert info.value.name == "x"
    assert sorts("x > 1 & x < 2", Declarations(domain=REAL)) == {"x": "Real"}


def test_enumerations() -> None:
    mode = parse_sort("{off, on}")
    decl = Declarations().declare("mode", mode)
    sig = resolve(parse_formula("mode = on & X(mode != off)"), decl)
    assert sig.variables == {"mode": mode} and set(sig.constants) == {"on", "off"}
    # an undeclared name compared with an enumeration's value is most likely a misspelled value
    with pytest.raises(SortError, match=r"m is not a value of the enumeration \{off, on\}"):
        resolve(parse_formula("next(m) = on"), decl)
    # every value of a variable's enumeration is a constant, used or not (a trace may give it)
    assert set(resolve(parse_formula("mode = on"), decl).constants) == {"on", "off"}
    for text, message in [
        ("mode = 3", "compared or computed with the number 3"),
        ("mode + 1 > 0", "compared or computed with the number"),
        ("mode < on", r"mode is of the enumeration \{off, on\}, which has no order: mode < on compares numbers"),
        ("G(x >= mode)", r"x is of the enumeration \{off, on\}, which has no order: x >= mode compares numbers"),
    ]:
        with pytest.raises(SortError, match=message):
            resolve(parse_formula(text), decl)
    two = decl.declare("dir", parse_sort("{up, down}"))
    with pytest.raises(SortError, match="values of two enumerations are compared"):
        resolve(parse_formula("mode = up"), two)
    # variables declared with the same values share one sort; a value in two sorts is an error
    same = decl.declare("other", parse_sort("{off, on}"))
    assert resolve(parse_formula("mode = other & other = on"), same).variables["other"] == mode
    with pytest.raises(SortError, match="on is a value of two enumerations"):
        resolve(parse_formula("mode = on"), decl.declare("power", parse_sort("{on, standby}")))


@pytest.mark.parametrize(
    "text, declared, message",
    [
        ("p & p > 1", {}, "p is used both as a proposition and as a term"),
        ("x + p > 1", {"p": BOOL}, "p is Bool but is compared or computed with numeric data"),
        ("x / 0 > 1", {}, "division by zero"),
        ("f(x) > 1 & x > f", {}, "f is a variable, and is applied to arguments too"),
    ],
)
def test_clashes_name_the_variable(text: str, declared: dict, message: str) -> None:
    decl = Declarations(domain=INT)
    for name, sort in declared.items():
        decl = decl.declare(name, sort)
    with pytest.raises(SortError, match=message):
        resolve(parse_formula(text), decl)


def test_declaring_twice_differently_is_an_error() -> None:
    decl = Declarations().declare("x", INT)
    assert decl.declare("x", INT) is decl
    with pytest.raises(SortError, match="declared twice, as Int and as Real"):
        decl.declare("x", REAL)


def test_functions_are_told_apart_by_arity() -> None:
    """FRET's exports apply one name to 8 and to 9 arguments: two functions."""
    sig = resolve(parse_formula("det(a, b) & !det(a, b, c) & f(a) > 0"), Declarations(domain=REAL))
    assert set(sig.functions) == {("det", 2), ("det", 3), ("f", 1)}
    assert sig.functions[("det", 2)] == ((REAL, REAL), BOOL)
