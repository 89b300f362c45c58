"""The aiger validator (`ltlwit.logic.validators.aiger`) against Spot's golden labels, the builtin
checker, and the engine-free reference evaluators: same verdicts, and every counterexample word
it returns matches the witness and falsifies the formula."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from cli_support import ROOT, subprocess_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ltl_reference import prop_value, satisfies
from ltlf_reference import satisfies_finite
from shared_data import shared_file
from strategies import formulas, traces

from ltlwit.logic import ltl
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.logic.validators import VALIDATORS, Validation
from ltlwit.logic.validators.aiger import holds

#: Rows of the golden files the default run takes (a seeded sample); `-m slow` takes all.
SAMPLE = 300
APS = ("a", "b", "c")


def golden(name: str) -> list[dict]:
    with open(shared_file(f"golden/{name}")) as fh:
        return [json.loads(line) for line in fh]


def sample(rows: list[dict]) -> list[dict]:
    return random.Random(0).sample(rows, min(SAMPLE, len(rows)))


def assert_counterexample(formula: Formula, witness: Trace | Assignment, verdict: Validation) -> None:
    """A rejected witness's word (when there is one) is a word of the witness that the
    reference evaluators say falsifies the formula."""
    word = verdict.word
    if word is None:
        return
    names = set(formula.aps()) | set(witness.aps())
    assert all(set(letter) == names for letter in word), word
    if isinstance(witness, Assignment):
        assert len(word) == 1 and verdict.loop is None
        assert witness.as_dict().items() <= word[0].items()
        assert not prop_value(formula, word[0])
        return
    steps = witness.steps
    if witness.finite:
        assert verdict.loop is None and len(word) == len(steps)
        assert not satisfies_finite(formula, word)
    else:
        p, c = len(witness.prefix), len(witness.cycle)
        loop = verdict.loop
        assert loop is not None and loop >= p and (len(word) - loop) % c == 0 < len(word) - loop
        steps = [steps[j if j < p else p + (j - p) % c] for j in range(len(word))]
        assert not satisfies(formula, word[:loop], word[loop:])
    assert all(prop_value(step, letter) for step, letter in zip(steps, word)), (steps, word)


def agree(formula: Formula, trace: Trace) -> None:
    verdict = holds(formula, trace, "finite" if trace.finite else "infinite")
    assert verdict.valid == ltl.holds(formula, trace), (str(formula), str(trace), verdict)
    assert_counterexample(formula, trace, verdict)


# --- golden files (../shared/data/golden) -------------------------------------------------


def check_rows(rows: list[dict]) -> None:
    wrong = []
    for row in rows:
        formula, trace = parse_formula(row["formula"]), parse_trace(row["trace"])
        verdict = holds(formula, trace)
        if verdict.valid != row["holds"]:
            wrong.append((row["formula"], row["trace"], row["holds"]))
        assert_counterexample(formula, trace, verdict)
    assert not wrong, wrong[:5]


def test_trace_check_sample_agrees_with_spot() -> None:
    check_rows(sample(golden("trace-check.jsonl")))


@pytest.mark.slow
def test_every_trace_check_row_agrees_with_spot() -> None:
    rows = golden("trace-check.jsonl")
    assert len(rows) == 2074
    check_rows(rows)


def witness_rows() -> list[dict]:
    return [row for row in golden("ltl-sat.jsonl") if row["witness"] is not None]


def check_witnesses(rows: list[dict]) -> None:
    rejected = [
        row["formula"] for row in rows if not holds(parse_formula(row["formula"]), parse_trace(row["witness"])).valid
    ]
    assert not rejected, rejected[:5]


def test_spot_witness_sample_validates() -> None:
    check_witnesses(sample(witness_rows()))


@pytest.mark.slow
def test_every_spot_witness_validates() -> None:
    check_witnesses(witness_rows())


def test_every_golden_assignment_validates() -> None:
    rows = [row for row in golden("prop-sat.jsonl") if row["assignment"] is not None]
    rejected = [
        row["formula"]
        for row in rows
        if not holds(parse_formula(row["formula"], "spot"), parse_assignment(row["assignment"])).valid
    ]
    assert not rejected, rejected[:5]
    assert len(rows) > 1000


# --- against the builtin checker ------------------------------------------------------------


def finite_traces() -> st.SearchStrategy[Trace]:
    step = formulas(APS, max_leaves=4, temporal=False)
    return st.lists(step, min_size=1, max_size=4).map(lambda steps: Trace(tuple(steps), ()))


PAIRS = st.tuples(formulas(APS, max_leaves=10, past=True, weak=True), st.one_of(traces(APS), finite_traces()))


@given(PAIRS)
@settings(
    max_examples=300, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
def test_agrees_with_the_builtin_checker(pair: tuple[Formula, Trace]) -> None:
    agree(*pair)


@pytest.mark.slow
@given(PAIRS)
@settings(
    max_examples=int(os.environ.get("LTLWIT_AIGER_PAIRS", "1500")),
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
def test_agrees_with_the_builtin_checker_at_length(pair: tuple[Formula, Trace]) -> None:
    """1,500 pairs in CI; 20,000 with LTLWIT_AIGER_PAIRS=20000 (docs/benchmarks.md)."""
    agree(*pair)


@given(formulas(APS, temporal=False), st.dictionaries(st.sampled_from(APS), st.booleans()))
@settings(max_examples=150, deadline=None, derandomize=True, database=None)
def test_assignments_agree_with_entailment(formula: Formula, values: dict[str, bool]) -> None:
    assignment = Assignment.of({k: v for k, v in values.items() if k in formula.aps()})
    verdict = holds(formula, assignment)
    assert verdict.valid == VALIDATORS["builtin"](formula, assignment).valid
    assert_counterexample(formula, assignment, verdict)


# --- by hand ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula, trace", [("a", "a & !a; cycle{a}"), ("1", "cycle{b; a <-> !a}"), ("a | !a", "b; b & !b")]
)
def test_a_trace_with_an_unsatisfiable_step_is_no_witness(formula: str, trace: str) -> None:
    """It denotes no word, so nothing refutes the formula, and still it witnesses nothing."""
    f, t = parse_formula(formula), parse_trace(trace)
    assert holds(f, t, "finite" if t.finite else "infinite") == Validation(False)
    assert not ltl.holds(f, t)


def test_a_counterexample_may_need_a_longer_loop_than_the_trace() -> None:
    """The words of `cycle{1}` with the trace's own period (one letter forever) all satisfy the
    formula: only words that alternate a and !a refute it."""
    formula, trace = parse_formula("!(GFa & GF!a)"), parse_trace("cycle{1}")
    verdict = holds(formula, trace)
    assert not verdict.valid and len(verdict.word) - verdict.loop > 1
    assert_counterexample(formula, trace, verdict)


@pytest.mark.parametrize(
    "formula, trace, valid, exact",
    [
        ("G(b -> Y a) & F b", "a & !b; b; cycle{!a & !b}", True, True),  # past: the second instant's yesterday
        ("G(b -> Y a)", "a; cycle{b}", False, True),  # ... the loop's later turns may not
        ("G(a -> O b)", "b; cycle{a}", True, True),  # b free in the loop, and it does not matter
        ("GFa | FG!a", "cycle{1}", True, False),  # unknown three-valued: valid up to the bound
        ("F(a & wX 0)", "b; a", True, True),  # finite: a at the last instant
        ("F(a & X 1)", "b; a", False, True),  # ... which has no next one
    ],
)
def test_verdicts(formula: str, trace: str, valid: bool, exact: bool) -> None:
    f, t = parse_formula(formula), parse_trace(trace)
    verdict = holds(f, t, "finite" if t.finite else "infinite")
    assert (verdict.valid, verdict.exact) == (valid, exact)
    assert verdict.valid == ltl.holds(f, t)
    assert_counterexample(f, t, verdict)


@pytest.mark.parametrize(
    "formula, witness, semantics",
    [
        ("G a", parse_trace("cycle{a}"), "finite"),
        ("G a", parse_trace("a"), "infinite"),
        ("G a", Assignment.of({"a": True}), "infinite"),  # an assignment for a temporal formula
        ("a", Assignment.of({"z": True}), "infinite"),  # naming an AP the formula lacks
    ],
)
def test_the_same_errors_as_the_builtin_checker(formula: str, witness: Trace | Assignment, semantics: str) -> None:
    for validate in VALIDATORS.values():
        with pytest.raises(ValueError):
            validate(parse_formula(formula), witness, semantics)


def test_registry() -> None:
    assert set(VALIDATORS) == {"builtin", "aiger", "spot"}
    f, t = parse_formula("!(GFa & GF!a)"), parse_trace("cycle{1}")
    builtin = VALIDATORS["builtin"](f, t)
    assert not builtin.valid and builtin.word is not None
    assert_counterexample(f, t, builtin)
    assert VALIDATORS["aiger"](f, t).valid is False


def test_without_py_aiger_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aiger", None)  # `import aiger` raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ltlwit\[aiger\]'"):
        holds(parse_formula("a"), parse_trace("cycle{a}"))


def test_the_logic_layer_imports_without_py_aiger() -> None:
    code = (
        "import sys; sys.modules['aiger'] = sys.modules['aiger_sat'] = None\n"
        "import ltlwit.logic.validators, ltlwit.logic.validators.aiger, ltlwit.logic.prop"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=subprocess_env(), timeout=60)
