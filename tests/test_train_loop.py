"""The training loop end to end: overfitting 64 pairs, exact resume, time limit, the validation
hook, its front end (`ltlwit train --out`), and a run across two torchrun "nodes" on CPU (two
processes of one node: tests/test_cli_train.py)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from click.testing import Result
from neural_support import DATA, losses, one_thread, overfit, split, train_into, trainer  # noqa: F401 - a fixture

from ltlwit.logic.formula import Formula
from ltlwit.neural.weights import load_weights
from ltlwit.train.loop import Settings, Trainer

ROOT = Path(__file__).resolve().parents[1]


def run(out: Path, *extra: str, arch: str = "dual", task: str = "ltl") -> Result:
    return train_into(out, "--ckpt-every", "5", *extra, arch=arch, task=task)


# -- overfitting: the whole training path works --------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("arch, task, max_steps", [("si", "prop", 1000), ("dual", "ltl", 1600)])
def test_tiny_model_learns_32_pairs_by_heart(tmp_path: Path, arch: str, task: str, max_steps: int) -> None:
    """The whole path (batches, masks, loss, schedule, greedy decoding) learns; 32 pairs take
    half the time of the 64 (here: 400 and 650 steps)."""
    steps, exact = overfit(arch, task, tmp_path, max_steps, pairs=32, lr=2e-3)
    assert exact == 1.0, f"{arch}/{task}: greedy exact match {exact:.3f} after {steps} steps"


# -- resume, stop, time limit ---------------------------------------------------------------------


def test_resume_continues_exactly(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(a, "--steps", "20", "--stop-at", "10", "--cache", str(tmp_path / "c")).exit_code == 0
    state = torch.load(a / "checkpoint.pt", weights_only=True)
    assert state["step"] == 10 and len(state["rng"]) == 1
    assert sorted(losses(a)) == list(range(1, 11))
    assert run(a, "--steps", "20", "--resume", "--cache", str(tmp_path / "c")).exit_code == 0
    assert run(b, "--steps", "20", "--cache", str(tmp_path / "c")).exit_code == 0
    resumed, straight = losses(a), losses(b)
    assert sorted(resumed) == list(range(1, 21))
    assert all(resumed[s] == straight[s] for s in range(1, 21)), (resumed, straight)
    assert torch.load(a / "checkpoint.pt", weights_only=True)["step"] == 20
    model, manifest = load_weights(a / "model.pt")
    assert manifest["training"]["steps"] == 20 and manifest["training"]["stopped"] == "done"
    assert manifest["training"]["calibration"] and len(manifest["training"]["calibration"]) == 10
    assert model.cfg.beta_seed == manifest["config"]["beta_seed"]


def test_time_limit_checkpoints_and_exits(tmp_path: Path) -> None:
    stopped = run(tmp_path, "--steps", "50", "--time-limit", "1", arch="si", task="prop")
    assert stopped.exit_code == 0 and stopped.stdout == ""  # no weights to name: the run is not done
    assert "time-limit at step" in stopped.stderr and "continue with --resume" in stopped.stderr
    step = torch.load(tmp_path / "checkpoint.pt", weights_only=True)["step"]
    assert step < 50
    assert load_weights(tmp_path / "model")[1]["training"]["stopped"] == "time-limit"
    assert run(tmp_path, "--steps", str(step + 2), "--resume", arch="si", task="prop").exit_code == 0
    assert torch.load(tmp_path / "checkpoint.pt", weights_only=True)["step"] == step + 2


def test_resume_refuses_another_architecture(tmp_path: Path) -> None:
    done = run(tmp_path, "--steps", "2")
    assert done.exit_code == 0 and done.stdout == f"{tmp_path / 'model.pt'}\n"  # the weights, for --model
    refused = run(tmp_path, "--steps", "4", "--resume", arch="si")
    assert refused.exit_code == 2 and "a dual/ltl model, not si/ltl" in refused.stderr
    again = run(tmp_path, "--steps", "4")  # a finished run is not trained over without --resume
    assert again.exit_code == 2 and "already holds a checkpoint" in again.stderr and "another --out" in again.stderr


def test_init_from_weights_continues_the_step_count(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(a, "--steps", "20", "--stop-at", "10").exit_code == 0
    assert run(b, "--steps", "20", "--stop-at", "14", "--init-from", str(a / "model.pt")).exit_code == 0
    assert sorted(losses(b)) == [11, 12, 13, 14]
    state = torch.load(b / "checkpoint.pt", weights_only=True)
    assert state["step"] == 14 and state["restart"] == 10
    rows = [json.loads(line) for line in (b / "log.jsonl").read_text().splitlines()]
    assert rows[0]["lr"] < 1e-4  # warming up again: Adam's moments start from zero
    assert run(b, "--steps", "16", "--resume").exit_code == 0  # a checkpoint wins over --init-from
    assert torch.load(b / "checkpoint.pt", weights_only=True)["restart"] == 10
    other = run(tmp_path / "c", "--steps", "20", "--init-from", str(a / "model.pt"), arch="si")
    assert other.exit_code == 2 and "a dual/ltl model, not si/ltl" in other.stderr


# -- schedule and validation hook -----------------------------------------------------------------


def test_warmup_then_cosine(tmp_path: Path) -> None:
    tr = trainer("dual", "ltl", tmp_path, steps=110, warmup=10, lr=1e-3, min_lr_ratio=0.1)
    assert tr.lr_at(0) == pytest.approx(1e-4) and tr.lr_at(9) == pytest.approx(1e-3)
    assert tr.lr_at(10) == pytest.approx(1e-3) and tr.lr_at(60) == pytest.approx(5.5e-4)
    assert tr.lr_at(110) == pytest.approx(1e-4)
    lrs = [tr.lr_at(s) for s in range(10, 111)]
    assert lrs == sorted(lrs, reverse=True)


def test_validate_fn_sees_formulas_and_decoded_predictions(tmp_path: Path) -> None:
    seen = []

    def check(pairs: list) -> float:
        seen.extend(pairs)
        return 0.25

    tr = Trainer(
        Settings(
            task="prop",
            arch="dual",
            preset="tiny",
            out=str(tmp_path),
            steps=3,
            batch_size=16,
            val_every=0,
            ckpt_every=0,
            log_every=1,
            val_samples=16,
            greedy_samples=8,
        ),
        train=split("prop"),
        val=split("prop"),
        validate_fn=check,
    )
    metrics = tr.run()
    assert metrics["val_semantic"] == 0.25 and len(seen) == 8
    assert all(isinstance(f, Formula) for f, _ in seen)
    assert {"val_loss", "val_token_acc", "val_exact"} <= metrics.keys()
    logged = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert logged[-1]["val_semantic"] == 0.25


# -- distributed ----------------------------------------------------------------------------------


def test_continuing_from_weights_is_a_warm_restart(tmp_path: Path) -> None:
    a = tmp_path / "a"
    assert run(a, "--steps", "8").exit_code == 0
    from neural_support import trainer

    tr = trainer(
        "dual",
        "ltl",
        tmp_path / "b",
        steps=8 + 300,
        warmup=1000,
        lr=5e-4,
        min_lr_ratio=0.0,
        init_from=str(a / "model.pt"),
    )
    assert tr.step == 8 and tr.restart == 8
    assert tr.lr_at(8) == pytest.approx(5e-4 / 100)  # warming up again, whatever --warmup says
    assert tr.lr_at(8 + 99) == pytest.approx(5e-4 * 0.5 * (1 + math.cos(math.pi * 99 / 300)))
    assert tr.lr_at(8 + 150) == pytest.approx(2.5e-4)  # half way down the cosine over the 300 new steps
    assert tr.lr_at(8 + 300) == pytest.approx(0.0, abs=1e-12)


def test_validation_checks_greedy_outputs_with_the_engine(tmp_path: Path) -> None:
    assert run(tmp_path, "--steps", "2", task="prop").exit_code == 0
    last = json.loads((tmp_path / "log.jsonl").read_text().splitlines()[-1])
    assert 0.0 <= last["val_semantic"] <= 1.0 and "val_exact" in last


def test_verified_share_counts_checked_witnesses() -> None:
    from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
    from ltlwit.train.loop import verified_share

    f = parse_formula("F a & X b")
    pairs = [(f, parse_trace("1;b;{a}", "polish")), (f, parse_trace("{a}", "polish")), (f, None)]
    assert verified_share(pairs) == pytest.approx(1 / 3)
    g = parse_formula("a | !b")
    assert verified_share([(g, parse_assignment("b0", "polish")), (g, parse_assignment("a0", "polish"))]) == 0.5
    assert verified_share([]) == 0.0


@pytest.mark.slow
def test_two_nodes_of_one_process_each_on_cpu(tmp_path: Path) -> None:
    """What a run across machines does (docs/training.md): two torchrun launchers, one per
    "node", meeting at a c10d rendezvous (here both on this machine), each starting one
    process of `ltlwit train --out`; the effective batch is the two processes' together."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        OMP_NUM_THREADS="1",
        CUDA_VISIBLE_DEVICES="",
    )
    nodes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--nnodes",
                "2",
                "--nproc_per_node",
                "1",
                "--rdzv_backend",
                "c10d",
                "--rdzv_endpoint",
                f"127.0.0.1:{port}",
                "--rdzv_id",
                "ltlwit-test",
                "-m",
                "ltlwit",
                "train",
                "--task",
                "prop",
                "--arch",
                "dual",
                "--preset",
                "tiny",
                "--data",
                str(DATA / "prop"),
                "--out",
                str(tmp_path),
                "--steps",
                "4",
                "--batch-size",
                "8",
                "--log-every",
                "2",
                "--val-every",
                "0",
                "--ckpt-every",
                "4",
                "--val-samples",
                "16",
                "--greedy-samples",
                "8",
                "--device",
                "cpu",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    done = [node.communicate(timeout=300) for node in nodes]
    assert [node.returncode for node in nodes] == [0, 0], [err[-2000:] for _, err in done]
    assert sum(err.count("step 4/4") for _, err in done) == 1  # one rank 0 of the two nodes logs
    assert any("batch 8 x 2" in out + err for out, err in done)
    manifest = load_weights(tmp_path / "model")[1]
    assert manifest["training"]["world_size"] == 2 and manifest["training"]["batch_size"] == 8
