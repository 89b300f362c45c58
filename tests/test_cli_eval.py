"""`ltlwit eval` and `ltlwit models list|show|path` through the CLI, with a registered model.

The metrics themselves are checked against known answers with fake predictors in
test_eval.py / test_eval_alpha.py; here the command's plumbing: a model by name, the data file,
text and JSON output, the grid CSV, alpha-covariance of a symbol-invariant network."""

from __future__ import annotations

import csv
import json

import pytest
from cli_support import run, run_env

DATA = "Uba\n{a}\nXc\n1;{c}\n&ab\n{&ab}\n!Xa\n1;{!a}\nd\n{d}\nX&ab\n1;{&ab}\n"


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A fresh LTLWIT_HOME, and no bundled models (whether weights ship must not matter here)."""
    from ltlwit.neural import registry

    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path / "home"))
    (tmp_path / "no-bundled").mkdir()
    monkeypatch.setattr(registry, "_bundled_folder", lambda: tmp_path / "no-bundled")
    return tmp_path


@pytest.fixture()
def model(home):
    """An (untrained) tiny symbol-invariant model registered as `tiny-si`."""
    import torch

    from ltlwit.neural import registry
    from ltlwit.neural.config import preset
    from ltlwit.neural.weights import save_weights

    torch.manual_seed(0)
    saved = save_weights(preset("si", "ltl", "tiny").build(), home / "w" / "tiny", training={"steps": 0})
    registry.register(saved, "tiny-si")
    return "tiny-si"


@pytest.mark.slow
def test_eval_json_grid_and_alpha(model, home):
    data = home / "hand.txt"
    data.write_text(DATA)
    grid = home / "grid.csv"
    result = run(
        "eval",
        "--model",
        model,
        "--data",
        str(data),
        "--beam",
        "2",
        "--format",
        "json",
        "--grid-csv",
        str(grid),
        "--alpha-samples",
        "4",
        "--alpha-variants",
        "6",
        "--size-bucket",
        "2",
        "--max-len",
        "12",
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["model"] == "tiny-si" and out["task"] == "ltl" and out["arch"] == "si"
    assert out["samples"] == 6 and out["top"] == 2 and 0 <= out["correct"] <= out["top2"] <= 1
    assert sum(cell["samples"] for cell in out["grid"]) == 6
    alpha = out["alpha_covariance"]
    # the three formulas with two APs (invariance itself: test_eval_alpha.py)
    assert alpha["samples"] == 3 and alpha["mean"] == 1.0
    with open(grid) as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["aps"], r["size_from"], r["samples"]) for r in rows] == [
        ("1", "1", "2"),
        ("1", "3", "1"),
        ("2", "3", "3"),
    ]
    assert "grid written" in result.stderr


def test_eval_text_table(model, home):
    data = home / "hand.txt"
    data.write_text(DATA)
    result = run(
        "eval",
        "--model",
        model,
        "--data",
        str(data),
        "--beam",
        "1",
        "--alpha-samples",
        "0",
        "--paper-alpha-samples",
        "0",
        "--max-len",
        "12",
    )
    assert result.exit_code == 0, result.stderr
    assert "tiny-si on" in result.stdout and "invalid outputs" in result.stdout
    assert "alpha-covariance" not in result.stdout
    paper = run(
        "eval",
        "--model",
        model,
        "--data",
        str(data),
        "--beam",
        "1",
        "--alpha-samples",
        "0",
        "--paper-alpha-pool",
        "4",
        "--max-len",
        "12",
    )
    assert paper.exit_code == 0, paper.stderr
    assert "alpha-covariance, papers' way (4-AP pool, mean)" in paper.stdout
    assert "renamings into 4 AP slots" in " ".join(paper.stdout.split())


def test_eval_errors(model, home):
    data = home / "hand.txt"
    data.write_text(DATA)
    missing = run("eval", "--model", "nope", "--data", str(data))
    assert missing.exit_code == 2 and "no model named 'nope' (known: tiny-si" in missing.stderr
    assert run("eval", "--model", model, "--data", str(data), "--beam", "2", "--top", "3").exit_code == 2
    bad = home / "bad.txt"
    bad.write_text("Uab\n{b\n")
    result = run("eval", "--model", model, "--data", str(bad))
    assert result.exit_code == 2 and "bad.txt:1" in result.stderr


def test_eval_predictions_plan_and_times(model, home):
    """--predictions writes one JSON line per sample, in data order; the work is announced on
    stderr before it starts; the report says where the time went."""
    data = home / "hand.txt"
    data.write_text(DATA)
    predictions = home / "p.jsonl"
    result = run(
        "eval",
        "--model",
        model,
        "--data",
        str(data),
        "--beam",
        "2",
        "--alpha-samples",
        "0",
        "--paper-alpha-samples",
        "0",
        "--max-len",
        "12",
        "--predictions",
        str(predictions),
    )
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 3, 5, 7, 9, 11]
    assert [r["formula"] for r in records][:2] == ["b U a", "Xc"]
    assert all(len(r["candidates"]) <= 2 and r["correct"] == (r["rank"] == 1) for r in records)
    assert "evaluating 6 formulas: 6 inputs to decode" in result.stderr
    assert "6 predictions written" in result.stderr
    assert "time, accuracy" in result.stdout and "wall time" in result.stdout


def test_eval_of_the_other_task_and_plots_without_matplotlib(model, home, no_matplotlib):
    """A propositional data set for an LTL model is named as such, not as a syntax error;
    --plots without matplotlib stops before any work, with the extra to install."""
    data = home / "prop.txt"
    data.write_text("&ab\na1b1\n")
    result = run("eval", "--model", model, "--data", str(data))
    assert result.exit_code == 2
    assert result.stderr == (
        f"ltlwit: {data}:1: a propositional sample (its label is an assignment): model "
        "'tiny-si' was trained for LTL formulas\n"
    )
    ltl = home / "hand.txt"
    ltl.write_text(DATA)
    plots = run("eval", "--model", model, "--data", str(ltl), "--plots", str(home / "plots"))
    assert plots.exit_code == 2 and plots.stdout == ""
    assert plots.stderr.count("\n") == 1 and "pip install 'ltlwit[plots]'" in plots.stderr
    assert "evaluating" not in plots.stderr and not (home / "plots").exists()


def test_models_list_show_path(model, home):
    listing = run("models", "list")  # a pipe: tab-separated lines, no box drawing
    assert listing.exit_code == 0
    assert [line.split("\t") for line in listing.stdout.splitlines()] == [
        ["name", "source", "task", "arch", "parameters", "steps", "trained on"],
        [
            "tiny-si",
            "user",
            "ltl",
            "si",
            str(json.loads((home / "home" / "models" / "tiny-si.json").read_text())["parameters"]),
            "",
            "",
        ],
    ]  # steps 0, no device: left empty
    status, table, _ = run_env("models", "list", stdout_isatty=True)
    assert status == 0 and "tiny-si" in table and "\t" not in table and "─" in table
    rows = [json.loads(line) for line in run("models", "list", "--format", "json").stdout.splitlines()]
    assert [(r["name"], r["source"], r["task"], r["arch"]) for r in rows] == [("tiny-si", "user", "ltl", "si")]
    shown = json.loads(run("models", "show", "tiny-si").stdout)
    assert shown["source"] == "user" and shown["config"]["arch"] == "si" and shown["format"].startswith("ltlwit")
    path = run("models", "path", "tiny-si").stdout.strip()
    assert path == str(home / "home" / "models" / "tiny-si.pt")
    gone = run("models", "show", "other")
    assert gone.exit_code == 2 and gone.stderr.startswith("ltlwit: no model named 'other'")
    assert run("models", "path", "other").exit_code == 2


def test_models_list_when_there_are_none(home):
    result = run("models", "list")
    assert result.exit_code == 0 and "no models" in result.stdout
    assert run("models", "list", "--format", "json").stdout == ""


def test_models_plot_finds_the_log_and_needs_matplotlib(home, no_matplotlib):
    """`models plot NAME` reads the training log of a model trained here; without one, or without
    matplotlib, one line says what is missing."""
    from ltlwit.neural import registry

    out = home / "curves.png"
    missing = run("models", "plot", "mine", str(out))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    assert "no training log for 'mine'" in missing.stderr
    log = registry.checkpoints_dir() / "mine" / "log.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text('{"step": 50, "loss": 1.0, "lr": 0.001}\n')
    for name in ("mine", str(log), str(log.parent)):
        result = run("models", "plot", name, str(out))
        assert result.exit_code == 2 and "pip install 'ltlwit[plots]'" in result.stderr, name
    assert not out.exists()


def test_eval_threads_set_the_cpu_threads_of_its_process(model, home):
    import torch

    data = home / "hand.txt"
    data.write_text(DATA)
    before = torch.get_num_threads()
    try:
        for threads in ("3", None):
            torch.set_num_threads(2)
            args = ["--threads", threads] if threads else []
            result = run(
                "eval",
                "--model",
                model,
                "--data",
                str(data),
                "--beam",
                "1",
                "--alpha-samples",
                "0",
                "--paper-alpha-samples",
                "0",
                "--max-len",
                "8",
                *args,
            )
            assert result.exit_code == 0, result.stderr
            assert torch.get_num_threads() == int(threads or 1)  # one by default, as for solve
    finally:
        torch.set_num_threads(before)
