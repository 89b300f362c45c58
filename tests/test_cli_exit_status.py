"""Exit statuses: 0 all positive, 1 some unsat/unknown/failing witness, 2 any error (which
outranks 1), click's own errors mapped onto 2."""

from __future__ import annotations

import pytest
from cli_support import run, run_env

from ltlwit.cli.status import ExitStatus


def test_all_sat_is_0() -> None:
    result = run("solve", "a & !b", "G(req -> F grant)")
    assert result.exit_code == ExitStatus.SUCCESS == 0
    assert result.stdout.splitlines()[0] == "a & !b"


def test_unsat_is_1() -> None:
    result = run("solve", "a", "a & !a", "GFa & FG!a")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["a", "UNSAT", "UNSAT"]


def test_parse_error_is_2_and_other_inputs_still_answered() -> None:
    result = run("solve", "a & !b", "a U (", "a & !a", "c")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == ["a & !b", "ERROR", "UNSAT", "c"]
    assert "ltlwit: <arg 2>: parse error:" in result.stderr


def test_error_outranks_negative_in_any_order() -> None:
    assert run("solve", "a & !a", "(((").exit_code == 2
    assert run("solve", "(((", "a & !a").exit_code == 2


def test_unreadable_file_is_2(tmp_path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("a\n")
    result = run("solve", "-F", str(tmp_path / "missing.txt"), "-F", str(good))
    assert result.exit_code == 2
    assert result.stdout == "a\n"


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "--logic", "bogus", "a"],
        ["solve", "--syntax", "klingon", "a"],
        ["solve", "--format", "xml", "a"],
        ["solve", "--timeout", "-1", "a"],
        ["solve", "--timeout", "soon", "a"],
        ["solve", "--timeout", "nan", "a"],
        ["check", "--timeout", "NaN", "x.spec"],
        [
            "data",
            "generate",
            "--task",
            "ltl",
            "--aps",
            "2",
            "--max-size",
            "5",
            "-n",
            "5",
            "-o",
            "x",
            "--timeout",
            "nan",
        ],
        ["solve", "--model", "gpt", "a"],
        ["solve", "--no-such-option", "a"],
        ["frobnicate"],
        ["fmt", "--to", "latex", "a"],
        ["verify", "a"],
        ["verify", "a", "b", "c"],
    ],
)
def test_usage_errors_are_2(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Error" in result.stderr


def test_engine_spot_without_spot_is_a_usage_error() -> None:
    import importlib.util

    result = run("solve", "--engine", "spot", "G a")
    if importlib.util.find_spec("spot") is None:
        assert result.exit_code == 2
        assert "import spot" in result.stderr
    else:
        assert result.exit_code == 0


def test_no_input_on_a_terminal_is_a_usage_error() -> None:
    assert run_env("solve", stdin_isatty=True) == (2, "", "")


def test_logic_prop_on_a_temporal_formula_is_2() -> None:
    result = run("solve", "--logic", "prop", "F a", "b")
    assert result.exit_code == 2
    assert result.stdout == "ERROR\nb\n"
    assert "temporal operators" in result.stderr


def test_timeout_reaches_the_engine_and_unknown_is_1(monkeypatch) -> None:
    from ltlwit.logic import ltl
    from ltlwit.logic.result import Unknown

    budgets = []

    def out_of_time(formula, budget=None, engine="auto", semantics="infinite"):
        budgets.append((budget, engine))
        return Unknown("time budget exhausted")

    monkeypatch.setattr(ltl, "solve", out_of_time)
    result = run("solve", "--timeout", "0.25", "--engine", "builtin", "G F a", "b")
    assert result.exit_code == 1
    assert result.stdout == "UNKNOWN\nb\n"  # `b` is propositional: the SAT path, no budget
    assert result.stderr == "ltlwit: <arg 1>: unknown: time budget exhausted\n"
    ((budget, engine),) = budgets
    assert (budget.seconds, engine) == (0.25, "builtin")


def test_a_solver_crash_is_one_error_line_not_the_end_of_the_run(monkeypatch) -> None:
    from ltlwit.logic import ltl

    def broken(formula, budget=None, engine="auto", semantics="infinite"):
        raise KeyError("boom")

    monkeypatch.setattr(ltl, "solve", broken)
    result = run("solve", "G a", "b")
    assert result.exit_code == 2
    assert result.stdout == "ERROR\nb\n"
    assert result.stderr == "ltlwit: <arg 1>: internal error (please report it): KeyError: 'boom'\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_witness_its_own_checker_rejects_is_an_error_to_report_not_unknown(monkeypatch, jobs: str) -> None:
    """The engine's last line of defence: a witness the checker rejects is never printed, and
    the user is told it is a bug (with the formula and the witness), not a time-out; from a
    worker process too (the error crosses it pickled)."""
    from ltlwit.logic.ltl import solver

    real = solver.holds
    monkeypatch.setattr(
        solver, "holds", lambda formula, trace, limit=None: "bug" not in formula.aps() and real(formula, trace, limit)
    )
    result = run("solve", "--jobs", jobs, "--engine", "builtin", "G F bug", "G F ok")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == ["ERROR", "cycle{ok}"]
    assert result.stderr.startswith("ltlwit: <arg 1>: internal error (please report it): WitnessRejected: the witness ")
    assert result.stderr.endswith(" of GFbug failed its check\n")


@pytest.mark.parametrize(
    "args",
    [["solve", "--model", "none", "F a"], ["solve", "--format", "table", "a"], ["fmt", "a & b"], ["models", "list"]],
)
def test_a_full_disk_is_one_error_line_and_2(args: list[str]) -> None:
    import subprocess
    import sys

    from cli_support import ROOT, subprocess_env

    with open("/dev/full", "w") as full:  # every write fails with ENOSPC (Linux)
        proc = subprocess.run(
            [sys.executable, "-m", "ltlwit", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(),
            cwd=ROOT,
            timeout=60,
        )
    assert proc.returncode == ExitStatus.ERROR
    (line,) = proc.stderr.splitlines()  # one line, no traceback
    assert line.startswith("ltlwit: ") and "No space left on device" in line


def test_a_full_disk_still_gets_the_junit_report_written(tmp_path) -> None:
    import subprocess
    import sys

    from cli_support import ROOT, subprocess_env

    spec, report = tmp_path / "s.spec", tmp_path / "r.xml"
    spec.write_text("a: F a\nb: G b\n")
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "ltlwit", "check", "--junit", str(report), str(spec)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(),
            cwd=ROOT,
            timeout=60,
        )
    assert proc.returncode == ExitStatus.ERROR and "No space left on device" in proc.stderr
    assert report.read_text().count("<testcase") == 2
