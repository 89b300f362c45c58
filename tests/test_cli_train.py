"""`ltlwit train` through the CLI: a 20-step tiny run, the same run stopped at step 10 and
resumed (step counter and losses continue exactly), registration, and a 2-process torchrun
run on CPU (gloo)."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
import torch
from cli_support import ROOT, run, subprocess_env

from ltlwit.train.label import GenerateConfig, generate_dataset


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("data")
    generate_dataset(folder / "train.txt.gz", GenerateConfig("ltl", 3, 12, 400, seed=1))
    generate_dataset(folder / "val.txt", GenerateConfig("ltl", 3, 12, 80, seed=2))
    return folder


@pytest.fixture()
def home(tmp_path, monkeypatch):
    """A fresh LTLWIT_HOME, and no bundled models (whether weights ship must not matter here)."""
    from ltlwit.neural import registry

    monkeypatch.setenv("LTLWIT_HOME", str(tmp_path / "home"))
    (tmp_path / "no-bundled").mkdir()
    monkeypatch.setattr(registry, "_bundled_folder", lambda: tmp_path / "no-bundled")
    return tmp_path / "home"


def train_args(data_dir, name, *extra):
    return (
        "train",
        "--task",
        "ltl",
        "--arch",
        "si",
        "--preset",
        "tiny",
        "--data",
        str(data_dir),
        "--steps",
        "20",
        "--device",
        "cpu",
        "--name",
        name,
        "--log-every",
        "5",
        "--val-every",
        "0",
        "--ckpt-every",
        "0",
        "--batch-size",
        "16",
        *extra,
    )


def losses(home, name):
    with open(home / "checkpoints" / name / "log.jsonl") as fh:
        return {r["step"]: r["loss"] for r in map(json.loads, fh) if "loss" in r}


@pytest.mark.slow
def test_resume_continues_step_counter_and_losses_exactly(data_dir, home):
    straight = run(*train_args(data_dir, "straight"))
    assert straight.exit_code == 0, straight.stderr
    assert straight.stdout == "straight\n"
    assert "model 'straight' registered" in straight.stderr

    first = run(*train_args(data_dir, "split", "--stop-at", "10"))
    assert first.exit_code == 0, first.stderr
    assert first.stdout == "" and "stopped at step 10" in first.stderr and "--resume" in first.stderr
    assert not (home / "models" / "split.json").exists()  # not registered before completion

    again = run(*train_args(data_dir, "split"))
    assert again.exit_code == 2 and "already holds a checkpoint" in again.stderr

    second = run(*train_args(data_dir, "split", "--resume"))
    assert second.exit_code == 0, second.stderr
    assert "resumed" in second.stderr and "at step 10" in second.stderr and "steps 10->20" in second.stderr
    a, b = losses(home, "straight"), losses(home, "split")
    assert sorted(a) == sorted(b) == [5, 10, 15, 20]
    for step in (5, 10, 15, 20):
        assert b[step] == pytest.approx(a[step], rel=1e-5, abs=1e-6)

    manifest = json.loads((home / "models" / "split.json").read_text())
    assert manifest["training"]["steps"] == 20 and manifest["name"] == "split"
    listing = run("models", "list", "--format", "json")
    assert {json.loads(line)["name"] for line in listing.stdout.splitlines()} == {"straight", "split"}


def test_train_errors(data_dir, home, tmp_path):
    bad = run(*train_args(data_dir, "bad name"))
    assert bad.exit_code == 2 and "bad model name" in bad.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = run(
        "train",
        "--task",
        "ltl",
        "--arch",
        "si",
        "--preset",
        "tiny",
        "--data",
        str(empty),
        "--steps",
        "2",
        "--device",
        "cpu",
        "--name",
        "x",
    )
    assert missing.exit_code == 2 and "no train.txt.gz or train.txt" in missing.stderr


def test_training_settings_are_declared_once():
    """`ltlwit train`'s options are the loop's `Settings` fields, with their defaults: one place
    to add a setting (the papers' fixed constants are fields and no options; None as an
    option's default means the field's own, "the preset's" or "the config's")."""
    from dataclasses import fields

    from ltlwit.cli.train import train
    from ltlwit.train.settings import Settings

    fixed = {"weight_decay", "grad_clip", "calib_samples"}
    field_of = {"data_dir": "data", "compile_": "compile"}
    options = {field_of.get(p.name, p.name): p for p in train.params if p.name != "name"}
    defaults = {f.name: f.default for f in fields(Settings)}
    assert set(options) == set(defaults) - fixed
    ctx = click.Context(train)
    for name, option in options.items():
        default = () if option.multiple else option.get_default(ctx)  # a repeatable option: () unless given
        if not (option.required or default is None):
            assert default == defaults[name], name


def test_schedule_and_model_options_reach_the_loop(data_dir, home):
    """--lr, --warmup, --min-lr-ratio, --emb-dropout, --no-cross-rope and --init-from on
    `ltlwit train`: the logged learning rates follow them, the weights carry the config, and a
    run from another's weights starts at their step."""
    small = ("--val-samples", "8", "--greedy-samples", "4")  # a short final validation
    first = run(
        *train_args(
            data_dir,
            "sched",
            "--steps",
            "4",
            "--log-every",
            "1",
            "--lr",
            "0.004",
            "--warmup",
            "2",
            "--min-lr-ratio",
            "0.5",
            "--emb-dropout",
            "0",
            "--no-cross-rope",
            *small,
        )
    )
    assert first.exit_code == 0, first.stderr
    rates = [r["lr"] for r in map(json.loads, (home / "checkpoints" / "sched" / "log.jsonl").open()) if "lr" in r]
    assert rates[0] < rates[1] == pytest.approx(0.004)  # warm-up over 2 steps to the peak
    assert all(a >= b for a, b in zip(rates[1:], rates[2:])) and min(rates[1:]) >= 0.002  # cosine to half
    config = json.loads((home / "models" / "sched.json").read_text())["config"]
    assert (config["emb_dropout"], config["cross_rope"]) == (0.0, False)
    weights = run("models", "path", "sched").stdout.strip()
    again = run(*train_args(data_dir, "sched2", "--steps", "5", "--init-from", weights, *small))
    assert again.exit_code == 0, again.stderr
    assert "steps 4->5" in again.stderr


