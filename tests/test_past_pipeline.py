"""Past operators through everything that takes a formula: the pipeline skips the models for
them and says so (JSON/CSV `models_skipped`, one notice a run, `--no-fallback`'s reason), the
engine answers with verified witnesses, `--jobs`/`--shard` agree with one process, `check`
spec files and `--vacuity` read them, the Python API solves and verifies them, and Spot's
engine refuses them per input instead of misreading `O b` as an AP `Ob`."""

from __future__ import annotations

import csv
import io
import random

import pytest
from cli_support import json_lines, run, run_process
from ltl_reference import random_completions, satisfies
from test_pipeline import Fake
from test_pipeline import run as run_pipeline

import ltlwit
from ltlwit.logic.ltl import holds
from ltlwit.logic.ltl import solve as engine_solve
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.trace import Trace

PAST_INPUTS = [
    "G(grant -> O req) & F grant",
    "Y a",
    "G(p <-> Y !p) & X p",
    "(a S b) & !b",
    "H a & F !a",
    "G(b -> Y Y a) & F b",
    "Z Z 0 | O(a & Y a)",
    "(a T b) & F !b",
]


def by_reference(formula_text: str, trace: Trace) -> bool:
    """The engine-free evaluator on random concrete words of the trace."""
    f = parse_formula(formula_text)
    names = list(dict.fromkeys(f.aps() + trace.aps()))
    return all(satisfies(f, p, c) for p, c in random_completions(trace, names, random.Random(1)))


def test_past_formulas_skip_a_model_and_the_answer_says_why() -> None:
    witness = parse_trace("cycle{a}")
    model = Fake(lambda f: [witness])
    answers = run_pipeline(["a S b", "F a", "H b"], model)
    assert [len(c) for c in model.calls] == [1]  # only the future formula reached the model
    assert str(model.calls[0][0]) == "1 U a"
    assert [a.source for a in answers] == ["engine", "model:si", "engine"]
    assert answers[0].models_skipped == answers[2].models_skipped == "past operators (the models know future-only LTL)"
    assert answers[1].models_skipped is None
    assert all(a.verified and by_reference(t, a.witness) for t, a in zip(["a S b", "F a", "H b"], answers))


def test_models_skipped_is_null_without_models_and_says_other_reasons() -> None:
    assert [a.models_skipped for a in run_pipeline(["a S b", "F a"])] == [None, None]
    narrow = Fake(lambda f: [], max_aps=1)
    assert run_pipeline(["F a & F b"], narrow)[0].models_skipped == "more APs (2) than the models tell apart"
    big = " & ".join(f"F p{i}" for i in range(40))
    assert run_pipeline([big], Fake(lambda f: []))[0].models_skipped == "too large (over 128 tokens in core form)"


def test_no_fallback_says_the_models_skipped_a_past_formula() -> None:
    [answer] = run_pipeline(["O a"], Fake(lambda f: []), fallback=False)
    assert answer.status == "unknown"
    assert answer.message == (
        "the models skipped the formula: past operators (the models know future-only LTL) (--no-fallback)"
    )


def test_the_pipeline_notices_the_skip_once_a_run() -> None:
    from ltlwit.pipeline import Pipeline
    from ltlwit.pipeline.inputs import InputItem
    from ltlwit.pipeline.options import SolveOptions

    said: list[str] = []
    items = [InputItem(t, "<arg>", 1, from_argument=True) for t in ("Y a", "F a", "O b", "a S b")]
    list(
        Pipeline(SolveOptions(), sources={"ltl": [Fake(lambda f: [])]}, notify=lambda t, e=None: said.append(t)).run(
            items
        )
    )
    assert len(said) == 1 and "past operators" in said[0] and "skip the models" in said[0]
    quiet: list[str] = []
    list(Pipeline(SolveOptions(model="none"), notify=lambda t, e=None: quiet.append(t)).run(items))
    assert quiet == []  # no model in use: nothing was skipped


