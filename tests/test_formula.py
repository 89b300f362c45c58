"""Building formulas in bulk: the cyclic collector paused around it, a parse that gives up at
its deadline, and hashes that are the same in every process."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
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


@pytest.mark.parametrize(
    "syntax,text",
    [
        ("spot", " & ".join(f"(F p{i} -> G(q{i} U !r{i}))" for i in range(3000))),
        ("lbt", "& " * 2999 + " ".join(f"F p{i}" for i in range(3000))),
    ],
)
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


_ORDER = """
from ltlwit.logic.syntax import parse_formula
f = parse_formula("G(req0 -> F grant0) & G(req1 -> F grant1) & G !(grant0 & grant1) & (a U (b R X c))", "spot")
print(hash(f), [str(g) for g in set(f.walk())])
"""


def test_formulas_hash_and_iterate_alike_in_every_process() -> None:
    """Structural hashes: a set of formulas (the explicit search's states) iterates in the same
    order whatever the memory layout or the string hash seed: the searches' order of work no
    longer depends on where formulas happen to be allocated (with identity hashes the 40-client
    arbiter took 6 rounds in one process and 7, twice the time, in another)."""
    runs = {
        subprocess.run(
            [sys.executable, "-c", _ORDER],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("0", "1", "2")
    }
    assert len(runs) == 1
    here = parse_formula("G(req0 -> F grant0) & G(req1 -> F grant1) & G !(grant0 & grant1) & (a U (b R X c))", "spot")
    assert runs.pop().split(" ", 1)[0] == str(hash(here))


def test_equal_formulas_are_one_object_and_the_table_forgets_freed_ones() -> None:
    """Hash-consing keys a node by its children's ids: while a formula lives, an equal one built
    anywhere is the same object; once it is freed, its entry goes, and a formula built later
    over children that happen to reuse those ids is a fresh, correct node."""
    import gc
    import weakref

    from ltlwit.logic import formula as F

    p, q = F.ap("intern_p"), F.ap("intern_q")
    f = F.Formula("U", (p, F.Not(q)))
    assert F.Formula("U", (F.ap("intern_p"), F.Not(F.ap("intern_q")))) is f
    gc.collect()  # earlier tests' garbage freed now, not while the stream below is counted
    before = len(F._TABLE)
    gone = weakref.ref(f)
    built = [F.And(F.ap(f"stream_{i}"), F.Not(F.ap(f"stream_{i}"))) for i in range(2000)]
    assert len(F._TABLE) >= before + 3 * 2000
    del f, built
    assert gone() is None
    assert len(F._TABLE) <= before - 1  # the stream's 6,000 entries and f's are gone
    for i in range(2000):  # ids of freed nodes are reused: every node still reads as built
        g = F.Formula("&", (F.ap(f"again_{i}"), F.Not(F.ap(f"again_{i}"))))
        assert (g.op, g.children[0].name, g.children[1].op) == ("&", f"again_{i}", "!")
        assert g.children[1].children[0] is g.children[0]
