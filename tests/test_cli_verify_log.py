"""`verify --log`: requirements checked against a log of states. Messages name the log's own
lines (`FILE:LINE`, header included, whatever ends its lines) and instants from 0; a problem
with the log is told once, however many requirements it stops; columns nothing declares get
their sorts from their values; reading and checking stop at --timeout and --max-memory (driven
here by a fake clock and a fake memory reading, never the wall clock)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import json_lines, run

from ltlwit.logic import budget
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.verify import Requirement, VerifyOptions, verify_log


def _log(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# -- lines and instants ------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_violation_names_the_file_s_line_past_a_field_over_several_lines(tmp_path, newline: str) -> None:
    """Line 1 the header, line 2 a blank line, lines 3-5 one row whose quoted note spans three
    lines: the row of x = 9 is on line 7 whatever ends the lines, and it is instant 2."""
    rows = ["x,note", "", "1,ok", '2,"first', "second", 'third"', "9,late", "3,ok"]
    log = _log(tmp_path, "run.csv", newline.join(rows).encode() + newline.encode())
    result = run("verify", "--log", log, "G(x <= 4)")
    assert result.stdout == f"FAILS G(x <= 4): first violated at {log}:7 (instant 2)\n"
    assert result.exit_code == 1
    record = json_lines(run("verify", "--log", log, "--format", "json", "G(x <= 4)").stdout)[0]
    assert (record["violated_at"], record["violated_line"]) == (2, 7)


@pytest.mark.parametrize(
    ("data", "holds"),
    [(b"x\r0\n", True), (b"x\n0\r1\n", True), (b"x\r0\r1\n", True), (b"x\r0\r5\n", False)],
)
def test_bare_carriage_returns_end_rows(tmp_path, data: bytes, holds: bool) -> None:
    log = _log(tmp_path, "cr.csv", data)
    result = run("verify", "--log", log, "G(x <= 3)")
    assert result.stderr == ""
    expected = "HOLDS G(x <= 3)\n" if holds else f"FAILS G(x <= 3): first violated at {log}:3 (instant 1)\n"
    assert result.stdout == expected


def test_json_lines_name_their_lines(tmp_path) -> None:
    log = _log(tmp_path, "run.jsonl", b'{"x": 1}\n\n{"x": 2}\r\n{"x": 7}\n')
    assert run("verify", "--log", log, "G(x < 5)").stdout == f"FAILS G(x < 5): first violated at {log}:4 (instant 2)\n"
    gap = _log(tmp_path, "gap.jsonl", b'{"x": 1, "y": 1}\n{"x": 2}\n{"x": 3, "y": null}\n')
    result = run("verify", "--log", gap, "G(x < 5)", "G(y < 5)")
    assert result.stdout == "HOLDS G(x < 5)\nERROR G(y < 5)\n"
    assert result.stderr == f"ltlwit: {gap}:2: no value for y (and 1 more, the last at {gap}:3)\n"


# -- problems with the log, once each ------------------------------------------------------------


def test_a_problem_with_the_log_is_told_once_for_all_requirements_it_stops(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"x,p\n1,true\n2,false,extra\n3\n")
    result = run("verify", "--log", log, "G(x <= 3)", "F(p)")
    assert result.exit_code == 2
    assert result.stdout == "ERROR G(x <= 3)\nERROR F(p)\n"
    assert result.stderr.splitlines() == [
        f"ltlwit: {log}:3: 3 values for 2 columns (x, p)",
        f"ltlwit: {log}:4: 1 value for 2 columns (x, p)",
    ]
    records = json_lines(run("verify", "--log", log, "--format", "json", "G(x <= 3)", "F(p)").stdout)
    assert [r["error"] for r in records] == [
        f"{log}:3: 3 values for 2 columns (x, p); {log}:4: 1 value for 2 columns (x, p)"
    ] * 2


def test_a_log_with_many_bad_rows_tells_the_first_and_counts_the_others(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"x,y\n" + b"1;2\n" * 12 + b"3,4\n")
    lines = run("verify", "--log", log, "G(x < 5)").stderr.splitlines()
    assert lines[:2] == [
        f"ltlwit: {log}:2: 1 value for 2 columns (x, y)",
        f"ltlwit: {log}:3: 1 value for 2 columns (x, y)",
    ]
    assert lines[10:] == [f"ltlwit: {log}:13: and 2 more rows with problems, the last here"]


def test_a_bad_cell_stops_only_the_requirements_that_read_its_column(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"x,p\n1,true\n2,maybe\n5,false\n3,yes\n")
    result = run("verify", "--log", log, "G(p -> x > 0)", "G(x <= 3)", "F(p & x = 3)")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [
        "ERROR G(p -> x > 0)",
        f"FAILS G(x <= 3): first violated at {log}:4 (instant 2)",
        "ERROR F(p & x = 3)",
    ]
    assert result.stderr == f"ltlwit: {log}:3: p is a proposition, and 'maybe' is not true or false\n"


@pytest.mark.parametrize("name, data", [("run.csv", "x\n1\n{big}\n"), ("run.jsonl", '{{"x": 1}}\n{{"x": {big}}}\n')])
def test_a_number_too_long_to_read_is_told_in_ltlwit_s_words(tmp_path, name: str, data: str) -> None:
    """Python converts at most 4,300 digits to a number, and said so: 'use sys.set_int_max_str_digits()'."""
    log = _log(tmp_path, name, data.format(big="8" * 5000).encode())
    result = run("verify", "--log", log, "G(x > 0)")
    assert result.exit_code == 2
    line = 3 if name.endswith(".csv") else 2
    field = "x: " if name.endswith(".csv") else ""
    assert (
        result.stderr
        == f"ltlwit: {log}:{line}: {field}numeral 888888888888... (5,000 digits) too long (at most 4,000 characters)\n"
    )


def test_a_name_no_column_has_is_told_once(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"speed,mode\n1,off\n")
    result = run("verify", "--log", log, "G(sped < 3)", "F(sped = 2)")
    assert result.stdout == "ERROR G(sped < 3)\nERROR F(sped = 2)\n"
    assert result.stderr == f"ltlwit: {log}:1: no column sped (did you mean speed?)\n"


def test_a_declared_name_no_column_has_is_told_too(tmp_path) -> None:
    """`--var x:Real` gives x a sort, not a column: the log must still have it (an internal
    'KeyError' once), and a declared enumeration's values are no columns."""
    log = _log(tmp_path, "run.csv", b"(x,y\n1,2\n")
    result = run(
        "verify", "--log", log, "--var", "x:Real", "--var", "m:{a,b}", "O[<=3] (x = 0)", "G(m = a)", "G(y > 0)"
    )
    assert result.stdout == "ERROR O[<=3] (x = 0)\nERROR G(m = a)\nHOLDS G(y > 0)\n"
    assert result.stderr.splitlines() == [
        f"ltlwit: {log}:1: no column x (did you mean (x?)",
        f"ltlwit: {log}:1: no column m (the columns: (x, y)",
    ]


