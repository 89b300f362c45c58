"""Evaluation metrics on hand-made files with known answers, through fake predictors."""

from __future__ import annotations

import csv
import json

import pytest

from ltlwit.eval import Invalid, evaluate, is_witness, load_samples
from ltlwit.eval.metrics import TaskMismatch
from ltlwit.eval.report import grid_rows, render, to_json, write_grid_csv
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.syntax import parse_formula, parse_trace, print_formula

# formula (original names) / label; the comments give the canonical form the predictor sees
LTL_FILE = """\
Uba
{a}
Xc
1;{c}
&ab
{&ab}
!Xa
1;{!a}
d
{d}
X&ab
1;{&ab}
"""
# canonical formula -> ranked answers (slot names), and what each sample should score
LTL_ANSWERS = {
    "Uab": ["{b}"],  # b U a == (canonically) a U b: exact and correct
    "Xa": ["{a}"],  # correct, not the label 1;{a}
    "&ab": ["{a}", "{&ab}"],  # first wrong (b free), second right: top-2 only
    "!Xa": [Invalid(("&", "a"))],  # malformed output
    "a": [],  # nothing at all: invalid
    "X&ab": ["1;{&ab}"],  # exact
}


def table_predictor(answers):
    calls = []

    def predict(formulas):
        calls.append(list(formulas))
        out = []
        for f in formulas:
            ranked = answers[print_formula(f, "polish")]
            out.append([a if isinstance(a, (Invalid, Assignment)) else parse_trace(a, "polish") for a in ranked])
        return out

    predict.calls = calls
    return predict


@pytest.fixture()
def ltl_file(tmp_path):
    path = tmp_path / "hand.txt"
    path.write_text(LTL_FILE)
    return path


def test_ltl_metrics_known_answers(ltl_file):
    samples = load_samples(ltl_file, "ltl")
    predict = table_predictor(LTL_ANSWERS)
    acc = evaluate(samples, predict, "ltl", top=2, size_bucket=2, batch=4)
    assert [len(c) for c in predict.calls] == [4, 2]  # batched
    assert {print_formula(f, "polish") for c in predict.calls for f in c} == set(LTL_ANSWERS)  # canonical
    s = acc.summary()
    assert s["samples"] == 6
    assert s["correct"] == pytest.approx(3 / 6)
    assert s["top2"] == pytest.approx(4 / 6)
    assert s["exact"] == pytest.approx(2 / 6) and s["exact_over"] == 6
    assert s["invalid"] == pytest.approx(2 / 6)
    assert [o.rank for o in acc.judgements] == [1, 1, 2, None, None, 1]
    rows = {(r["aps"], r["size_from"]): (r["samples"], r["correct"], r["top_n"]) for r in grid_rows(acc)}
    # sizes: Uba 3, Xc 2, &ab 3, !Xa 3, d 1, X&ab 4 -> buckets 1-2, 3-4
    assert rows == {(1, 1): (2, 1, 1), (1, 3): (1, 0, 0), (2, 3): (3, 2, 3)}


def test_top_one_ignores_later_candidates(ltl_file):
    acc = evaluate(load_samples(ltl_file, "ltl"), table_predictor(LTL_ANSWERS), "ltl", top=1)
    assert acc.summary()["top1"] == acc.summary()["correct"] == pytest.approx(3 / 6)


def test_prop_metrics_known_answers(tmp_path):
    path = tmp_path / "prop.txt.gz"
    from ltlwit.train.pairs import append_pairs

    append_pairs(path, [("|ba", "b1"), ("&a!b", "a1b0"), ("xorab", "a1b0")])
    answers = {
        "|ab": [Assignment.of({"a": True})],  # canonical b -> a: the label b1 is a1 here
        "&a!b": [Assignment.of({"a": True})],  # does not entail (b free)
        "xorab": [Assignment.of({"a": False, "b": True}), Assignment.of({"a": True, "b": False})],
    }
    acc = evaluate(load_samples(path, "prop"), table_predictor(answers), "prop", top=2)
    assert [(o.correct, o.top_n, o.exact, o.invalid) for o in acc.judgements] == [
        (True, True, True, False),
        (False, False, False, False),
        (True, True, False, False),
    ]


