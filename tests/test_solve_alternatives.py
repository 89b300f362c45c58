"""`solve --all --top N` without models: the engine gives up to N witnesses, each verified and
standing for other words than the ones before."""

from __future__ import annotations

import itertools

import pytest
from cli_support import json_lines, run

from ltlwit.logic.formula import And, Not
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.witness import excluding, holds, parse_witness, same_words


@pytest.mark.parametrize(
    "formula, semantics",
    [
        ("G(req -> F grant)", "infinite"),
        ("F a & G(a -> X b)", "finite"),
        ("a U (b & X !a)", "infinite"),
        ("G(p -> Y !p)", "infinite"),
    ],
)
def test_engine_alternatives_are_verified_and_distinct(formula: str, semantics: str) -> None:
    records = json_lines(
        run(
            "solve", "--model", "none", "--all", "--top", "4", "--format", "json", "--semantics", semantics, formula
        ).stdout
    )
    assert len(records) == 4 and all(r["status"] == "sat" and r["source"] == "engine" for r in records)
    f = parse_formula(formula)
    witnesses = [parse_witness(r["witness"], f) for r in records]
    for w in witnesses:
        assert holds(f, w, semantics=semantics if f.temporal else None)
    for a, b in itertools.combinations(witnesses, 2):
        assert not same_words(a, b)


def test_alternatives_stop_where_the_formula_has_no_more() -> None:
    records = json_lines(run("solve", "--model", "none", "--all", "--top", "5", "--format", "json", "a & b").stdout)
    assert [r["witness"] for r in records] == ["a & b"]
    records = json_lines(run("solve", "--model", "none", "--all", "--top", "5", "--format", "json", "a | b | c").stdout)
    assert [r["witness"] for r in records] == ["a", "!a & b", "!a & !b & c"]  # together every model, once
    records = json_lines(
        run(
            "solve",
            "--model",
            "none",
            "--all",
            "--top",
            "5",
            "--format",
            "json",
            "--semantics",
            "finite",
            "a & X b & X X wX false",
        ).stdout
    )
    assert [r["witness"] for r in records] == ["a; b; 1"]  # every model of exactly three instants, at once
    assert [
        r["witness"]
        for r in json_lines(
            run("solve", "--model", "none", "--all", "--top", "3", "--format", "json", "G(p <-> Y !p)").stdout
        )
    ] == ["cycle{!p; p}"]  # one word only


def test_excluding_a_witness_excludes_its_word() -> None:
    f = parse_formula("G F a")
    w = parse_trace("b; cycle{a; !a}")
    rest = excluding(w, ("a", "b"))
    assert not holds(And(f, rest), parse_trace("b & !a; cycle{a & !b; !a & !b}"))
    assert holds(And(f, rest), parse_trace("b & !a; cycle{a & b; !a & !b}"))
    assert holds(Not(rest), parse_trace("b & !a; a & !b; cycle{!a & !b; a & !b}"))  # the same word, unrolled
