"""Helpers for the neural and training tests: tiny models trained on the 64-pair sets in
tests/data/neural (short LTL35 / Prop35 samples), cached per session."""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path

import pytest
import torch
from cli_support import run
from click.testing import Result

from ltlwit.train.data import EncodedSplit, encode_file, encode_pair
from ltlwit.train.loop import Settings, Trainer
from ltlwit.train.pairs import iter_pairs

DATA = Path(__file__).parent / "data" / "neural"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """Tiny models run fastest on one thread, and far faster than two threads spinning against
    other jobs on a busy machine (2-8x here). Import this fixture into a test module to use it."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@functools.lru_cache(maxsize=None)
def split(task: str, name: str = "train", pairs: int = 64) -> EncodedSplit:
    """The split's first `pairs` pairs (all 64 by default)."""
    if pairs >= 64:
        return encode_file(DATA / task / f"{name}.txt", task, workers=1)
    rows = [encode_pair(task, *pair) for pair in itertools.islice(iter_pairs(DATA / task / f"{name}.txt"), pairs)]
    kept = [row for row in rows if row is not None]
    return EncodedSplit.from_rows([r[0] for r in kept], [r[1] for r in kept], [r[2] for r in kept])


def trainer(arch: str, task: str, tmp: Path, pairs: int = 64, **settings) -> Trainer:
    """A tiny model on the first `pairs` training pairs, validated on the same pairs (for
    overfitting)."""
    values = dict(
        task=task,
        arch=arch,
        preset="tiny",
        out=str(tmp),
        steps=1000,
        batch_size=64,
        lr=1e-3,
        warmup=10,
        min_lr_ratio=1.0,
        weight_decay=0.0,
        val_every=0,
        ckpt_every=0,
        log_every=10**9,
        val_samples=64,
        greedy_samples=64,
    )
    values.update(settings)
    data = split(task, pairs=pairs)
    return Trainer(Settings(**values), train=data, val=data)


def overfit(
    arch: str, task: str, tmp: Path, max_steps: int, pairs: int, check_every: int = 50, **settings
) -> tuple[int, float]:
    """Train on the first `pairs` pairs, all in each batch, until greedy decoding reproduces
    every target; (steps taken, exact-match rate)."""
    tr = trainer(
        arch, task, tmp, pairs, steps=max_steps, batch_size=pairs, val_samples=pairs, greedy_samples=pairs, **settings
    )
    exact = 0.0
    while tr.step < max_steps:
        tr.train_step()
        if tr.step % check_every == 0:
            exact = tr.validate()["val_exact"]
            if exact == 1.0:
                break
    return tr.step, exact


@functools.lru_cache(maxsize=None)
def trained(arch: str, task: str, steps: int = 150) -> torch.nn.Module:
    """A briefly trained tiny model (its beams mostly finish), in eval mode."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(0)
        tr = trainer(arch, task, Path(tmp), steps=steps)
        while tr.step < steps:
            tr.train_step()
    return tr.model.eval()


def train_into(out: Path, *extra: str, arch: str = "dual", task: str = "ltl") -> Result:
    """`ltlwit train --out OUT` of a tiny model on the 64 pairs, in-process: the loop's own
    front end, as scripts run it (its messages on stderr)."""
    return run(
        "train",
        "--task",
        task,
        "--arch",
        arch,
        "--preset",
        "tiny",
        "--data",
        str(DATA / task),
        "--out",
        str(out),
        "--batch-size",
        "16",
        "--log-every",
        "1",
        "--val-every",
        "0",
        "--val-samples",
        "16",
        "--greedy-samples",
        "8",
        *extra,
    )


def losses(out: Path) -> dict[int, float]:
    """The logged training loss of each step of the run in `out`."""
    rows = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    return {r["step"]: r["loss"] for r in rows if "loss" in r}
