"""`ltlwit train` as a function: the training loop (`ltlwit.train.loop`) run under a model name,
with its checkpoints in `<home>/checkpoints/NAME/` (or a folder of the caller's), validation
checked by the engine, and the finished model registered as a user model NAME
(`ltlwit.neural.registry`).

Under `torchrun` every rank runs this; the loop does the distributed work and only rank 0
writes, reports and registers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ltlwit.neural import registry

#: Steps when --steps is not given: the papers' schedules for `paper`, CPU-sized for the others.
DEFAULT_STEPS = {
    "paper": {"ltl": 52000, "prop": 50000},
    "small": {"ltl": 20000, "prop": 20000},
    "tiny": {"ltl": 200, "prop": 200},
}

LogHook = Callable[[dict[str, Any]], None]


def model_name(task: str, arch: str, preset: str, name: str | None = None) -> str:
    """The name a run registers its model under: `name`, else ARCH-TASK-PRESET."""
    return name or f"{arch}-{task}-{preset}"


def default_steps(task: str, preset: str) -> int:
    return DEFAULT_STEPS[preset][task]


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


def train(name: str, on_log: LogHook | None = None, out: str | Path | None = None, **settings: Any) -> TrainResult:
    """Train (or resume) model `name` with the loop's `Settings` fields (`task`, `arch`, `preset`,
    `data`, `steps`, `resume`, ...; `steps` None the preset's default) in the name's checkpoint
    folder, and register it when the run completes; or, given `out`, in that folder, with
    nothing registered (scripts and clusters keep their runs where they choose)."""
    from ltlwit.neural.config import ARCHS, ExpEmbConfig
    from ltlwit.train.loop import Settings, Trainer, equivalent_share, process_group, verified_share

    if out is None:
        registry.user_model_stem(name)  # a valid name that is not a bundled model's, before any work
    folder = checkpoint_dir(name) if out is None else Path(out)
    if not settings.get("resume") and (folder / "checkpoint.pt").exists():
        again = "train under another --name" if out is None else "train into another --out"
        raise ValueError(f"{folder} already holds a checkpoint of {name!r}: continue it with --resume, or {again}")
    embeds = issubclass(ARCHS.get(settings["arch"], object), ExpEmbConfig)
    if settings.get("contrastive", -1.0) != -1.0 and not embeds:
        raise ValueError(f"--contrastive: a term of the embedding models' loss, not {settings['arch']}'s")
    if settings.get("hidden") and not embeds:
        raise ValueError(f"--hidden: the embedding models' H; {settings['arch']}'s sizes are its preset's")
    if embeds and not Path(settings["data"]).is_file():
        raise ValueError(f"{settings['data']}: not a file (expected the classes `ltlwit data equiv` writes)")
    if not embeds and not Path(settings["data"]).is_dir():
        raise ValueError(f"{settings['data']}: not a directory (expected train.txt[.gz] and val.txt[.gz] in it)")
    if settings.get("steps") is None:
        settings["steps"] = default_steps(settings["task"], settings["preset"])
    config = Settings(out=str(folder), **settings)

    with process_group():
        result = Trainer(config, validate_fn=equivalent_share if embeds else verified_share, on_log=on_log).run()
    stopped = result.pop("stopped")
    step = result.pop("step")
    registered = None
    if stopped == "done" and rank() == 0 and out is None:
        registered = registry.register(folder / "model.pt", name)
    return TrainResult(name, folder, step, stopped, result, registered)
