"""The injectable Environment: colour only on a terminal and never under NO_COLOR; data on
stdout, messages on stderr."""

from __future__ import annotations

import io

from cli_support import run_env

from ltlwit.cli.environment import Environment

ESC = "\x1b["


def test_plain_off_a_terminal() -> None:
    code, out, _ = run_env("solve", "a & !a", "a")
    assert (code, out) == (1, "UNSAT\na\n")


def test_colour_on_a_terminal() -> None:
    for fmt in ("text", "table"):
        _, out, _ = run_env("solve", "--format", fmt, "a & !a", stdout_isatty=True)
        assert ESC in out and "UNSAT" in out


def test_no_color_wins_on_a_terminal() -> None:
    _, out, _ = run_env("solve", "--format", "text", "a & !a", stdout_isatty=True, color_allowed=False)
    assert out == "UNSAT\n"
    _, table, _ = run_env("solve", "a & !a", stdout_isatty=True, color_allowed=False)
    assert ESC not in table and "UNSAT" in table


def test_a_terminal_gets_a_table_and_a_pipe_plain_lines() -> None:
    args = ("solve", "--model", "none", "G(req -> F grant)", "a & !a", "a U")
    code, table, err = run_env(*args, stdout_isatty=True, color_allowed=False)
    assert code == 2
    header, *rows = table.splitlines()
    assert header.split() == ["formula", "status", "witness", "source", "ms"]
    assert [row.split()[-3:-1] for row in rows[:2]] == [["cycle{!req}", "engine"], ["UNSAT", "sat-solver"]]
    assert "ERROR" in rows[2] and "<arg 3>: parse error" in err
    assert run_env(*args)[1] == "cycle{!req}\nUNSAT\nERROR\n"


def test_no_color_convention() -> None:
    def env(environ: dict[str, str]) -> Environment:
        return Environment.from_system(environ)

    assert env({}).color_allowed
    assert env({"NO_COLOR": ""}).color_allowed  # empty means unset, per no-color.org
    assert not env({"NO_COLOR": "1"}).color_allowed


def test_messages_go_to_stderr_only() -> None:
    code, out, err = run_env("solve", "a", "(", "b")
    assert (code, out) == (2, "a\nERROR\nb\n")
    assert err.startswith("ltlwit: <arg 2>: parse error:")


def test_from_system_reads_the_real_streams(monkeypatch) -> None:
    fake_in = io.TextIOWrapper(io.BytesIO(b"x\n"))
    monkeypatch.setattr("sys.stdin", fake_in)
    env = Environment.from_system({})
    assert env.stdin is fake_in.buffer
    assert env.stdin_isatty is False
