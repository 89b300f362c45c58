"""`--format json`: JSON Lines, one object per input with a fixed set of keys, in input order."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run

from ltlwit.logic.prop import entails
from ltlwit.logic.syntax import ParseError, parse_assignment, parse_formula, parse_trace

SOLVE_KEYS = {
    "input",
    "file",
    "line",
    "name",
    "logic",
    "status",
    "witness",
    "witness_polish",
    "assignment",
    "source",
    "rank",
    "candidates_tried",
    "models_skipped",
    "semantics",
    "verified",
    "core",
    "core_minimal",
    "time_ms",
    "reason",
    "error",
    "warnings",
}


def test_one_object_per_input_with_every_key(tmp_path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("# propositional\n(a -> b) & !b\n\nG(req -> F grant)\na & !a\na U U\n")
    result = run("solve", "--format", "json", "x | y", "-F", str(path))
    records = json_lines(result.stdout)
    assert [r["input"] for r in records] == ["x | y", "(a -> b) & !b", "G(req -> F grant)", "a & !a", "a U U"]
    assert all(set(r) == SOLVE_KEYS for r in records)
    assert [(r["file"], r["line"]) for r in records] == [
        ("<arg 1>", 1),
        (str(path), 2),
        (str(path), 4),
        (str(path), 5),
        (str(path), 6),
    ]
    assert [r["status"] for r in records] == ["sat", "sat", "sat", "unsat", "error"]
    assert [r["logic"] for r in records] == ["prop", "prop", "ltl", "prop", None]
    assert [r["source"] for r in records] == ["sat-solver", "sat-solver", "engine", "sat-solver", None]
    assert all(isinstance(r["time_ms"], float) and r["time_ms"] >= 0 for r in records)
    assert [r["verified"] for r in records] == [True, True, True, None, None]  # set exactly with a witness
    assert all(r["rank"] is None and r["candidates_tried"] == 0 for r in records)  # no model ran
    assert result.exit_code == 2


def test_witness_polish_is_deepltl_notation() -> None:
    records = json_lines(
        run(
            "solve", "--format", "json", "--model", "none", "(a -> b) & a", "X !c & a", "G(req -> F grant) & F req"
        ).stdout
    )
    assert [r["witness_polish"] for r in records[:1]] == ["a1b1"]
    for record in records[1:]:
        assert parse_trace(record["witness_polish"], "polish") == parse_trace(record["witness"], "spot")


def test_propositional_record() -> None:
    (record,) = json_lines(run("solve", "--format", "json", "(a -> b) & !b").stdout)
    assert record["assignment"] == {"a": False, "b": False}
    assert record["witness"] == "!a & !b"
    assert parse_assignment(record["witness"]).as_dict() == record["assignment"]
    assert entails(parse_assignment(record["witness"]), parse_formula(record["input"]))
    assert record["error"] is None and record["reason"] is None


def test_tautology_record_has_the_empty_assignment() -> None:
    (record,) = json_lines(run("solve", "--format", "json", "a | !a").stdout)
    assert (record["status"], record["witness"], record["assignment"]) == ("sat", "1", {})


def test_ltl_record_has_a_lasso_witness_and_no_assignment() -> None:
    (record,) = json_lines(run("solve", "--format", "json", "G(req -> F grant) & F req").stdout)
    assert record["logic"] == "ltl" and record["assignment"] is None
    trace = parse_trace(record["witness"], "spot")
    from ltlwit.logic.ltl import holds

    assert holds(parse_formula(record["input"]), trace)


def test_logic_ltl_forces_the_engine_on_a_propositional_formula() -> None:
    (record,) = json_lines(run("solve", "--format", "json", "--logic", "ltl", "a & !b").stdout)
    assert record["logic"] == "ltl" and record["source"] == "engine"
    assert record["witness"].startswith("cycle{") and record["assignment"] is None


def test_error_record_carries_the_message_and_stderr_the_caret() -> None:
    result = run("solve", "--format", "json", "a U (")
    (record,) = json_lines(result.stdout)
    assert record["status"] == "error"
    with pytest.raises(ParseError) as info:
        parse_formula("a U (")
    assert record["error"] == f"parse error: {info.value}"
    assert record["witness"] is None
    assert ">>> a U (" in result.stderr


def test_unknown_record_has_a_reason(monkeypatch) -> None:
    from ltlwit.logic import ltl
    from ltlwit.logic.result import Unknown

    monkeypatch.setattr(
        ltl,
        "solve",
        lambda formula, budget=None, engine="auto", semantics="infinite": Unknown("state budget exhausted"),
    )
    result = run("solve", "--format", "json", "--timeout", "1", "G F a")
    (record,) = json_lines(result.stdout)
    assert (record["status"], record["reason"], record["source"]) == ("unknown", "state budget exhausted", "engine")
    assert record["witness"] is None and record["error"] is None
    assert result.stderr == ""  # JSON carries the reason; stderr is for errors


def test_non_ascii_is_kept_readable() -> None:
    (record,) = json_lines(run("solve", "--format", "json", '"é" & b').stdout)
    assert record["assignment"] == {"é": True, "b": True}
    assert "é" in run("solve", "--format", "json", '"é" & b').stdout
