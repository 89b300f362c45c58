"""Checkpoints: parts of bounded size (a lent GPU machine returns files of at most 16 MiB),
atomic replacement, and exact resumption after a run dies between two checkpoints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from neural_support import DATA, losses, one_thread, train_into  # noqa: F401 - one_thread is a fixture

from ltlwit.train import checkpoint

KIB = 1 / 1024  # MiB


def run(out: Path, *extra: str) -> int:
    return train_into(out, "--cache", str(out.parent / "cache"), *extra).exit_code


def test_parts_round_trip_and_stay_under_the_limit(tmp_path: Path) -> None:
    state = {"step": 7, "w": torch.arange(20000, dtype=torch.float32), "note": "x"}
    files = checkpoint.save(state, tmp_path, part_mb=16 * KIB)
    parts = [f for f in files if f.suffix.startswith(".part")]
    assert len(parts) == 5 and all(f.stat().st_size <= 16 * 1024 for f in parts)
    assert not (tmp_path / "checkpoint.pt").exists()
    back = checkpoint.load(tmp_path)
    assert back["step"] == 7 and torch.equal(back["w"], state["w"]) and back["note"] == "x"
    # a new checkpoint replaces the parts of the old one; switching form removes the other form
    checkpoint.save({**state, "step": 8}, tmp_path, part_mb=16 * KIB)
    assert len(list(tmp_path.glob("*.part[0-9]*"))) == 5 and checkpoint.load(tmp_path)["step"] == 8
    checkpoint.save({**state, "step": 9}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt"]
    assert checkpoint.load(tmp_path)["step"] == 9


def test_damaged_parts_are_refused(tmp_path: Path) -> None:
    checkpoint.save({"step": 1, "w": torch.ones(10000)}, tmp_path, part_mb=8 * KIB)
    index = json.loads((tmp_path / checkpoint.INDEX).read_text())
    first = tmp_path / index["parts"][0]
    data = bytearray(first.read_bytes())
    data[100] ^= 1
    first.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="do not add up"):
        checkpoint.load(tmp_path)
    first.unlink()
    with pytest.raises(ValueError, match="is missing"):
        checkpoint.load(tmp_path)


def test_split_and_join_commands(tmp_path: Path, capsys) -> None:
    state = {"step": 3, "w": torch.randn(9000)}
    checkpoint.save(state, tmp_path)
    assert checkpoint.main(["split", str(tmp_path), "--part-mb", str(10 * KIB)]) == 0
    assert len(list(tmp_path.glob("*.part[0-9]*"))) == 4 and not (tmp_path / "checkpoint.pt").exists()
    assert checkpoint.main(["join", str(tmp_path)]) == 0
    assert torch.equal(torch.load(tmp_path / "checkpoint.pt", weights_only=True)["w"], state["w"])
    assert checkpoint.main(["join", str(tmp_path / "nowhere")]) == 2
    assert "ltlwit checkpoint:" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_from_parts_continues_exactly(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(a, "--steps", "12", "--stop-at", "6", "--checkpoint-part-mb", str(64 * KIB), "--ckpt-every", "0") == 0
    index = json.loads((a / checkpoint.INDEX).read_text())
    assert len(index["parts"]) > 1 and max(index["sizes"]) <= 64 * 1024
    assert run(a, "--steps", "12", "--resume", "--checkpoint-part-mb", str(64 * KIB)) == 0
    assert run(b, "--steps", "12") == 0
    assert losses(a) == losses(b) and sorted(losses(a)) == list(range(1, 13))
    assert checkpoint.load(a)["step"] == 12


class Killed(Exception):
    pass


@pytest.mark.parametrize("arch, task", [("dual", "ltl"), pytest.param("si", "prop", marks=pytest.mark.slow)])
def test_a_run_killed_between_checkpoints_resumes_exactly(tmp_path: Path, arch: str, task: str) -> None:
    """The run dies at step 13 with its last checkpoint at 10; resumed, it repeats 11..13 and
    goes on, step for step equal to a run that was never interrupted (log trimmed to match)."""
    from ltlwit.train.loop import Settings, Trainer

    def settings(out: Path, **changes) -> Settings:
        values = dict(
            task=task,
            arch=arch,
            preset="tiny",
            data=str(DATA / task),
            out=str(out),
            steps=20,
            batch_size=16,
            log_every=1,
            val_every=0,
            ckpt_every=5,
            val_samples=16,
            greedy_samples=8,
            cache=str(tmp_path / "cache"),
            static_shapes=16,
            checkpoint_part_mb=32 * KIB,
        )
        values.update(changes)
        return Settings(**values)

    def die_at_13(record: dict) -> None:
        if record.get("step") == 13:
            raise Killed

    killed = tmp_path / "killed"
    with pytest.raises(Killed):
        Trainer(settings(killed), on_log=die_at_13).run()
    assert checkpoint.load(killed)["step"] == 10 and max(losses(killed)) == 13
    Trainer(settings(killed, resume=True)).run()
    Trainer(settings(tmp_path / "straight")).run()
    resumed, straight = losses(killed), losses(tmp_path / "straight")
    steps = [
        json.loads(line)["step"]
        for line in (killed / "log.jsonl").read_text().splitlines()
        if "loss" in json.loads(line)
    ]
    assert steps == list(range(1, 21))  # 11..13 logged once: the dead run's records were dropped
    assert resumed == straight


def test_fitting_the_schedule_to_the_time_limit(tmp_path: Path, monkeypatch) -> None:
    """The step time measured early on sets the last step, so the run ends by itself (cosine at
    zero) before the time limit instead of being cut off mid-schedule; a resumed run keeps it."""
    from neural_support import trainer

    from ltlwit.train import loop

    monkeypatch.setattr(loop, "FIT_WINDOW", (3, 13))
    tr = trainer(
        "dual",
        "ltl",
        tmp_path,
        steps=10**6,
        batch_size=16,
        time_limit=21.0,
        fit_steps_to_time=True,
        min_lr_ratio=0.0,
        warmup=2,
    )
    result = tr.run()
    assert result["stopped"] == "done" and 13 < result["step"] == tr.s.steps < 10**6
    assert tr.lr_at(tr.s.steps) == pytest.approx(0.0, abs=1e-12)
    assert checkpoint.load(tmp_path)["planned_steps"] == tr.s.steps
    again = trainer(
        "dual", "ltl", tmp_path, steps=10**6, batch_size=16, time_limit=21.0, fit_steps_to_time=True, resume=True
    )
    assert again.s.steps == tr.s.steps and again.step == tr.s.steps
    with pytest.raises(ValueError, match="needs --time-limit"):
        trainer("dual", "ltl", tmp_path / "x", steps=10, fit_steps_to_time=True)