def test_a_csv_error_is_a_line_of_the_log_and_the_other_inputs_go_on(tmp_path) -> None:
    big = "a" * 200_000  # over the csv module's field limit
    log = _log(tmp_path, "run.csv", f'x,note\n1,ok\n2,"{big}"\n'.encode())
    result = run("verify", "--log", log, "G(x <= 3)", "-F", _log(tmp_path, "more.txt", b"F(x = 2)\n"))
    assert result.exit_code == 2
    assert result.stdout == "ERROR G(x <= 3)\nERROR " + str(tmp_path / "more.txt") + ":1\n"
    assert result.stderr == f"ltlwit: {log}:3: not CSV: field larger than field limit (131072)\n"
    assert "internal error" not in result.stderr


def test_a_log_that_is_not_text(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"x,name\n1,caf\xe9\n2,ok\n")
    result = run("verify", "--log", log, "G(x > 0)", "F(name = ok)")
    assert result.stdout == "HOLDS G(x > 0)\nERROR F(name = ok)\n"
    assert result.stderr == f"ltlwit: {log}:2: name: not UTF-8 text\n"


# -- columns' sorts, inferred ------------------------------------------------------------------


def test_an_integer_column_divides_as_integers_and_a_decimal_one_exactly(tmp_path) -> None:
    """x / 2 = 1 holds for x = 3 in Int (Euclidean division), not in Real (1.5)."""
    ints = _log(tmp_path, "int.csv", b"x\n2\n3\n")
    reals = _log(tmp_path, "real.csv", b"x\n2\n3.0\n")
    assert run("verify", "--log", ints, "G(x / 2 = 1)").stdout == "HOLDS G(x / 2 = 1)\n"
    assert run("verify", "--log", reals, "G(x / 2 = 1)").stdout == (
        f"FAILS G(x / 2 = 1): first violated at {reals}:3 (instant 1)\n"
    )
    # what the user declares wins: Real for the integers, Int refuses the decimal at its line
    declared = run("verify", "--log", ints, "--var", "x:Real", "G(x / 2 = 1)")
    assert declared.stdout == f"FAILS G(x / 2 = 1): first violated at {ints}:3 (instant 1)\n"
    assert run("verify", "--log", ints, "--domain", "Real", "G(x / 2 = 1)").stdout.startswith("FAILS")
    halves = _log(tmp_path, "halves.csv", b"x\n2\n2.5\n")
    clash = run("verify", "--log", halves, "--var", "x:Int", "G(x / 2 = 1)")
    assert clash.exit_code == 2 and clash.stderr == f"ltlwit: {halves}:3: x is Int, and 2.5 is not an integer\n"


