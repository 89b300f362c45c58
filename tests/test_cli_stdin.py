"""stdin: read when piped and nothing else is given, or with `-F -`; never waited on from a
terminal (that is a usage error instead)."""

from __future__ import annotations

from cli_support import json_lines, run, run_env


def test_piped_stdin_is_read_when_nothing_else_is_given() -> None:
    result = run("solve", input="a & b\n\n# skip me\n!c\n")
    assert result.exit_code == 0
    assert result.stdout == "a & b\n!c\n"


def test_stdin_is_ignored_when_formulas_are_given() -> None:
    result = run("solve", "x", input="y\n")
    assert result.stdout == "x\n"


def test_dash_reads_stdin_among_other_inputs(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("z\n")
    result = run("solve", "--format", "json", "x", "-F", "-", "-F", str(path), input="y\n")
    assert [(r["input"], r["file"], r["line"]) for r in json_lines(result.stdout)] == [
        ("x", "<arg 1>", 1),
        ("y", "<stdin>", 1),
        ("z", str(path), 1),
    ]


def test_stdin_line_numbers_count_skipped_lines() -> None:
    result = run("solve", "--format", "json", input="# header\n\na\n  \nb U\n")
    records = json_lines(result.stdout)
    assert [(r["line"], r["status"]) for r in records] == [(3, "sat"), (5, "error")]
    assert "ltlwit: <stdin>:5: parse error:" in result.stderr


def test_terminal_stdin_is_not_read() -> None:
    code, out, _ = run_env("solve", "a", stdin=b"b\n", stdin_isatty=True)
    assert (code, out) == (0, "a\n")
    assert run_env("fmt", stdin=b"b\n", stdin_isatty=True)[0] == 2


def test_piped_stdin_through_an_injected_environment() -> None:
    assert run_env("solve", stdin=b"a\r\nb & !b\r\n") == (1, "a\nUNSAT\n", "")


def test_empty_stdin_gives_no_output_and_success() -> None:
    result = run("solve", input="")
    assert (result.exit_code, result.stdout) == (0, "")
