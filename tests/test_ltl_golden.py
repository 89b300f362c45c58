"""The engine against Spot-labelled golden files (copies of ../shared/data/golden/).

ltl-sat.jsonl: 100% verdict agreement; every witness passes `holds` and the independent
reference evaluator on random concrete completions. trace-check.jsonl: 100% agreement.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from ltl_reference import random_completions, satisfies

from ltlwit.logic.ltl import holds, solve
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_formula, parse_trace

DATA = Path(__file__).parent / "data"


def _rows(name: str) -> list[dict]:
    with open(DATA / name) as fh:
        return [json.loads(line) for line in fh]


SAT_ROWS = _rows("ltl-sat.jsonl")
CHECK_ROWS = _rows("trace-check.jsonl")


def _chunks(rows: list[dict], k: int) -> list[list[dict]]:
    return [rows[i::k] for i in range(k)]


@pytest.mark.parametrize("chunk", _chunks(SAT_ROWS, 8), ids=[f"part{i}" for i in range(8)])
def test_ltl_sat_verdicts_and_witnesses(chunk: list[dict]) -> None:
    rng = random.Random(7)
    wrong = []
    for row in chunk:
        f = parse_formula(row["formula"])
        result = solve(f)
        expected = Sat if row["sat"] else Unsat
        if not isinstance(result, expected):
            wrong.append((row["formula"], row["sat"], result))
            continue
        if isinstance(result, Sat):
            trace = result.witness
            assert holds(f, trace), (row["formula"], str(trace))
            for prefix, cycle in random_completions(trace, f.aps(), rng, count=4):
                assert satisfies(f, prefix, cycle), (row["formula"], str(trace), prefix, cycle)
    assert not wrong, wrong[:5]


def test_golden_sat_file_is_the_whole_copy() -> None:
    # guards against a truncated copy silently weakening the test above
    assert len(SAT_ROWS) == 4662 and sum(r["sat"] for r in SAT_ROWS) == 3780


def test_trace_check_agreement() -> None:
    wrong = [
        (r["formula"], r["trace"], r["holds"])
        for r in CHECK_ROWS
        if holds(parse_formula(r["formula"]), parse_trace(r["trace"])) != r["holds"]
    ]
    assert len(CHECK_ROWS) == 2074
    assert not wrong, wrong[:5]


def test_spot_witnesses_hold() -> None:
    """Spot's own (simplified) witnesses are accepted by the checker: no false negatives."""
    rejected = [
        r["formula"] for r in SAT_ROWS if r["sat"] and not holds(parse_formula(r["formula"]), parse_trace(r["witness"]))
    ]
    assert not rejected, rejected[:5]
