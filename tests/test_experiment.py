"""`ltlwit experiment`: the summary is the mean and sample standard deviation over seeds per
architecture; end to end at the smallest settings (2 architectures x 2 seeds, 2 training steps,
4 test formulas), every run trained, registered and evaluated, and a second run reuses them."""

from __future__ import annotations

import json
import statistics

import pytest
from cli_support import run
from neural_support import DATA, one_thread  # noqa: F401 - a fixture

from ltlwit.eval.experiment import Plan, Run, markdown, summarise


def test_summary_is_mean_and_sample_std_over_seeds() -> None:
    plan = Plan(task="ltl", data="d", test="t", archs=("full", "lexinv"), seeds=(0, 1))
    runs = [
        Run("full", 0, "a", True, 10.0, 5, {"correct": 0.5, "alpha": 0.9, "grid": 0.3}, {2: 0.8}),
        Run("full", 1, "b", True, 30.0, 5, {"correct": 0.7, "alpha": 1.0, "grid": 0.3}, {2: 1.0}),
        Run("lexinv", 0, "c", True, 20.0, 5, {"correct": 0.25}),
    ]
    rows = summarise(runs)
    assert [r["arch"] for r in rows] == ["full", "lexinv"] and rows[0]["seeds"] == [0, 1]
    assert rows[0]["metrics"]["correct"]["mean"] == pytest.approx(0.6)
    assert rows[0]["metrics"]["correct"]["std"] == pytest.approx(statistics.stdev([0.5, 0.7]))
    assert rows[1]["metrics"]["correct"] == {"mean": 0.25, "std": 0.0, "n": 1}
    table = markdown(plan, rows).splitlines()
    assert table[2].split(" | ")[:5] == ["| model", "correct", "α-cov. (papers')", "α 2 AP", "grid correct"]
    assert table[4] == "| full | 60.0 ± 14.1 | 95.0 ± 7.1 | 90.0 ± 14.1 | 30.0 ± 0.0 | 20 |"
    assert table[5] == "| lexinv | 25.0 | – | – | – | 20 |"  # one seed: no ±; metrics it lacks: –


def test_end_to_end_at_the_smallest_settings(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path / "home"))
    args = [
        "experiment",
        "--task",
        "ltl",
        "--data",
        str(DATA / "ltl"),
        "--test",
        str(DATA / "ltl" / "val.txt"),
        "--arch",
        "full,lexinv",
        "--seeds",
        "3,4",
        "--preset",
        "tiny",
        "--steps",
        "2",
        "--batch-size",
        "8",
        "--limit",
        "4",
        "--alpha-samples",
        "2",
        "--alpha-variants",
        "3",
        "--beam",
        "1",
        "--max-len",
        "6",
        "--device",
        "cpu",
        "--format",
        "json",
        "--json",
        str(tmp_path / "out.json"),
    ]
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        first = run(*args)
        assert torch.get_num_threads() == 2  # its evaluations leave the training runs' threads alone
    finally:
        torch.set_num_threads(threads)
    assert first.exit_code == 0, first.stderr
    data = json.loads(first.stdout)
    assert json.loads((tmp_path / "out.json").read_text()) == data
    assert [(r["arch"], r["seed"], r["trained"]) for r in data["runs"]] == [
        ("full", 3, True),
        ("full", 4, True),
        ("lexinv", 3, True),
        ("lexinv", 4, True),
    ]
    assert all(r["steps"] == 2 and set(r["metrics"]) >= {"correct", "top_n", "exact"} for r in data["runs"])
    for row in data["summary"]:
        mine = [r["metrics"]["correct"] for r in data["runs"] if r["arch"] == row["arch"]]
        assert row["metrics"]["correct"]["mean"] == pytest.approx(statistics.fmean(mine))
    assert {m.name for m in __import__("ltlwit.neural.registry").neural.registry.list_models()} >= {
        "exp-ltl-full-tiny-s3",
        "exp-ltl-lexinv-tiny-s4",
    }
    again = run(*args[:-4])  # Markdown; the models are registered: evaluated, not trained again
    assert again.exit_code == 0 and again.stderr.count("registered already") == 4
    assert [line.split(" | ")[0] for line in again.stdout.splitlines() if line.startswith("| ")][1:] == [
        "| full",
        "| lexinv",
    ]


def test_bad_lists_are_usage_errors() -> None:
    for option, value, message in (
        ("--arch", "full,nosuch", "unknown architecture 'nosuch'"),
        ("--seeds", "0,x", "comma-separated integers"),
        ("--seeds", "1,1", "must not repeat"),
    ):
        result = run(
            "experiment",
            "--task",
            "ltl",
            "--data",
            str(DATA / "ltl"),
            "--test",
            str(DATA / "ltl" / "val.txt"),
            option,
            value,
        )
        assert result.exit_code == 2 and message in result.stderr and result.stdout == ""