def test_data_of_the_other_task_is_named(data_dir, home):
    result = run(
        "train",
        "--task",
        "prop",
        "--arch",
        "si",
        "--preset",
        "tiny",
        "--data",
        str(data_dir),
        "--steps",
        "2",
        "--device",
        "cpu",
        "--name",
        "x",
    )
    assert result.exit_code == 2
    assert (
        "train.txt.gz:1: an LTL sample (its label is a trace): --task prop trains a model for propositional "
        "formulas" in result.stderr
    )


def test_gpu_options_reach_the_loop(data_dir, home, tmp_path):
    """--extra-train, --static-shapes and --checkpoint-part-mb take effect; --cuda-graphs
    without a GPU is a one-line error."""
    extra = tmp_path / "ap1.txt"
    extra.write_text("Xa\n1;{a}\n")
    result = run(
        *train_args(
            data_dir,
            "gpu-opts",
            "--steps",
            "2",
            "--extra-train",
            str(extra),
            "--static-shapes",
            "16",
            "--checkpoint-part-mb",
            "0.05",
        )
    )
    assert result.exit_code == 0, result.stderr
    assert str(extra) in result.stderr  # loaded beside DIR/train
    out = home / "checkpoints" / "gpu-opts"
    index = json.loads((out / "checkpoint.parts.json").read_text())
    assert len(index["parts"]) > 1 and max(index["sizes"]) <= 0.05 * 2**20
    graphs = run(*train_args(data_dir, "graphs", "--static-shapes", "16", "--cuda-graphs"))
    assert graphs.exit_code == 2 and "--cuda-graphs needs a CUDA device" in graphs.stderr


@pytest.mark.slow
def test_two_process_torchrun_on_cpu(data_dir, tmp_path):
    env = subprocess_env()
    env["LTLWIT_HOME"] = str(tmp_path / "home")
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        "-m",
        "ltlwit",
        *train_args(data_dir, "ddp", "--batch-size", "8"),
    ]
    command[command.index("20")] = "6"
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[-1:] == ["ddp"]  # rank 0 alone registers and prints
    manifest = json.loads((tmp_path / "home" / "models" / "ddp.json").read_text())
    assert manifest["training"]["world_size"] == 2 and manifest["training"]["steps"] == 6
    assert "batch 8 x 2" in done.stderr and done.stderr.count("step 6/6") == 1  # rank 0 logs alone
    state = torch.load(tmp_path / "home" / "checkpoints" / "ddp" / "checkpoint.pt", weights_only=True)
    assert state["step"] == 6 and len(state["rng"]) == 2  # each rank's own random state
    assert not torch.equal(state["rng"][0]["cpu"], state["rng"][1]["cpu"])
