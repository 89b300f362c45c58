"""`--validator` on solve, verify, check and the API: a second implementation must agree with
the builtin checker before a witness is printed, and a disagreement is an error naming each
verdict (never a silent pass); what cannot run is a usage error up front."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run

import ltlwit
from ltlwit.logic import validators
from ltlwit.logic.validators import Validation


@pytest.fixture
def lying_aiger(monkeypatch):
    """The aiger validator replaced by one that rejects every witness (a bug to be caught)."""
    monkeypatch.setitem(
        validators.VALIDATORS,
        "aiger",
        lambda formula, witness, semantics="infinite": Validation(False, ({"a": False},), 0),
    )


def test_solve_with_a_second_validator_answers_as_before() -> None:
    for jobs in ("1", "2"):
        out = run(
            "solve", "--validator", "aiger", "-j", jobs, "--format", "json", "G(a -> F b) & F a", "a & !a", "x | y"
        )
        rows = json_lines(out.stdout)
        assert out.exit_code == 1 and [r["status"] for r in rows] == ["sat", "unsat", "sat"]
        assert rows[0]["verified"] is True and rows[2]["verified"] is True


def test_a_disagreement_is_an_error_naming_each_verdict(lying_aiger) -> None:
    out = run("solve", "--validator", "aiger", "G(a -> F b)", "a & !a")
    assert out.exit_code == 2
    assert out.stdout.splitlines() == ["ERROR", "UNSAT"]  # no witness printed as verified
    assert "the validators disagree" in out.stderr and "builtin: holds" in out.stderr
    assert "aiger: fails (counterexample cycle{!a})" in out.stderr and "G(a -> Fb)" in out.stderr
    [row] = json_lines(run("solve", "--validator", "aiger", "--format", "json", "F a").stdout)
    assert row["status"] == "error" and row["witness"] is None and row["verified"] is None
    verified = run("verify", "--validator", "aiger", "F a", "cycle{a}")
    assert verified.exit_code == 2 and verified.stdout == "ERROR\n" and "aiger: fails" in verified.stderr
    with pytest.raises(ValueError, match="the validators disagree"):
        ltlwit.verify("F a", "cycle{a}", validators="aiger")
    with pytest.raises(ValueError, match="the validators disagree"):
        ltlwit.solve("F a", model="none", validators="aiger")
    assert run("solve", "F a").stdout == "cycle{a}\n"  # the builtin alone: unaffected


def test_verify_and_check_with_the_aiger_validator(tmp_path) -> None:
    out = run("verify", "--validator", "aiger", "-F", "-", input="F a\tcycle{a}\nG a\ta; cycle{!a}\n")
    assert out.stdout.splitlines() == ["HOLDS", "FAILS"]
    spec = tmp_path / "s.spec"
    spec.write_text("resp: G(req -> F grant)\nquiet: G !grant & G !req\n")
    assert run("check", "--validator", "aiger", str(spec)).exit_code == 0


def test_a_trace_with_values_is_judged_by_the_builtin_checker_alone() -> None:
    """The aiger validator reads letters, not values: a trace with values (`y = 2`) beside a
    formula without data atoms is judged by the exact evaluator, with a warning saying so
    (the fuzzer's 'internal error: IndexError'), as a formula over data is."""
    out = run("verify", "--finite", "--validator", "aiger", "-F", "-", input="1\ty = 34.81 & z = 10; y = 2\n")
    assert out.exit_code == 0 and out.stdout == "HOLDS\n"
    assert "warning: the aiger validator cannot judge data atoms or values" in out.stderr
    assert "internal error" not in out.stderr


def test_a_second_opinion_stops_at_the_timeout() -> None:
    """The aiger validator unrolls a lasso once per stacked past operator: quadratic in a
    formula of 1,000 `H` (seconds of circuit building). It stops at --timeout like the engine,
    and the builtin checker's witness stands with a warning (the fuzzer's 28.7 s reproducer)."""
    deep = "H " * 1000 + "p"
    said = "warning: the aiger validator gave no opinion (time budget exhausted while judging the witness again)"
    solved = run("solve", "--timeout", "0.5", "--validator", "aiger", deep)
    assert solved.exit_code == 0 and solved.stdout == "cycle{p}\n" and said in solved.stderr
    verified = run("verify", "--timeout", "0.5", "--validator", "aiger", deep, "cycle{p}")
    assert verified.exit_code == 0 and verified.stdout == "HOLDS\n" and said in verified.stderr
    small = run("solve", "--timeout", "10", "--validator", "aiger", "H H p")
    assert small.stdout == "cycle{p}\n" and "warning" not in small.stderr  # time enough: judged


def test_what_cannot_run_is_a_usage_error() -> None:
    out = run("solve", "--validator", "aiger,nope", "F a")
    assert out.exit_code == 2 and "unknown validator 'nope'" in out.stderr and out.stdout == ""
    with pytest.raises(ValueError, match="unknown validator"):
        ltlwit.solve("F a", validators=["nope"])