def test_cli_json_csv_and_text_answer_past_formulas() -> None:
    result = run("solve", "--format", "json", *PAST_INPUTS)
    records = json_lines(result.output)
    assert [r["status"] for r in records] == ["sat", "unsat", "sat", "unsat", "sat", "sat", "sat", "sat"]
    for text, r in zip(PAST_INPUTS, records):
        assert "models_skipped" in r and r["models_skipped"] is None  # model auto on a CPU: none in use
        if r["status"] == "sat":
            assert r["verified"] is True and by_reference(text, parse_trace(r["witness"]))
            assert ltlwit.verify(text, r["witness"])
    rows = list(csv.DictReader(io.StringIO(run("solve", "--format", "csv", "Y a", "O a").output)))
    assert "models_skipped" in rows[0] and [r["status"] for r in rows] == ["unsat", "sat"]


def test_jobs_and_shards_answer_past_formulas_as_one_process_does(tmp_path) -> None:
    path = tmp_path / "past.txt"
    path.write_text("\n".join(PAST_INPUTS * 3 + ["a S"]) + "\n")
    whole = json_lines(run_process("solve", "--format", "json", "-F", str(path)).stdout.decode())
    jobs = run_process("solve", "--format", "json", "-j", "2", "-F", str(path))
    assert jobs.returncode == 2  # the parse error on the last line; every other line answered
    strip = [{k: v for k, v in r.items() if k != "time_ms"} for r in whole]
    assert [{k: v for k, v in r.items() if k != "time_ms"} for r in json_lines(jobs.stdout.decode())] == strip
    shard = json_lines(run_process("solve", "--format", "json", "--shard", "1/2", "-F", str(path)).stdout.decode())
    assert [{k: v for k, v in r.items() if k != "time_ms"} for r in shard] == strip[1::2]


def test_check_reads_past_specs_and_their_vacuity(tmp_path) -> None:
    spec = tmp_path / "past.spec"
    spec.write_text("resp: G(grant -> O(req | c))\nquiet: G !grant\nfirst: G(b -> Y a) & F b\n")
    out = run("check", "--vacuity", str(spec))
    assert out.exit_code == 1
    lines = out.output.splitlines()
    assert lines[3].startswith("PASS (all 3 specs") and "jointly satisfiable" in lines[3]  # after each spec's own
    vacuous = [line.split()[6] for line in lines if "VACUOUS" in line]
    assert vacuous == ["'req'", "'c'"]  # `quiet` rules out every grant: what precedes one never matters
    toml = tmp_path / "past.toml"
    toml.write_text(
        '[[spec]]\nname = "start"\nformula = "Y a"\nexpect = "unsat"\n'
        '[[spec]]\nname = "hist"\nformula = "H a -> a"\nexpect = "valid"\n'
        '[[spec]]\nname = "weak"\nformula = "Z a"\nexpect = "valid"\n'
        '[[spec]]\nname = "wrong"\nformula = "X(O a -> a)"\nexpect = "valid"\n'
    )
    out = run("check", str(toml))
    assert [line.split()[0] for line in out.output.splitlines()[:4]] == ["PASS", "PASS", "PASS", "FAIL"]
    assert out.exit_code == 1


def test_the_api_solves_and_verifies_past_formulas() -> None:
    answer = ltlwit.solve("G(grant -> O req) & F grant", model="none")
    assert answer.status == "sat" and answer.models_skipped is None
    assert ltlwit.verify("G(grant -> O req) & F grant", answer.witness)
    assert not ltlwit.verify("G(Y p -> q)", "p; !q; cycle{q}")
    assert ltlwit.verify("G(Y p -> q)", "p; q; cycle{q}")
    assert ltlwit.solve("Y a").to_str() == "UNSAT"


def test_spot_engine_refuses_past_formulas_instead_of_misreading_them() -> None:
    f = parse_formula("G(a -> O b)")
    with pytest.raises(ValueError, match="spot engine has no past operators"):
        engine_solve(f, engine="spot")
    with pytest.raises(ValueError, match="spot engine has no past operators"):
        holds(f, parse_trace("cycle{b}"), engine="spot")