def test_a_column_of_words_is_an_enumeration_with_the_requirement_s_words(tmp_path) -> None:
    log = _log(tmp_path, "pump.csv", b"pump_mode,x\noff,5\non,2\nstandby,3\non,9\n")
    result = run("verify", "--log", log, "G(pump_mode = standby -> x <= 3)", "G(pump_mode != off -> x <= 3)")
    assert result.stdout.splitlines() == [
        "HOLDS G(pump_mode = standby -> x <= 3)",
        f"FAILS G(pump_mode != off -> x <= 3): first violated at {log}:5 (instant 3)",
    ]
    assert result.stderr == ""
    # `boost` never appears: a value of the enumeration all the same, with a warning
    unseen = run("verify", "--log", log, "G(pump_mode = boost -> x > 100)")
    assert unseen.stdout == "HOLDS G(pump_mode = boost -> x > 100)\n"
    assert "pump_mode never is boost in" in unseen.stderr and "(misspelled?)" in unseen.stderr
    # an enumeration is not compared with numbers, nor ordered
    assert run("verify", "--log", log, "G(pump_mode = 3)").exit_code == 2


def test_columns_sharing_words_share_an_enumeration(tmp_path) -> None:
    log = _log(tmp_path, "modes.csv", b"mode,last\noff,off\non,off\non,on\n")
    result = run("verify", "--log", log, "G(mode = last | (mode = on & last = off))", "G(next(mode) = mode)")
    assert result.stdout.splitlines() == [
        "HOLDS G(mode = last | (mode = on & last = off))",
        f"FAILS G(next(mode) = mode): first violated at {log}:2 (instant 0)",
    ]


def test_a_word_among_numbers_or_a_word_that_names_a_column_is_an_error(tmp_path) -> None:
    mixed = _log(tmp_path, "mixed.csv", b"x\n1\n2\noff\n3\n")
    result = run("verify", "--log", mixed, "G(x < 5)")
    assert result.exit_code == 2 and result.stderr == f"ltlwit: {mixed}:4: x is Int, and off is a word, not a number\n"
    among = _log(tmp_path, "among.csv", b"mode\noff\n3\non\n")
    result = run("verify", "--log", among, "F(mode = on)")
    assert result.stderr == f"ltlwit: {among}:3: mode is {{off, on}}, and 3 is a number\n"
    named = _log(tmp_path, "named.csv", b"mode,on\noff,1\non,0\n")
    result = run("verify", "--log", named, "F(mode = off)")
    assert result.stderr == f"ltlwit: {named}:3: mode's value on is also the name of a column\n"


@pytest.mark.parametrize("values", [("true", "false"), ("TRUE", "FALSE"), ("1", "0")])
def test_a_column_used_as_a_proposition_is_bool(tmp_path, values: tuple[str, str]) -> None:
    yes, no = values
    log = _log(tmp_path, "valve.csv", f"valve,x\n{no},0\n{yes},4\n{yes},0\n".encode())
    result = run("verify", "--log", log, "G(valve -> x > 0)", "F(valve & x = 4)")
    assert result.stdout.splitlines() == [
        f"FAILS G(valve -> x > 0): first violated at {log}:4 (instant 2)",
        "HOLDS F(valve & x = 4)",
    ]


