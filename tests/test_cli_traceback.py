"""Internal errors (bugs): one line that says so, the other inputs still answered, exit status 2,
and the traceback for a bug report with `--traceback` or LTLWIT_TRACEBACK=1."""

from __future__ import annotations

import pytest
from cli_support import run

from ltlwit.cli.status import ExitStatus
from ltlwit.pipeline import run as pipeline_run
from ltlwit.pipeline import verify as verify_module


def _failing_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pipeline_run.engine_answer

    def engine_answer(formula, logic, options, *args, **kwargs):
        if "boom" in formula.aps():
            raise RuntimeError("the engine broke")
        return real(formula, logic, options, *args, **kwargs)

    monkeypatch.setattr(pipeline_run, "engine_answer", engine_answer)


def test_an_internal_error_is_one_line_and_costs_only_its_input(monkeypatch) -> None:
    _failing_engine(monkeypatch)
    result = run("solve", "a", "F boom", "G b")
    assert result.exit_code == ExitStatus.ERROR
    assert result.stdout.splitlines() == ["a", "ERROR", "cycle{b}"]
    assert result.stderr == "ltlwit: <arg 2>: internal error (please report it): RuntimeError: the engine broke\n"


@pytest.mark.parametrize("how", ["option", "variable"])
def test_traceback_shows_where(monkeypatch, how: str) -> None:
    _failing_engine(monkeypatch)
    if how == "variable":
        monkeypatch.setenv("LTLWIT_TRACEBACK", "1")
    result = run(*(["--traceback"] if how == "option" else []), "solve", "F boom")
    assert result.exit_code == ExitStatus.ERROR
    lines = result.stderr.splitlines()
    assert lines[0] == "ltlwit: <arg 1>: internal error (please report it): RuntimeError: the engine broke"
    assert lines[1] == "Traceback (most recent call last):"
    assert any("in engine_answer" in line for line in lines) and lines[-1] == "RuntimeError: the engine broke"


def test_zero_turns_the_variable_off(monkeypatch) -> None:
    _failing_engine(monkeypatch)
    monkeypatch.setenv("LTLWIT_TRACEBACK", "0")
    assert "Traceback" not in run("solve", "F boom").stderr


def test_verify_and_check_show_it_too(monkeypatch, tmp_path) -> None:
    def holds(formula, witness, engine="auto", semantics=None):
        raise ZeroDivisionError("checker bug")

    monkeypatch.setattr(verify_module, "holds", holds)
    result = run("--traceback", "verify", "F a", "cycle{a}")
    assert result.exit_code == ExitStatus.ERROR
    assert "internal error (please report it): ZeroDivisionError: checker bug" in result.stderr
    assert result.stderr.rstrip().endswith("ZeroDivisionError: checker bug") and "Traceback" in result.stderr
    _failing_engine(monkeypatch)
    spec = tmp_path / "s.spec"
    spec.write_text("ok: G F a\nbroken: F boom\n")
    result = run("--traceback", "check", str(spec))
    assert result.exit_code == ExitStatus.ERROR
    assert "Traceback (most recent call last):" in result.stderr and "RuntimeError: the engine broke" in result.stderr
    assert result.stdout.startswith("PASS ok")


def test_a_bug_outside_any_input_is_one_line_and_a_hint(monkeypatch) -> None:
    from ltlwit.cli import solve as solve_command

    def broken_printer(*args, **kwargs):
        raise KeyError("printer")

    monkeypatch.setattr(solve_command, "solve_printer", broken_printer)
    result = run("solve", "a")
    assert result.exit_code == ExitStatus.ERROR and result.stdout == ""
    assert result.stderr.splitlines() == [
        "ltlwit: internal error (please report it): KeyError: 'printer'",
        "ltlwit: run it again with --traceback (or LTLWIT_TRACEBACK=1) to see where",
    ]
    shown = run("--traceback", "solve", "a").stderr
    assert "Traceback (most recent call last):" in shown and "in broken_printer" in shown
