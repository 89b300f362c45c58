"""The Python API (docs/api.md): `ltlwit.parse`, `solve`, `verify`, `check`, `Solver`, and the
witnesses' `to_str` in every output syntax. The CLI is built on the same objects, so their
answers agree. Exact witnesses and sources are the engine's: `model="none"` where a GPU would
otherwise bring the models in (`auto`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_support import ROOT, json_lines, run, subprocess_env

import ltlwit
from ltlwit.logic import OUTPUT_SYNTAXES
from ltlwit.logic.syntax import parse_trace
from ltlwit.logic.witness import parse_witness


def test_parse_reads_every_syntax_and_prints_back() -> None:
    f = ltlwit.parse("G(req -> F grant)")
    assert isinstance(f, ltlwit.Formula)
    assert f.to_str("polish-spaced") == "G -> req F grant"
    assert ltlwit.parse("G -> req F grant", syntax="polish-spaced") is f
    assert ltlwit.parse("&Uab!Xc") is ltlwit.parse("(a U b) & !X c")  # auto: DeepLTL's Polish
    with pytest.raises(ltlwit.ParseError) as info:
        ltlwit.parse("(a U b U) U c")
    assert info.value.column == 8 and "^" in info.value.render()


def test_solve_an_ltl_formula() -> None:
    answer = ltlwit.solve("G(req -> F grant) & F req", model="none")
    assert (answer.status, answer.source, answer.verified) == ("sat", "engine", True)
    assert isinstance(answer.witness, ltlwit.Trace)
    assert answer.to_str() == str(answer) == "cycle{req & grant}"
    assert answer.to_str("polish") == "{& req grant}"  # spaced: network Polish spells one-letter names only
    assert ltlwit.verify("G(req -> F grant) & F req", answer.witness)


def test_solve_takes_formulas_and_answers_unsat_and_unknown() -> None:
    assert ltlwit.solve(ltlwit.parse("GFa & FG!a")).to_str() == "UNSAT"
    unknown = ltlwit.solve("F a", model="none", fallback=False)
    assert (unknown.status, unknown.witness, unknown.to_str()) == ("unknown", None, "UNKNOWN")
    assert unknown.message == "no ltl model is in use (--no-fallback)"


def test_solve_a_propositional_formula() -> None:
    answer = ltlwit.solve("(a -> b) & a", model="none")
    assert (answer.status, answer.source, answer.logic) == ("sat", "sat-solver", "prop")
    assert answer.witness == ltlwit.Assignment.of({"a": True, "b": True})
    assert [answer.to_str(s) for s in ("spot", "polish", "lbt")] == ["a & b", "a1b1", '& "a" "b"']
    assert ltlwit.solve("a & b", logic="ltl", model="none").to_str() == "cycle{a & b}"


def test_solve_raises_for_bad_input_where_the_cli_reports_it() -> None:
    with pytest.raises(ltlwit.ParseError):
        ltlwit.solve("a &")
    with pytest.raises(ValueError, match="temporal"):
        ltlwit.solve("G a", logic="prop")
    with pytest.raises(ValueError, match="--top 5 asks for more candidates than --beam 2"):
        ltlwit.solve("a", top=5, beam=2)
    with pytest.raises(ValueError, match="no model named 'no-such-model'"):
        ltlwit.Solver(model="no-such-model")


def test_a_solver_streams_many_formulas_and_errors_do_not_stop_it() -> None:
    solver = ltlwit.Solver(model="none")
    answers = list(solver.solve_many(["a", "a &", "G F a", ltlwit.parse("a & !a")]))
    assert [a.status for a in answers] == ["sat", "error", "sat", "unsat"]
    assert [a.item.line for a in answers] == [1, 2, 3, 4]
    assert answers[1].message == "parse error" and answers[1].parse_error.column == 3
    assert solver.solve("G F a").witness == answers[2].witness


@pytest.mark.parametrize(
    "formula, witness, holds",
    [
        ("G(req -> F grant)", "req; cycle{!grant}", False),
        ("G(req -> F grant)", "req; cycle{grant}", True),
        ("Uab", "b;{1}", True),  # DeepLTL's framing: the formula is read as Polish
        ("a & !c", "a1c0", True),
        ("a & !c", {"a": True, "c": True}, False),
        ("a | b", "a", True),  # a cube
    ],
)
def test_verify(formula: str, witness: object, holds: bool) -> None:
    assert ltlwit.verify(formula, witness) is holds


def test_verify_takes_objects_and_raises_for_what_it_cannot_judge() -> None:
    f = ltlwit.parse("F a")
    assert ltlwit.verify(f, parse_trace("1; cycle{a}"))
    with pytest.raises(ValueError, match="does not mention"):
        ltlwit.verify("a | b", {"c": True})
    with pytest.raises(ValueError, match="temporal"):
        ltlwit.verify("F a", ltlwit.Assignment.of({"a": True}))
    with pytest.raises(ltlwit.ParseError):
        ltlwit.verify("F a", "a; cycle{")


def test_check_a_spec_file_and_spec_lines() -> None:
    report = ltlwit.check(ROOT / "examples" / "arbiter.spec")
    assert report.passed and len(report.specs) == 7
    assert [r.spec.name for r in report][:2] == ["mutex", "response1"]
    lines = ["ok: G F a", "bad: G a & F !a  # expect: sat", "taut: a | !a  # expect: valid"]
    report = ltlwit.check(lines)
    assert not report.passed
    assert [(r.spec.name, r.status, r.spec.file) for r in report] == [
        ("ok", "pass", "<lines>"),
        ("bad", "fail", "<lines>"),
        ("taut", "pass", "<lines>"),
    ]


def test_check_with_vacuity() -> None:
    report = ltlwit.check(ROOT / "examples" / "vacuous.spec", vacuity=True)
    assert not report.passed
    assert [r.vacuity.state for r in report.specs] == ["vacuous", "clean", "clean"]


def test_check_results_carry_a_record_per_check() -> None:
    """What each check found travels in its own record, None where it did not run."""
    lines = [
        "resp: G(req -> F grant)  # acknowledged: vacuous grant",
        "quiet: G !req",
        "alive: G F beat  # acknowledged: vacuous beat",
    ]
    resp, quiet, alive = ltlwit.check(lines, vacuity=True, model="none").specs
    assert resp.is_acknowledged("vacuous grant:1") and resp.acknowledgments.covered == ("vacuous grant:1",)
    assert not resp.findings_failed and [f.key for f in resp.vacuity.findings] == ["vacuous grant:1"]
    assert alive.acknowledgments.stale == ("vacuous beat",) and alive.findings_failed
    assert quiet.redundancy is None and quiet.core is None and quiet.firing is None
    never, plain = ltlwit.check(
        ["never: G((req & !req) -> F grant)", "resp: G(req -> F grant)"], fire=True, model="none"
    ).specs
    assert never.vacuity is None and never.firing.fires is False
    assert plain.firing.fires is True and plain.firing.trigger.to_str("spot") == "Freq"


@pytest.mark.parametrize("syntax", OUTPUT_SYNTAXES)
def test_witnesses_print_in_every_output_syntax_and_read_back(syntax: str) -> None:
    formula = ltlwit.parse('G("req 1" -> X grant) & F "req 1" & F !grant')
    trace = ltlwit.solve(formula).witness
    assert parse_trace(trace.to_str(syntax)) == trace
    assert ltlwit.verify(formula, trace.to_str(syntax))
    prop = ltlwit.parse('"x y" & !b & (c | !c)')
    assignment = ltlwit.solve(prop).witness
    assert parse_witness(assignment.to_str(syntax), prop) == assignment
    assert ltlwit.verify(prop, assignment.to_str(syntax))


@pytest.mark.parametrize("syntax", OUTPUT_SYNTAXES)
def test_the_cli_prints_what_the_api_answers(syntax: str) -> None:
    formulas = ["G(req -> F grant) & F req", "(a -> b) & a", "a & !a"]
    printed = run("solve", "--syntax-out", syntax, *formulas).stdout.splitlines()
    answers = [ltlwit.solve(f, model="none") for f in formulas]  # the CLI's tests run with LTLWIT_MODEL=none
    assert printed == [a.to_str(syntax) for a in answers]
    records = json_lines(run("solve", "--format", "json", *formulas).stdout)
    assert [(r["status"], r["source"]) for r in records] == [(a.status, a.source) for a in answers]


def test_import_ltlwit_is_cheap_and_the_api_loads_on_first_use() -> None:
    code = (
        "import sys, ltlwit\nprint('ltlwit.api' in sys.modules, 'ltlwit.logic.syntax' in sys.modules)\n"
        "print(ltlwit.solve('a').to_str(), 'ltlwit.api' in sys.modules, 'torch' in sys.modules)\n"
        "print(sorted(set(ltlwit.__all__) <= set(dir(ltlwit)) for _ in [0]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(), cwd=ROOT, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False False", "a True False", "[True]"]
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ltlwit.nope  # noqa: B018


@pytest.mark.parametrize("document", ["docs/api.md", "README.md"])
def test_the_documented_examples_run(document: str, monkeypatch) -> None:
    """Every `>>>` example of docs/api.md and of the README's Python section, as doctests, from
    the checkout (they name files in it), with the engine alone as `--model auto` picks it on a
    CPU. (The README's other `>>>` lines are Spot's caret displays, not Python.)"""
    import doctest

    from ltlwit import api
    from ltlwit.pipeline import models

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(models, "gpu_visible", lambda: False)
    api._solver.cache_clear()
    text = (ROOT / document).read_text()
    if document == "README.md":
        text = text.split("## Python API", 1)[1].split("\n## ", 1)[0]
    test = doctest.DocTestParser().get_doctest(text, {}, document, document, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 3


def test_valuations_must_be_truth_values() -> None:
    """As the CLI reads JSON assignments: true/false or 0/1; the string "false" is not false."""
    import pytest

    import ltlwit

    assert ltlwit.verify("a", {"a": True}) and ltlwit.verify("!a", {"a": 0})
    for bad in ("false", "true", 2, None, 1.0):
        with pytest.raises(ValueError, match="value of 'a' must be true or false"):
            ltlwit.verify("a", {"a": bad})


def test_a_report_passes_exactly_when_check_exits_0() -> None:
    """A redundant requirement, a stale acknowledgment: `ltlwit check` fails on both, and so
    does `passed` (it counted vacuity findings only)."""
    path = str(ROOT / "examples" / "redundant.spec")
    assert not ltlwit.check(path, redundancy=True, model="none").passed
    assert run("check", "--redundancy", "--model", "none", path).exit_code == 1
    stale = ["a: G p  # acknowledged: vacuous q"]
    assert not ltlwit.check(stale, vacuity=True, model="none").passed
    assert ltlwit.check(["a: G p"], vacuity=True, model="none").passed
