"""Which models a run uses, decided without torch; loading them, with torch, only when needed.

`--model si|dual|both` names model *families*; the registry names a family's model for a task
`FAMILY-TASK` (`si-ltl`, `dual-prop`, ...: bundled in `ltlwit/weights/`, or a user model of
that name under `$LTLWIT_HOME/models/` where no bundled one exists). `--model NAME[,NAME...]`
names models directly (e.g. one retrained with `ltlwit train --name NAME`), families allowed in
the list. An explicit model that is missing, or whose task no input of the run can have, is a
usage error, said up front.

`--model auto` (the default) takes `si` where its weights are installed *and a CUDA GPU is
there to run it*, and lets the engine answer otherwise, quietly. On a CPU the models cost far
more than they bring: measured on the project's 2-core machine, `ltlwit solve --model si`
answers about 18-25 formulas per CPU second at one thread, start-up included, against the
engine's 2,000, and a cold single solve takes 2 s (importing torch, 1.5 s of it) instead of
0.2 s (docs/benchmarks.md, "CPU beam search"), while every answer is verified either way.
The GPU test is torch-free (the NVIDIA driver's files), so a CPU machine never imports torch
for `auto`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ltlwit.neural import TORCH_MISSING, torch_installed
from ltlwit.pipeline.options import SolveOptions

FAMILIES = {"si": ("si",), "dual": ("dual",), "both": ("si", "dual"), "auto": ("si",), "none": ()}


class ModelProblem(ValueError):
    """A requested model cannot be used (not installed, unreadable, wrong task): one line."""


def registry_name(family: str, task: str) -> str:
    return f"{family}-{task}"


def family_models(name: str) -> tuple[str, ...] | None:
    """The registry names of the models a family keyword of `--model` stands for, over every
    task (`si` -> si-ltl, si-prop; `both` -> both families' four), so that commands taking a
    model name (`ltlwit models show si`) read the names `--model` reads; None for any other
    name. `auto` and `none` are choices of models rather than names of some, so None too."""
    if name in ("auto", "none") or name not in FAMILIES:
        return None
    return tuple(registry_name(family, task) for family in FAMILIES[name] for task in tasks_for("auto"))


def tasks_for(logic: str) -> tuple[str, ...]:
    """The model tasks a run with `--logic LOGIC` may need."""
    return ("ltl", "prop") if logic == "auto" else (logic,)


@dataclass(frozen=True)
class Selection:
    """Registry model names per task, in the order their candidates are listed on score ties."""

    names: dict[str, tuple[str, ...]]

    @property
    def empty(self) -> bool:
        return not any(self.names.values())


def requested(model: str) -> tuple[str, ...]:
    """The items of `--model`: families (`si`, `dual`) and model names or weight files, in order."""
    if model in FAMILIES:
        return FAMILIES[model]
    items = tuple(item.strip() for item in model.split(","))
    if not all(items) or any(item in ("auto", "both", "none") for item in items):
        raise ModelProblem(
            f"--model {model!r}: give auto, none, both, or a comma-separated list of "
            "families (si, dual) and model names (`ltlwit models list`)"
        )
    return tuple(dict.fromkeys(items))


def select(options: SolveOptions) -> Selection:
    """The models of `--model` for every task `--logic` allows; ModelProblem when an explicitly
    requested one is missing, or serves none of those tasks. Reads manifests only (no torch).

    A family stands for its model of each task (`si` -> `si-ltl`, `si-prop`); a model name
    (bundled, user, or a path to weights) serves the one task it was trained for, so `--model
    mine` with an LTL model `mine` answers propositional inputs with the engine alone."""
    if options.model == "auto" and not auto_wants_models(options.device):
        return Selection({})
    items = requested(options.model)
    if not items:  # `none`
        return Selection({})
    from ltlwit.neural import registry  # (loaded here: a run without models never reads a manifest)

    tasks = tasks_for(options.logic)
    names: dict[str, list[str]] = {task: [] for task in tasks}
    for item in items:
        if item in FAMILIES:
            for task in tasks:
                name = registry_name(item, task)
                try:
                    info = registry.resolve(name)
                except registry.RegistryError:
                    if options.model == "auto":
                        continue
                    raise ModelProblem(
                        f"--model {options.model} needs the model {name!r}, which is not installed "
                        "(`ltlwit models list` shows what is; `--model none` uses the engine alone)"
                    ) from None
                if info.task != task:
                    raise ModelProblem(
                        f"model {name!r} answers {info.task} formulas, not {task} ones ({info.manifest_path})"
                    )
                names[task].append(name)
            continue
        try:
            info = registry.resolve(item)
        except registry.RegistryError as exc:
            raise ModelProblem(f"--model: {exc}") from None
        if info.task not in names:
            raise ModelProblem(
                f"model {item!r} answers {info.task} formulas only; --logic {options.logic} has no use for it"
            )
        names[info.task].append(item)
    chosen = {task: tuple(dict.fromkeys(models)) for task, models in names.items()}
    if any(chosen.values()) and not torch_installed():
        if options.model == "auto":  # the engine answers, as on any machine without a GPU
            return Selection({})
        wanted = ", ".join(name for models in chosen.values() for name in models)
        raise ModelProblem(f"the models ({wanted}) {TORCH_MISSING}")
    return Selection(chosen)


def gpu_visible() -> bool:
    """An NVIDIA driver is loaded here (its device node or /proc entry): a cheap hint, no torch."""
    return os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/dev/nvidiactl")


def auto_wants_models(device: str) -> bool:
    """Whether `--model auto` considers the models at all (see the module docstring); an
    explicit `--device cuda` always does (and is an error without a GPU)."""
    return device == "cuda" or (device == "auto" and gpu_visible())


def cuda_available() -> bool:
    """torch's own answer (imports torch: only once a model is about to run)."""
    import torch

    return bool(torch.cuda.is_available())


def check_device(device: str) -> None:
    """ModelProblem for `--device cuda` without a GPU (imports torch: call it only when a model
    will actually run)."""
    if device == "cuda" and not cuda_available():
        raise ModelProblem("--device cuda, but torch sees no CUDA GPU here (use --device cpu or auto)")


def load(name: str, device: str, threads: int) -> tuple[Any, dict[str, Any]]:
    """(model in eval mode on `device`, manifest); ModelProblem with a one-line reason. This
    process's tensor operations use `threads` CPU threads from here on (torch's setting is
    per process, so each worker of a run sets its own)."""
    from ltlwit.neural import registry
    from ltlwit.neural.backbone import resolve_device
    from ltlwit.neural.config import ExpEmbConfig

    try:
        model, manifest = registry.load(name, device=str(resolve_device(device)), threads=threads)
    except ValueError as exc:  # RegistryError, WeightsError, a bad device
        raise ModelProblem(f"model {name!r}: {exc}") from None
    if isinstance(model.cfg, ExpEmbConfig):  # writes formulas, not witnesses
        raise ModelProblem(f"model {name!r}: an embedding model ({model.cfg.arch}), for `ltlwit embed --model`")
    return model, manifest
