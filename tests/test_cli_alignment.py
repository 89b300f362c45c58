"""Text output keeps one line per input (`ltlwit solve|verify|fmt`): an input that fails prints
`ERROR` on stdout, its message still on stderr with FILE:LINE, so `paste inputs.txt
<(ltlwit solve -F inputs.txt)` pairs every input with its own answer, with `--jobs` too.
Blank and comment lines are no inputs and get no line; nor does a file that cannot be read."""

from __future__ import annotations

import csv
import io

from cli_support import json_lines, run, run_env, run_process

from ltlwit.cli.status import ExitStatus

#: Good and bad lines (parse errors at positions 2, 4 and 7), sat, unsat and propositional.
FORMULAS = ["F a", "G(b ->", "a & !a", "X(c U", "G c", "p & !q", "(p", "GFa & FG!a"]
BAD = {1, 3, 6}


def write(tmp_path, name: str, lines: list[str]) -> str:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def alone(*args: str) -> str:
    """The one output line of a command given a single input."""
    result = run(*args)
    assert len(result.stdout.splitlines()) == 1, (args, result.stdout)
    return result.stdout.rstrip("\n")


def test_solve_pairs_every_formula_with_its_own_answer(tmp_path) -> None:
    path = write(tmp_path, "m.txt", FORMULAS)
    result = run("solve", "-F", path)
    assert result.exit_code == ExitStatus.ERROR
    answers = result.stdout.splitlines()
    assert len(answers) == len(FORMULAS)
    for formula, answer in zip(FORMULAS, answers):  # what `paste m.txt <(ltlwit solve -F m.txt)` shows
        assert answer == alone("solve", formula), formula
    assert [i for i, answer in enumerate(answers) if answer == "ERROR"] == sorted(BAD)
    for i in BAD:
        assert f"ltlwit: {path}:{i + 1}: parse error:" in result.stderr
    assert "ERROR" not in result.stderr  # the placeholder is data, the message stays as it was


def test_blank_and_comment_lines_get_no_line_and_unreadable_files_none(tmp_path) -> None:
    plain = write(tmp_path, "plain.txt", FORMULAS)
    spaced = write(tmp_path, "spaced.txt", ["# a comment", "", *FORMULAS[:4], "   ", "# more", *FORMULAS[4:]])
    expected = run("solve", "-F", plain).stdout
    assert run("solve", "-F", spaced).stdout == expected
    missing = run("solve", "-F", str(tmp_path / "missing.txt"), "-F", plain)
    assert missing.exit_code == ExitStatus.ERROR and missing.stdout == expected
    assert "missing.txt: cannot open" in missing.stderr


def test_other_errors_than_parse_errors_get_their_line_too() -> None:
    result = run("solve", "--logic", "prop", "a & b", "F a", "c")
    assert result.exit_code == ExitStatus.ERROR
    assert result.stdout.splitlines() == ["a & b", "ERROR", "c"]
    assert "<arg 2>: logic prop is for propositional formulas" in result.stderr


def test_json_csv_and_table_carry_a_row_per_input(tmp_path) -> None:
    path = write(tmp_path, "m.txt", FORMULAS)
    records = json_lines(run("solve", "--format", "json", "-F", path).stdout)
    assert [r["input"] for r in records] == FORMULAS
    assert {i for i, r in enumerate(records) if r["status"] == "error"} == BAD
    rows = list(csv.DictReader(io.StringIO(run("solve", "--format", "csv", "-F", path).stdout)))
    assert [r["input"] for r in rows] == FORMULAS
    assert {i for i, r in enumerate(rows) if r["status"] == "error"} == BAD
    code, table, _ = run_env("solve", "--model", "none", "--format", "table", *FORMULAS, color_allowed=False)
    assert code == ExitStatus.ERROR and table.count("ERROR") == len(BAD)


def test_a_csv_row_quotes_an_input_holding_a_carriage_return(tmp_path) -> None:
    """A bare CR inside a line is part of that line's input, and the CSV cell that repeats it
    is quoted (unquoted, a CSV reader saw a row end there: 21 rows for 19 inputs)."""
    path = tmp_path / "cr.txt"
    path.write_bytes(b"a &\r b\nF c\n")
    rows = list(csv.DictReader(io.StringIO(run("solve", "--format", "csv", "-F", str(path)).stdout, newline="")))
    assert [r["input"] for r in rows] == ["a &\r b", "F c"]


def test_jobs_print_the_same_lines_as_one_process(tmp_path) -> None:
    # Enough lines, with their own names, for the chunks to spread over both workers.
    lines = [f.replace("a", f"a{k}") for k in range(40) for f in FORMULAS]
    path = write(tmp_path, "many.txt", lines)
    one = run_process("solve", "-F", path)
    two = run_process("solve", "--jobs", "2", "-F", path)
    assert two.stdout == one.stdout and two.returncode == one.returncode == ExitStatus.ERROR
    answers = one.stdout.decode().splitlines()
    assert len(answers) == len(lines)
    assert [i for i, a in enumerate(answers) if a == "ERROR"] == [i for i in range(len(lines)) if i % 8 in BAD]
    assert f"{path}:2: parse error".encode() in two.stderr


def test_verify_pairs_every_line_with_its_own_verdict(tmp_path) -> None:
    pairs = ["F a\tcycle{a}", "G(b ->\tcycle{b}", "no tab here", "F a\tcycle{!a}", "a\t{{", "p & q\tp1q1"]
    path = write(tmp_path, "pairs.txt", pairs)
    result = run("verify", "-F", path)
    assert result.exit_code == ExitStatus.ERROR
    verdicts = result.stdout.splitlines()
    assert verdicts == ["HOLDS", "ERROR", "ERROR", "FAILS", "ERROR", "HOLDS"]
    for pair, verdict in zip(pairs, verdicts):
        if "\t" in pair:
            assert verdict == alone("verify", *pair.split("\t")), pair
    assert f"ltlwit: {path}:2: parse error in the formula:" in result.stderr
    assert f"ltlwit: {path}:3: expected FORMULA<TAB>WITNESS" in result.stderr
    assert f"ltlwit: {path}:5: parse error in the witness" in result.stderr
    jobs = run_process("verify", "--jobs", "2", "-F", path)
    assert (jobs.returncode, jobs.stdout.decode()) == (ExitStatus.ERROR, result.stdout)
    assert json_lines(run("verify", "--format", "json", "-F", path).stdout)[2]["status"] == "error"


def test_fmt_pairs_every_formula_with_its_conversion(tmp_path) -> None:
    lines = ["a & b", "G(b ->", "req & b", "Fa", "(a"]  # `req` has no network-Polish spelling
    path = write(tmp_path, "f.txt", lines)
    result = run("fmt", "--to", "polish", "-F", path)
    assert result.exit_code == ExitStatus.ERROR
    converted = result.stdout.splitlines()
    assert converted == ["&ab", "ERROR", "ERROR", "Fa", "ERROR"]
    for line, out in zip(lines, converted):
        assert out == alone("fmt", "--to", "polish", line), line
    assert f"ltlwit: {path}:2: parse error:" in result.stderr
    assert f"ltlwit: {path}:3: cannot print in polish syntax" in result.stderr