def test_json_numbers_and_truths_keep_their_kinds(tmp_path) -> None:
    rows = [{"x": 3, "r": 3.0, "ok": True}, {"x": 2, "r": 2.5, "ok": False}]
    log = _log(tmp_path, "run.jsonl", "\n".join(json.dumps(r) for r in rows).encode())
    result = run("verify", "--log", log, "G(x / 2 = 1)", "G(r / 2 >= 1.25)", "F(ok & x = 3)")
    assert result.stdout.splitlines() == ["HOLDS G(x / 2 = 1)", "HOLDS G(r / 2 >= 1.25)", "HOLDS F(ok & x = 3)"]


# -- limits ------------------------------------------------------------------------------------


def _requirements(*texts: str) -> list[Requirement]:
    return [Requirement(InputItem(t, f"<arg {n}>", n, from_argument=True), t) for n, t in enumerate(texts, 1)]


@pytest.fixture
def ticking(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock that moves a millisecond each time it is read."""
    now = [1000.0]

    def clock() -> float:
        now[0] += 0.001
        return now[0]

    monkeypatch.setattr(budget.time, "perf_counter", clock)
    monkeypatch.setattr(budget, "resident_bytes", lambda: 0)
    return now


def test_the_reading_of_a_long_log_stops_at_the_deadline(tmp_path, ticking) -> None:
    log = _log(tmp_path, "long.csv", b"x\n" + b"1\n" * 20_000)
    options = VerifyOptions(timeout=0.01, max_memory=0)
    verdicts = list(verify_log(_requirements("G(x < 5)", "F(x = 1)"), log, options))
    assert [v.status for v in verdicts] == ["unknown", "unknown"]
    reason = verdicts[0].message
    assert reason.startswith(f"time budget exhausted while reading the log ({log}, read up to line ")
    assert int(reason.rsplit(" ", 1)[1].rstrip(")")) < 20_001  # stopped, not read to the end
    assert verdicts[1].message == reason  # read once


def test_the_check_of_a_long_log_stops_at_the_deadline(tmp_path, ticking) -> None:
    """The reading (a clock read per 256 lines) fits in 50 ms; the check over the 5,000
    instants reads it every few dozen, and stops."""
    log = _log(tmp_path, "long.csv", b"x\n" + b"1\n" * 5_000)
    options = VerifyOptions(timeout=0.05, max_memory=0)
    (verdict,) = verify_log(_requirements("G(x < 5)"), log, options)
    assert (verdict.status, verdict.message) == ("unknown", "time budget exhausted while checking the log")
    (again,) = verify_log(_requirements("G(x < 5)"), log, VerifyOptions(max_memory=0))
    assert again.status == "holds"


def test_the_reading_stops_at_the_memory_ceiling(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(budget, "resident_bytes", lambda: 2 << 20)
    monkeypatch.setattr(budget, "MEMORY_EVERY", 0.0)
    log = _log(tmp_path, "long.csv", b"x\n" + b"1\n" * 1_000)
    (verdict,) = verify_log(_requirements("G(x < 5)"), log, VerifyOptions(max_memory=1))
    assert verdict.status == "unknown"
    assert verdict.message.startswith("memory limit of 1 MiB reached while reading the log")


def test_timeout_and_max_memory_are_verify_options(tmp_path) -> None:
    log = _log(tmp_path, "run.csv", b"x\n1\n")
    assert run("verify", "--log", log, "--timeout", "30", "--max-memory", "0", "G(x < 5)").stdout == "HOLDS G(x < 5)\n"
    # an UNSAT claim's proof has --timeout too: a microsecond is spent before the engine answers
    formula = "(G F p0 -> G F p1) & (G F p2 -> G F p3) & G(p1 -> !p3) & G F p0 & G F p2"
    assert run("verify", formula, "UNSAT").stdout == "FAILS\n"
    spent = run("verify", "--timeout", "0.000001", formula, "UNSAT")
    assert spent.stdout == "UNKNOWN\n" and "time budget exhausted" in spent.stderr
