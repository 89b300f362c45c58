"""`ltlwit train` as a function: the training loop (`ltlwit.train.loop`) run under a model name,
with its checkpoints in `<home>/checkpoints/NAME/`, validation checked by the engine, and the
finished model registered as a user model NAME (`ltlwit.registry`).

Under `torchrun` every rank runs this; the loop does the distributed work and only rank 0
writes, reports and registers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ltlwit import registry

#: Steps when --steps is not given: the papers' schedules for `paper`, CPU-sized for the others.
DEFAULT_STEPS = {"paper": {"ltl": 52000, "prop": 50000}, "small": {"ltl": 20000, "prop": 20000},
                 "tiny": {"ltl": 200, "prop": 200}}

LogHook = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class TrainOptions:
    task: str
    arch: str
    preset: str
    data: str
    steps: int | None = None
    device: str = "auto"
    resume: bool = False
    name: str | None = None
    batch_size: int = 0
    seed: int = 0
    time_limit: float = 0.0
    stop_at: int = 0
    log_every: int = 50
    val_every: int = 1000
    ckpt_every: int = 1000
    rename_aps: int = 0

    @property
    def model_name(self) -> str:
        return self.name or f"{self.arch}-{self.task}-{self.preset}"

    @property
    def total_steps(self) -> int:
        return self.steps if self.steps is not None else DEFAULT_STEPS[self.preset][self.task]


@dataclass
class TrainResult:
    name: str
    out: Path
    step: int
    stopped: str  # "done", "stop-at", "time-limit"
    metrics: dict[str, Any]
    registered: Optional[registry.ModelInfo]


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def checkpoint_dir(name: str) -> Path:
    return registry.checkpoints_dir() / name


def engine_accuracy(pairs: list[tuple[Any, Any]]) -> float:
    """Share of greedy validation outputs the engine verifies (None outputs count as wrong)."""
    from ltlwit.eval.metrics import is_witness

    return sum(w is not None and is_witness(f, w) for f, w in pairs) / len(pairs) if pairs else 0.0


def train(options: TrainOptions, on_log: LogHook | None = None) -> TrainResult:
    """Train (or resume) the model `options.model_name`; register it when the run completes."""
    from ltlwit.train.loop import Settings, Trainer

    name = options.model_name
    registry.user_model_stem(name)  # a valid name that is not a bundled model's, before any work
    out = checkpoint_dir(name)
    if not options.resume and (out / "checkpoint.pt").exists():
        raise ValueError(f"{out} already holds a checkpoint of {name!r}: continue it with --resume, "
                         f"or train under another --name")
    if not Path(options.data).is_dir():
        raise ValueError(f"{options.data}: not a directory (expected train.txt[.gz] and val.txt[.gz] in it)")
    settings = Settings(
        task=options.task, arch=options.arch, preset=options.preset, data=options.data, out=str(out),
        steps=options.total_steps, batch_size=options.batch_size, device=options.device, seed=options.seed,
        time_limit=options.time_limit, stop_at=options.stop_at, log_every=options.log_every,
        val_every=options.val_every, ckpt_every=options.ckpt_every, rename_aps=options.rename_aps,
        resume=options.resume,
    )

    class _Reporting(Trainer):
        # The loop's metrics records (progress every --log-every steps, validations) also go
        # to the caller's progress display.
        def _append_log(self, record: dict[str, Any]) -> None:
            super()._append_log(record)
            if on_log is not None:
                on_log(record)

    result = _Reporting(settings, validate_fn=engine_accuracy).run()
    stopped = result.pop("stopped")
    step = result.pop("step")
    registered = None
    if stopped == "done" and rank() == 0:
        registered = registry.register(out / "model.pt", name)
    return TrainResult(name, out, step, stopped, result, registered)
