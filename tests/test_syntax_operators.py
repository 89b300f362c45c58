"""The one operator table (`operators`) is what every infix, prefix and Polish reader and
printer reads, and the one precedence engine (`precedence`) is what both infix readings run:
a level, an associativity or a spelling changed in the table changes them all."""

from __future__ import annotations

import itertools

import pytest

from ltlwit.logic.formula import BINARY, OPERATORS, UNARY, Formula, ap
from ltlwit.logic.syntax import data, infix, infix_lex, infix_print, lbt, names, polish, precedence, prefix
from ltlwit.logic.syntax.data import parse_data
from ltlwit.logic.syntax.infix import parse_spot
from ltlwit.logic.syntax.operators import (
    ARITY,
    BY_OP,
    LEVELS,
    NAMES,
    NETWORK_ARITY,
    RIGHT,
    RIGHT_ASSOC,
    TABLE,
    TO_LBT,
    spellings,
)

a, b, c = ap("a"), ap("b"), ap("c")


def test_the_table_has_every_operator_of_the_formulas() -> None:
    assert set(BY_OP) == set(OPERATORS)
    assert {op for op in ARITY if ARITY[op] == 1} == set(UNARY) and {op for op in ARITY if ARITY[op] == 2} == set(
        BINARY
    )
    assert RIGHT == {LEVELS[op] for op in RIGHT_ASSOC}
    assert not RIGHT & {LEVELS[op] for op in LEVELS if op not in RIGHT_ASSOC}  # a level is one or the other


def test_printers_and_polish_read_the_table() -> None:
    assert infix_print.PRECEDENCE is LEVELS and infix_print.RIGHT_ASSOC is RIGHT_ASSOC
    assert polish.NETWORK_ARITY is NETWORK_ARITY
    assert {op: prefix.ARITY[op] for op in ARITY} == ARITY
    assert infix_lex.NAMES.items() >= NAMES.items()
    assert names.SPOT_KEYWORDS >= {s for s in spellings("spot", 2) if s.isalpha()}


def test_both_infix_readings_run_the_one_engine() -> None:
    assert infix.read is precedence.read and data.read is precedence.read
    assert isinstance(infix._FORMULAS, precedence.Builder) and issubclass(data._Tree, precedence.Builder)


@pytest.mark.parametrize("first,second", list(itertools.product(LEVELS, repeat=2)))
def test_levels_and_associativity_are_the_tables(first: str, second: str) -> None:
    """`a first b second c` groups as the table's levels say, in Spot's reading, in the data
    reading and in the printer's parentheses (which read back to the same formula)."""
    left_first = LEVELS[first] > LEVELS[second] or (LEVELS[first] == LEVELS[second] and first not in RIGHT_ASSOC)
    expected = (
        Formula(second, (Formula(first, (a, b)), c)) if left_first else Formula(first, (a, Formula(second, (b, c))))
    )
    text = f"a {first} b {second} c"
    assert parse_spot(text) is expected
    assert parse_data(text) is expected
    assert parse_spot(infix_print.print_spot(expected)) is expected


@pytest.mark.parametrize("op", [o for o in TABLE if o.arity])
def test_every_spelling_reads_as_its_operator(op) -> None:
    build = (lambda: Formula(op.op, (b,))) if op.arity == 1 else (lambda: Formula(op.op, (a, b)))
    for spelling in op.spot:
        text = f"{spelling} b" if op.arity == 1 else f"a {spelling} b"
        assert parse_spot(text) is build(), spelling
    for spelling in op.data:
        text = f"{spelling} b" if op.arity == 1 else f"a {spelling} b"
        assert parse_data(text) is build(), spelling
    for spelling in op.lbt:
        assert lbt.parse_lbt(f"{spelling} {'b' if op.arity == 1 else 'a b'}") is build(), spelling
    assert lbt.print_lbt(build()).split()[0] == TO_LBT[op.op]
    if op.network:
        assert polish.parse_network(op.op + ("b" if op.arity == 1 else "ab")) is build()
