"""Labelling by ltlwit's own engine / SAT path, and `generate_dataset`: output verified by the
checkers, size gate, reproducibility, resuming after a kill, appending."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from ltlwit.logic import ltl
from ltlwit.logic.formula import Formula
from ltlwit.logic.prop import entails, solve_prop
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.train.label import GenerateConfig, generate_dataset, label
from ltlwit.train.pairs import iter_pairs


def f(text: str) -> Formula:
    return parse_formula(text)


def test_ltl_labels_are_verified_traces_and_unsat_gives_none():
    text = label("ltl", f("a U (b & X !a)"))
    assert text is not None
    assert ltl.holds(f("a U (b & X !a)"), parse_trace(text, "polish"))
    assert label("ltl", f("G a & F !a")) is None


def test_ltl_traces_with_a_false_step_are_dropped(monkeypatch):
    bad = Trace((parse_formula("0"),), (parse_formula("a"),))
    monkeypatch.setattr(ltl, "solve", lambda formula, budget=None: Sat(bad))
    assert label("ltl", f("X a")) is None
    nested = Trace((), (parse_formula("a | (b & 0)"),))
    monkeypatch.setattr(ltl, "solve", lambda formula, budget=None: Sat(nested))
    assert label("ltl", f("a")) is None


def test_ltl_label_gives_up_past_the_budget(monkeypatch):
    seen = []

    def fake(formula, budget=None):
        seen.append(budget)
        return ltl.Unknown("time budget exhausted")

    monkeypatch.setattr(ltl, "solve", fake)
    assert label("ltl", f("F a"), seconds=0.5) is None
    assert seen[0].seconds == 0.5


def test_prop_labels_are_minimal_entailing_assignments_without_tautologies():
    formula = f("(a | b) & !c")
    got = parse_assignment(label("prop", formula), "polish")
    assert entails(got, formula) and got == solve_prop(formula).witness
    assert label("prop", f("a & !a")) is None  # unsatisfiable
    assert label("prop", f("a | !a")) is None  # tautology
    assert label("prop", f("a xor (b <-> 1)")) is not None


def _pairs(path: Path) -> list[tuple[str, str]]:
    return list(iter_pairs(path))


def test_generated_ltl_data_is_verified_by_the_checker(tmp_path):
    out = tmp_path / "ltl.txt.gz"
    report = generate_dataset(out, GenerateConfig("ltl", n_aps=5, max_size=14, count=200, seed=3))
    pairs = _pairs(out)
    assert report.complete and report.added == 200 and len(pairs) == 200
    assert len({p[0] for p in pairs}) == 200  # no duplicates
    for formula_text, trace_text in pairs:
        formula = parse_formula(formula_text, "polish")
        assert 1 <= formula.size <= 14 and set(formula.aps()) <= set("abcde")
        assert "0" not in trace_text
        assert ltl.holds(formula, parse_trace(trace_text, "polish")), (formula_text, trace_text)
    assert report.labelled >= report.added + report.rejected


def test_generated_prop_data_entails_and_excludes_unsat_and_tautologies(tmp_path):
    out = tmp_path / "prop.txt"
    generate_dataset(out, GenerateConfig("prop", n_aps=4, max_size=16, count=150, seed=1))
    for formula_text, assignment_text in _pairs(out):
        formula = parse_formula(formula_text, "polish")
        assert not formula.temporal
        assert entails(parse_assignment(assignment_text, "polish"), formula)
        assert isinstance(solve_prop(parse_formula(f"!({formula})")), Sat), formula_text


def test_sizes_from_uniform_from_on_come_out_uniform(tmp_path):
    out = tmp_path / "gate.txt"
    # cap = 120 * 0.5 / 6 sizes (7..12) = 10 a size: the six uniform sizes fill up exactly, the
    # small sizes cannot supply their share of distinct satisfiable formulas, and generation
    # stops when the uniform range is full, short of the count, as DeepLTL's gate does.
    config = GenerateConfig("ltl", n_aps=3, max_size=12, count=120, seed=5, uniform_from=7, alpha=0.5)
    report = generate_dataset(out, config)
    sizes = [parse_formula(t, "polish").size for t, _ in _pairs(out)]
    assert [sizes.count(s) for s in range(7, 13)] == [10] * 6
    assert all(sizes.count(s) <= 10 for s in range(1, 7))
    assert not report.complete and len(sizes) == report.added < 120


@pytest.mark.parametrize("task", ["ltl", "prop"])
def test_same_seed_same_file_with_one_two_or_three_jobs(tmp_path, task):
    """Formulas *and* labels: units are cut the same way for any number of workers and each
    starts from cold engine caches (a warm cache must not pick another witness)."""
    from ltlwit.train import label as L

    runs = {jobs: tmp_path / f"{jobs}.txt" for jobs in (1, 2, 3)}
    for jobs, path in runs.items():
        generate_dataset(path, GenerateConfig(task, 4, 20, 300, seed=9, jobs=jobs))
    assert L.UNIT < 300  # several units, shared out differently between the workers
    assert _pairs(runs[1]) == _pairs(runs[2]) == _pairs(runs[3])
    other = tmp_path / "other.txt"
    generate_dataset(other, GenerateConfig(task, 4, 20, 300, seed=10))
    assert [f for f, _ in _pairs(other)] != [f for f, _ in _pairs(runs[1])]
    if task == "ltl":
        for formula_text, trace_text in _pairs(runs[2]):
            assert ltl.holds(parse_formula(formula_text, "polish"), parse_trace(trace_text, "polish"))


def test_excluded_files_formulas_are_never_generated(tmp_path):
    plain = tmp_path / "plain.txt"
    generate_dataset(plain, GenerateConfig("prop", 3, 9, 60, seed=4))
    taken = _pairs(plain)[:20]
    held_out = tmp_path / "test.txt"
    held_out.write_text("".join(f"{f}\n{a}\n" for f, a in taken))
    out = tmp_path / "train.txt"
    report = generate_dataset(out, GenerateConfig("prop", 3, 9, 60, seed=4, exclude=(str(held_out),)))
    formulas = {f for f, _ in _pairs(out)}
    assert len(formulas) == 60 and not formulas & {f for f, _ in taken}
    assert report.duplicates >= 20  # the same draws, now refused


def test_zero_aps_gives_constant_formulas(tmp_path):
    out = tmp_path / "ap0.txt"
    report = generate_dataset(out, GenerateConfig("ltl", 0, 9, 500, seed=1))
    pairs = _pairs(out)
    assert pairs and not report.complete  # few distinct constant formulas exist
    for formula_text, trace_text in pairs:
        formula = parse_formula(formula_text, "polish")
        assert not formula.aps()
        assert ltl.holds(formula, parse_trace(trace_text, "polish"))


def test_a_run_killed_mid_write_resumes_to_count(tmp_path):
    out = tmp_path / "r.txt.gz"
    config = GenerateConfig("ltl", 5, 18, 60, seed=2)
    generate_dataset(out, GenerateConfig("ltl", 5, 18, 40, seed=2))
    first = _pairs(out)
    data = out.read_bytes()
    out.write_bytes(data + gzip.compress(b"UaXb\n{a}\nXXc\n{")[:12])  # a torn last member
    with pytest.raises(EOFError):
        _pairs(out)
    report = generate_dataset(out, config)
    pairs = _pairs(out)
    assert report.existing == 40 and report.added == 20 and len(pairs) == 60
    assert pairs[:40] == first
    assert len({p[0] for p in pairs}) == 60


def test_plain_text_cut_mid_line_is_repaired_and_appended(tmp_path):
    out = tmp_path / "p.txt"
    generate_dataset(out, GenerateConfig("prop", 5, 15, 30, seed=4))
    first = _pairs(out)
    with open(out, "a") as fh:
        fh.write("&ab\na1")  # label line without its newline
    generate_dataset(out, GenerateConfig("prop", 5, 15, 50, seed=4))
    pairs = _pairs(out)
    assert pairs[:30] == first and len(pairs) == 50 and ("&ab", "a1") not in pairs


def test_a_complete_file_is_left_alone(tmp_path):
    out = tmp_path / "done.txt"
    generate_dataset(out, GenerateConfig("ltl", 3, 10, 25, seed=0))
    before = out.read_bytes()
    report = generate_dataset(out, GenerateConfig("ltl", 3, 10, 25, seed=0))
    assert report.added == 0 and report.labelled == 0 and report.complete
    assert out.read_bytes() == before


def test_too_few_distinct_formulas_stops_instead_of_looping(tmp_path):
    out = tmp_path / "tiny.txt"
    report = generate_dataset(out, GenerateConfig("ltl", 1, 3, 1000, seed=0))
    pairs = _pairs(out)
    assert not report.complete and 0 < len(pairs) < 1000
    assert len({p[0] for p in pairs}) == len(pairs)


def test_config_validation():
    with pytest.raises(ValueError, match="aps"):
        GenerateConfig("ltl", 27, 10, 10)
    with pytest.raises(ValueError, match="task"):
        GenerateConfig("ctl", 3, 10, 10)
    with pytest.raises(ValueError, match="propositional"):
        GenerateConfig("prop", 3, 10, 10, alphabet="ltl35")


def test_unsat_formulas_are_never_written(tmp_path):
    out = tmp_path / "u.txt"
    generate_dataset(out, GenerateConfig("ltl", 2, 8, 80, seed=6))
    for formula_text, _ in _pairs(out):
        assert not isinstance(ltl.solve(parse_formula(formula_text, "polish")), Unsat)
