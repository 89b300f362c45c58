"""A cold `ltlwit solve` imports what its input needs, when it needs it: a small LTL formula loads click, the solve command, the parsers, the
small-formula engine and the text printer, and none of the modules below; the SAT solver and
the searches on it load for a formula that reaches them. The time it takes is
bench/startup.py's to measure (no clock here: a shared machine's timings are no test).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_support import ROOT, subprocess_env

from ltlwit.logic.ltl.solver import SMALL_APS

#: Modules a plain `ltlwit solve "G(a -> F b)"` must not load, each only some runs need: the
#: SAT solver (pysat, py-aiger through it) and the searches and propositional solver on it; the
#: models (torch, the registry's manifests); rich (tables, progress bars); the spec files and
#: unsat cores (`check`, `--core`); `verify`'s and `fmt`'s answers; the progress and status
#: lines (a terminal on stderr); the JSON and CSV formats; tracebacks (`--traceback`); the
#: checker's random completions; z3 and the searches over data.
HEAVY = (
    "pysat",
    "pysat.solvers",
    "pysat.formula",
    "aiger",
    "ltlwit.logic.ltl.searches.bounded",
    "ltlwit.logic.ltl.searches.liveness",
    "ltlwit.logic.ltl.searches.explore",
    "ltlwit.logic.ltl.encoding.xnf",
    "ltlwit.logic.prop",
    "torch",
    "ltlwit.neural.registry",
    "ltlwit.neural.backbone",
    "rich",
    "ltlwit.specs",
    "ltlwit.logic.core",
    "ltlwit.pipeline.verify",
    "ltlwit.pipeline.convert",
    "ltlwit.cli.progress",
    "json",
    "csv",
    "traceback",
    # random completions of a past formula's trace (the checker's last stages)
    "random",
    # the SMT solver and the searches over data: only formulas with data atoms load them
    "z3",
    "ltlwit.logic.theory.smt",
    "ltlwit.logic.ltl.data",
    "ltlwit.logic.ltl.searches.smt_bounded",
    # and the data parser and sorts: a plain formula is told apart by `data_hints` alone
    "ltlwit.logic.syntax.data",
    "ltlwit.logic.theory.sorts",
    "ltlwit.logic.theory.terms",
)

#: Satisfiable, and past the small-formula step (more APs than it takes): the SAT-based
#: searches answer it.
BIG = " & ".join(f"G F p{i}" for i in range(SMALL_APS + 1))


def _run(*args: str) -> tuple[int, str, set[str]]:
    """`ltlwit ARGS` in a fresh interpreter, as the console script runs it: (its exit status,
    its stdout, the modules loaded by the end). No TTY anywhere, so `--format auto` is text;
    LTLWIT_MODEL=none unless ARGS say otherwise, as in the other CLI tests."""
    code = (
        "import os, sys\nfrom ltlwit.cli import main\nsys.argv = ['ltlwit', *sys.argv[1:]]\n"
        "leave = os._exit\n"  # the console script ends with os._exit: say what was loaded first
        "os._exit = lambda status: (print('STATUS', status, *sys.modules, file=sys.stderr), sys.stderr.flush(),"
        " leave(status))\n"
        "main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(subprocess_env(), LTLWIT_MODEL="none"),
        timeout=120,
    )
    assert "STATUS" in proc.stderr, proc.stderr[-2000:]
    status, *modules = proc.stderr.rpartition("STATUS")[2].split()
    return int(status), proc.stdout, set(modules)


@pytest.mark.parametrize("model", ["none", "auto"])
def test_a_small_ltl_formula_loads_no_sat_solver_model_or_other_format(model: str) -> None:
    """`auto` as much as `none` on this machine, which has no GPU (a machine with one runs the
    models for `auto`, and loads torch for them)."""
    from ltlwit.pipeline.models import gpu_visible

    if model == "auto" and gpu_visible():
        pytest.skip("a GPU here: --model auto runs the models")
    status, out, loaded = _run("solve", "--model", model, "G(a -> F b)")
    assert (status, out) == (0, "cycle{!a}\n")
    assert {"ltlwit.cli.solve", "ltlwit.logic.ltl.solver", "ltlwit.logic.syntax.infix"} <= loaded  # the list is real
    assert loaded.isdisjoint(HEAVY), sorted(loaded.intersection(HEAVY))


def test_a_formula_that_reaches_the_sat_searches_loads_them() -> None:
    """The other side: what the plain path leaves out still loads where it is needed, so the
    test above can fail (these would be missing from `sys.modules` if an import were lost)."""
    status, out, loaded = _run("solve", BIG)
    assert status == 0 and "cycle{" in out
    assert {
        "pysat.solvers",
        "ltlwit.logic.ltl.searches.bounded",
        "ltlwit.logic.ltl.searches.liveness",
        "ltlwit.logic.ltl.searches.explore",
    } <= loaded


@pytest.mark.parametrize(
    ("args", "needed"),
    [
        (("solve", "a & !b"), {"ltlwit.logic.prop", "pysat.solvers"}),
        (("solve", "--format", "json", "G(a -> F b)"), {"json"}),
        (("solve", "--format", "csv", "G(a -> F b)"), {"csv"}),
        (("solve", "--core", "G a & F !a & G b"), {"ltlwit.logic.core"}),
    ],
)
def test_what_an_input_or_option_needs_loads_with_it(args: tuple[str, ...], needed: set[str]) -> None:
    status, _, loaded = _run(*args)
    assert status in (0, 1) and needed <= loaded, (status, sorted(needed - loaded))
