"""`ltlwit verify` (and `ltlwit.verify`) read solve's own answers: `UNSAT` is checked by the
engine proving the formula unsatisfiable again, `UNKNOWN` claims nothing, so solve's output
pasted beside its inputs verifies line by line."""

from __future__ import annotations

import pytest
from cli_support import json_lines, run, run_process

import ltlwit
from ltlwit.cli.status import ExitStatus
from ltlwit.logic.result import Unknown

UNSAT = ["G a & F !a", "GFa & FG!a", "a & !a", "(p -> q) & p & !q", "X X (b & !b)"]
SAT = ["F a", "G(req -> F grant) & F req", "a | b", "p0 U (p1 & X !p0)", "Req & !Uab"]


@pytest.mark.parametrize("formula", UNSAT)
def test_unsat_on_an_unsatisfiable_formula_holds(formula: str) -> None:
    result = run("verify", formula, "UNSAT")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "HOLDS\n", "")
    assert run("verify", formula, "UNSAT core: whatever solve printed").stdout == "HOLDS\n"
    assert ltlwit.verify(formula, "UNSAT") is True


@pytest.mark.parametrize("formula", SAT)
def test_unsat_on_a_satisfiable_formula_fails_and_names_a_witness(formula: str) -> None:
    result = run("verify", formula, "UNSAT")
    assert (result.exit_code, result.stdout) == (ExitStatus.NEGATIVE, "FAILS\n")
    assert result.stderr.startswith("ltlwit: <arg 1>: fails: ") and "satisfies the formula" in result.stderr
    record = json_lines(run("verify", "--format", "json", formula, "UNSAT").stdout)[0]
    assert (record["status"], record["holds"], record["witness"]) == ("fails", False, "UNSAT")
    assert f"{record['counterexample']} satisfies the formula" in record["reason"]
    assert run("verify", formula, record["counterexample"]).stdout == "HOLDS\n"  # a real witness
    assert ltlwit.verify(formula, "UNSAT") is False


def test_unsat_claims_follow_the_semantics() -> None:
    # Strong next: no finite trace has a next instant at every instant; a lasso does.
    assert run("verify", "--finite", "G X a", "UNSAT").stdout == "HOLDS\n"
    infinite = json_lines(run("verify", "--format", "json", "G X a", "UNSAT").stdout)[0]
    assert infinite["status"] == "fails" and "cycle{" in infinite["counterexample"]
    finite = json_lines(run("verify", "--finite", "--format", "json", "F a & G !b", "UNSAT").stdout)[0]
    assert finite["status"] == "fails" and "cycle" not in finite["counterexample"]
    assert ltlwit.verify("G X a", "UNSAT", semantics="finite") is True


def test_unknown_is_no_parse_error_but_nothing_to_check() -> None:
    result = run("verify", "F a", "UNKNOWN")
    assert (result.exit_code, result.stdout) == (ExitStatus.NEGATIVE, "UNKNOWN\n")
    assert "parse error" not in result.stderr and "nothing to check" in result.stderr
    record = json_lines(run("verify", "--format", "json", "F a", "UNKNOWN").stdout)[0]
    assert (record["status"], record["holds"], record["error"]) == ("unknown", None, None)
    with pytest.raises(ValueError, match="nothing to check"):
        ltlwit.verify("F a", "UNKNOWN")


def test_an_undecided_unsat_claim_is_unknown(monkeypatch) -> None:
    from ltlwit.logic import ltl

    monkeypatch.setattr(ltl, "solve", lambda *args, **kwargs: Unknown("memory limit of 1 MiB reached"))
    result = run("verify", "GFa & FG!a", "UNSAT")
    assert (result.exit_code, result.stdout) == (ExitStatus.NEGATIVE, "UNKNOWN\n")
    assert "undecided: memory limit of 1 MiB reached" in result.stderr
    with pytest.raises(ValueError, match="memory limit"):
        ltlwit.verify("GFa & FG!a", "UNSAT")


def test_a_name_spelled_like_a_claim_prints_quoted_and_reads_back() -> None:
    solved = run("solve", "UNSAT & !UNKNOWN")
    assert solved.stdout == '!"UNKNOWN" & "UNSAT"\n'
    assert run("verify", "UNSAT", '"UNSAT"').stdout == "HOLDS\n"  # the AP, true
    assert run("verify", "UNSAT", "UNSAT").stdout == "FAILS\n"  # the claim, about a satisfiable formula


def test_solve_output_pasted_back_into_verify_all_holds(tmp_path) -> None:
    formulas = [*UNSAT, *SAT, "G(a -> X b) & F a & G !b", "F(x & X !x) & G y"]
    path = tmp_path / "formulas.txt"
    path.write_text("".join(f + "\n" for f in formulas))
    for options in ([], ["--core"]):
        solved = run("solve", *options, "-F", str(path))
        answers = solved.stdout.splitlines()
        assert len(answers) == len(formulas) and any(a.startswith("UNSAT") for a in answers)
        pasted = tmp_path / "pasted.txt"  # `paste formulas.txt answers.txt`
        pasted.write_text("".join(f"{f}\t{a}\n" for f, a in zip(formulas, answers)))
        verified = run("verify", "-F", str(pasted))
        assert (verified.exit_code, verified.stdout, verified.stderr) == (0, "HOLDS\n" * len(formulas), "")
    jobs = run_process("verify", "--jobs", "2", "-F", str(pasted))
    assert (jobs.returncode, jobs.stdout.decode()) == (0, "HOLDS\n" * len(formulas))