def test_grid_rows_without_labels_count_for_accuracy_not_exact(tmp_path):
    path = tmp_path / "grid.jsonl"
    rows = [{"formula": "Uab", "sat": True, "witness": "b; cycle{1}"}, {"formula": "XXa", "sat": None, "witness": None}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = {"Uab": ["b;{1}"], "XXa": ["1;1;{a}"]}
    acc = evaluate(load_samples(path, "ltl"), table_predictor(answers), "ltl")
    s = acc.summary()
    assert s["correct"] == 1.0 and s["exact"] == 1.0 and s["exact_over"] == 1


def test_is_witness_never_accepts_foreign_or_malformed_outputs():
    f = parse_formula("a & X b")
    assert is_witness(f, parse_trace("a; cycle{b}"))
    assert not is_witness(f, parse_trace("a; cycle{!b}"))
    assert not is_witness(f, Invalid(("a",)))
    assert not is_witness(parse_formula("a | b"), Assignment.of({"c": True}))  # AP not in the formula
    assert not is_witness(f, Assignment.of({"a": True, "b": True}))  # assignment for an LTL formula


def test_bad_data_lines_are_named(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("Uab\n{b}\nXa\n1;{a\n")
    with pytest.raises(ValueError, match=r"bad.txt:3"):
        load_samples(path, "ltl")
    prop = tmp_path / "p.txt"
    prop.write_text("Xa\na1\n")
    with pytest.raises(ValueError, match=r"p.txt:1: an LTL formula, in data read for propositional formulas"):
        load_samples(prop, "prop")


def test_data_of_the_other_task_is_named_as_such(ltl_file, tmp_path):
    """An LTL set read for a propositional model (or the reverse) first fails as a syntax error
    of a label; it is reported as the mismatch it is, at its first line. A genuinely broken
    label of the right task stays a syntax error."""
    with pytest.raises(
        TaskMismatch,
        match=r"hand.txt:1: an LTL sample \(its label is a trace\), in data read "
        r"for propositional formulas",
    ):
        load_samples(ltl_file, "prop")
    prop = tmp_path / "prop.txt"
    prop.write_text("&ab\na1b1\n|a!c\nc0\n")
    assert len(load_samples(prop, "prop")) == 2
    with pytest.raises(TaskMismatch, match=r"prop.txt:1: a propositional sample \(its label is an assignment\)"):
        load_samples(prop, "ltl")
    broken = tmp_path / "broken.txt"
    broken.write_text("&ab\na1b1\n|a!c\nc0;{\n")
    with pytest.raises(ValueError, match="broken.txt:3") as caught:
        load_samples(broken, "prop")
    assert not isinstance(caught.value, TaskMismatch)


def test_predictor_answering_the_wrong_number_is_an_error(ltl_file):
    with pytest.raises(ValueError, match="answered 0 inputs for 6"):
        evaluate(load_samples(ltl_file, "ltl"), lambda fs: [], "ltl")


def test_reports_csv_json_table(ltl_file, tmp_path, request):
    acc = evaluate(load_samples(ltl_file, "ltl"), table_predictor(LTL_ANSWERS), "ltl", top=2, size_bucket=2)
    out = tmp_path / "grid.csv"
    write_grid_csv(acc, out)
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0] == {
        "aps": "1",
        "size_from": "1",
        "size_to": "2",
        "samples": "2",
        "correct": "1",
        "accuracy": "0.5",
        "top_n": "1",
        "top_n_accuracy": "0.5",
    }
    data = to_json(acc, None, {"model": "fake"})
    assert data["model"] == "fake" and data["top2"] == pytest.approx(4 / 6) and len(data["grid"]) == 3
    json.dumps(data)

    from rich.console import Console

    console = Console(record=True, width=120)
    render(console, acc, None, {"model": "fake", "data": "hand.txt"})
    text = console.export_text()
    assert "50.00%" in text and "66.67%" in text and "fake on hand.txt" in text

    request.getfixturevalue("no_matplotlib")
    from ltlwit.eval.plots import grid_heatmap

    with pytest.raises(ValueError, match=r"^plots need matplotlib.*pip install 'ltlwit\[plots\]'"):
        grid_heatmap(acc, tmp_path / "grid.png")
    assert not (tmp_path / "grid.png").exists()


def test_run_eval_with_a_fake_predictor(ltl_file):
    from ltlwit.eval.run import EvalOptions, run_eval
    from ltlwit.logic.formula import ap
    from ltlwit.logic.trace import Trace

    def first_ap(formulas):  # invariant: always `cycle{first AP}`
        return [[Trace((), (ap(f.aps()[0]),))] for f in formulas]

    seen = []
    options = EvalOptions("fake", str(ltl_file), beam=2, alpha_samples=4, alpha_variants=6, seed=3)
    result = run_eval(
        options, predictor=first_ap, task="ltl", progress=lambda phase, done, total: seen.append((phase, done, total))
    )
    # canonically `cycle{a}`: verifies X a and a only (a U b, a & b, !X a, X(a & b) fail)
    assert [o.correct for o in result.accuracy.judgements] == [False, True, False, False, True, False]
    assert result.meta["top"] == 2 and result.meta["task"] == "ltl"
    assert result.alpha is not None and result.alpha.mean == 1.0
    # one count over the whole run: the 6 formulas, then the 3 two-AP formulas' 2 copies each,
    # then the papers' way (6 formulas with an AP into a 2-slot pool: 2 copies each)
    assert seen == [("accuracy", 6, 24), ("alpha-covariance", 12, 24), ("alpha-covariance, whole AP pool", 24, 24)]
    with pytest.raises(ValueError, match="top <= beam"):
        EvalOptions("m", "d", beam=2, top=3)
    # the papers' way is reported beside it: renamings into the data's AP pool (here 2 slots)
    assert result.paper_alpha is not None and result.paper_alpha.pool == 2 and result.paper_alpha.mean == 1.0
    assert any(p == "alpha-covariance, whole AP pool" for p, _, _ in seen)


def test_paper_alpha_covariance_renames_into_the_whole_pool(ltl_file):
    """A model that always answers `cycle{a}`, whatever the formula's APs are called: renamed
    into 5 slots, a 1-AP formula has 5 copies whose answers map back to two distinct traces
    (1 - 1/4), a 2-AP formula 20 copies and three (1 - 2/19); the per-formula metric over the
    formula's own APs is reported beside it, unchanged by the option."""
    from ltlwit.eval.report import to_json
    from ltlwit.eval.run import EvalOptions, run_eval
    from ltlwit.logic.formula import ap
    from ltlwit.logic.trace import Trace

    def always_a(formulas):
        return [[Trace((), (ap("a"),))] for _ in formulas]

    options = EvalOptions("fake", str(ltl_file), alpha_samples=6, paper_alpha_samples=6, paper_alpha_pool=5)
    result = run_eval(options, predictor=always_a, task="ltl")
    rows = result.paper_alpha.rows
    assert rows[1].samples == 3 and rows[1].variants == 3 * 5 and rows[1].alpha == pytest.approx(0.75)
    assert rows[2].samples == 3 and rows[2].variants == 3 * 20 and rows[2].alpha == pytest.approx(1 - 2 / 19)
    assert result.alpha.pool == 0 and set(result.alpha.rows) == {2}  # own APs: 2-AP formulas only
    data = to_json(result.accuracy, result.alpha, result.meta, result.paper_alpha)
    assert data["alpha_covariance_paper"]["pool"] == 5 and data["alpha_covariance"]["pool"] == 0
    off = run_eval(
        EvalOptions("fake", str(ltl_file), alpha_samples=0, paper_alpha_samples=0), predictor=always_a, task="ltl"
    )
    assert off.paper_alpha is None and off.alpha is None


def test_prediction_records_name_the_formulas_own_aps(ltl_file):
    """`eval --predictions`: each record shows the candidates renamed back from the model's slot
    names to the formula's own APs, so each verdict can be re-checked against the formula as the
    data file has it."""
    from ltlwit.eval.report import prediction_record

    records = []
    evaluate(
        load_samples(ltl_file, "ltl"),
        table_predictor(LTL_ANSWERS),
        "ltl",
        top=2,
        on_sample=lambda *sample: records.append(prediction_record(*sample)),
    )
    assert [r["line"] for r in records] == [1, 3, 5, 7, 9, 11]
    first = records[0]  # `b U a`, asked as `a U b`; the answer `cycle{b}` in slots is `cycle{a}` here
    assert (first["formula"], first["label"], first["asked"]) == ("b U a", "cycle{a}", "a U b")
    assert first["candidates"] == [{"witness": "cycle{a}", "verified": True}]
    assert (first["correct"], first["rank"], first["exact"]) == (True, 1, True)
    both = records[2]  # `a & b`: the second of two candidates verifies
    assert [c["verified"] for c in both["candidates"]] == [False, True] and both["rank"] == 2
    assert records[3]["invalid"] and records[3]["candidates"] == [{"witness": "& a", "verified": False}]
    assert records[4]["candidates"] == [] and records[4]["rank"] is None
    made_up = []  # an output naming a slot the formula lacks cannot be renamed back: shown as written
    evaluate(
        load_samples(ltl_file, "ltl")[:1],
        lambda fs: [[parse_trace("{c}", "polish")]],
        "ltl",
        on_sample=lambda *sample: made_up.append(prediction_record(*sample)),
    )
    assert made_up[0]["candidates"] == [{"witness": None, "output": "cycle{c}", "verified": False}]
    for record in records:
        formula = parse_formula(record["formula"])
        for candidate in record["candidates"]:
            if candidate["witness"] not in ("& a", None):
                assert is_witness(formula, parse_trace(candidate["witness"])) == candidate["verified"]
