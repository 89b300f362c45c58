"""Bad input of any kind: `ltlwit: FILE:LINE: ...` on stderr (parse errors with Spot's caret
rendering), exit status 2, and every other input still processed."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run

import ltlwit


def test_parse_error_names_file_and_line_and_draws_a_caret(tmp_path) -> None:
    path = tmp_path / "specs.txt"
    path.write_text("a\n\n(a U b U) U c & \nb\n")
    result = run("solve", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == "a\nERROR\nb\n"
    lines = result.stderr.splitlines()
    assert lines[0] == f"ltlwit: {path}:3: parse error:"
    assert lines[1] == ">>> (a U b U) U c &"
    caret = lines[2]
    assert caret.strip("^ ") == "" and "^" in caret
    assert len(lines) == 4 and lines[3]  # the reason, one line


def test_argument_errors_are_located_by_argument_number() -> None:
    result = run("solve", "a", "&&")
    assert result.stderr.startswith("ltlwit: <arg 2>: parse error:\n>>> &&\n")


def test_missing_file_and_directory(tmp_path) -> None:
    result = run("solve", "-F", str(tmp_path / "nope.txt"), "-F", str(tmp_path), "ok")
    assert result.exit_code == 2
    assert result.stdout == "ok\n"
    assert f"ltlwit: {tmp_path / 'nope.txt'}: cannot open: No such file or directory" in result.stderr
    assert f"ltlwit: {tmp_path}: cannot open: Is a directory" in result.stderr


def test_binary_junk_is_one_error(tmp_path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 40)
    result = run("solve", "-F", str(junk), "a")
    assert result.exit_code == 2
    assert result.stdout == "a\n"
    assert result.stderr.count("ltlwit:") == 1
    assert "binary data" in result.stderr


def test_non_utf8_line_is_skipped_with_its_line_number(tmp_path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"a\n\xe9t\xe9\nb\n")
    result = run("solve", "--format", "json", "-F", str(path))
    records = json_lines(result.stdout)
    assert [(r["line"], r["status"]) for r in records] == [(1, "sat"), (2, "error"), (3, "sat")]
    assert f"ltlwit: {path}:2: not UTF-8 text" in result.stderr


def test_over_long_line_is_rejected_and_the_next_line_read(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LTLWIT_MAX_LINE_MIB", "0.25")
    path = tmp_path / "long.txt"
    path.write_bytes(b"a\n" + b"b" * (1 << 20) + b"\nc\n")
    result = run("solve", "-F", str(path))
    assert result.exit_code == 2
    assert result.stdout == "a\nERROR\nc\n"
    assert (
        f"ltlwit: {path}:2: line longer than 0.25 MiB; skipped (set LTLWIT_MAX_LINE_MIB to a "
        "larger number of MiB to read it)"
    ) in result.stderr


def test_a_formula_of_a_megabyte_on_stdin_is_answered() -> None:
    line = "G(" + "(req | idle) & " * 70_000 + "F grant)"
    assert len(line) > 1 << 20
    result = run("solve", "--model", "none", input=line + "\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout in ("cycle{req & grant}\n", "cycle{idle & grant}\n")


@pytest.mark.slow
def test_a_formula_of_megabytes_over_sixty_thousand_aps_is_answered() -> None:
    clauses = [f"G(p{i} -> X !p{i})" for i in range(60_000)]
    formula = " & ".join(clauses + ["F p0", "G F p1"])
    result = run("solve", "--model", "none", input=formula + "\n")
    assert result.exit_code == 0, result.stderr
    assert "cycle{" in result.stdout and ltlwit.verify(formula, result.stdout.strip())


def test_deep_nesting_is_answered_not_crashed() -> None:
    deep = "(" * 10_000 + "a" + ")" * 10_000
    assert run("solve", deep).stdout == "a\n"
    broken = "(" * 10_000 + "a" + ")" * 9_999
    result = run("solve", broken)
    assert result.exit_code == 2
    assert "parse error" in result.stderr and "Traceback" not in result.stderr
