"""The optional Spot backend; runs only where Spot's Python bindings import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("spot")

from ltlwit.logic.ltl import holds, solve  # noqa: E402
from ltlwit.logic.result import Sat, Unsat  # noqa: E402
from ltlwit.logic.syntax import parse_formula, parse_trace  # noqa: E402

ROWS = [json.loads(line) for line in open(Path(__file__).parent / "data" / "ltl-sat.jsonl")][::20]
CHECKS = [json.loads(line) for line in open(Path(__file__).parent / "data" / "trace-check.jsonl")][::10]


def test_spot_solve_matches_golden_and_builtin_checker() -> None:
    for row in ROWS:
        f = parse_formula(row["formula"])
        result = solve(f, engine="spot")
        assert isinstance(result, Sat if row["sat"] else Unsat), row["formula"]
        if isinstance(result, Sat):
            assert holds(f, result.witness, engine="builtin")


def test_builtin_witnesses_pass_spot() -> None:
    for row in ROWS:
        f = parse_formula(row["formula"])
        result = solve(f, engine="builtin")
        if isinstance(result, Sat):
            assert holds(f, result.witness, engine="spot"), row["formula"]


def test_spot_checker_matches_golden() -> None:
    for row in CHECKS:
        got = holds(parse_formula(row["formula"]), parse_trace(row["trace"]), engine="spot")
        assert got == row["holds"], row
