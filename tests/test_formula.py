"""Building formulas in bulk: the cyclic collector paused around it, and a parse that gives up
at its deadline."""

from __future__ import annotations

import gc
import time

import pytest

from ltlwit.logic.budget import OutOfTime, deadline_scope
from ltlwit.logic.formula import collector_paused
from ltlwit.logic.syntax import parse_formula


def test_collector_paused_nests_and_restores() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

    @collector_paused()
    def build() -> bool:
        return gc.isenabled()

    assert build() is False and gc.isenabled()


@pytest.mark.parametrize("syntax,text", [
    ("spot", " & ".join(f"(F p{i} -> G(q{i} U !r{i}))" for i in range(3000))),
    ("lbt", "& " * 2999 + " ".join(f"F p{i}" for i in range(3000))),
])
def test_a_parse_gives_up_at_its_deadline(syntax: str, text: str) -> None:
    with deadline_scope(time.perf_counter() - 1.0):
        with pytest.raises(OutOfTime, match="while parsing"):
            parse_formula(text, syntax)
    with deadline_scope(None):
        assert len(parse_formula(text, syntax).aps()) == (9000 if syntax == "spot" else 3000)


def test_solve_answers_unknown_when_reading_takes_the_whole_timeout() -> None:
    import ltlwit

    text = " & ".join(f"(F p{i} -> G(q{i} U !r{i}))" for i in range(20000))
    answer = ltlwit.solve(text, model="none", timeout=0.001)
    assert answer.status == "unknown" and answer.message == "time budget exhausted while parsing"
