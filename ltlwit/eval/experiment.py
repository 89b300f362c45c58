"""The papers' tables from one command (`ltlwit experiment`): every architecture x seed is trained
(`ltlwit.train.run.train`, registered as a user model), evaluated on a test split (correct,
top-N, exact, alpha-covariance the papers' way: renamings into the whole AP pool, per AP count)
and on a grid (the 10-AP grid: accuracy overall and beyond the test split's AP counts), and the
runs are summarised per architecture as mean ± std over the seeds.

A run whose model is already registered under its name (`PREFIX-TASK-ARCH-PRESET-sSEED`) is
evaluated without training again, and an interrupted training continues from its checkpoint,
so an experiment killed half-way (a Slurm time limit) resumes where it stopped when run again.
Seeds vary the initial weights, the batch order and the training draws (β, dropout, renaming);
the evaluation itself is seeded and the same for every run.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional

from ltlwit.eval.run import EvalOptions, run_eval
from ltlwit.neural import registry

Say = Callable[[str], None]


@dataclass(frozen=True)
class Plan:
    task: str
    data: str  # training folder: train.txt[.gz], val.txt[.gz]
    test: str  # test split (two-line file)
    archs: tuple[str, ...]
    seeds: tuple[int, ...]
    preset: str = "paper"
    grid: Optional[str] = None  # e.g. ltl-grid-val.jsonl (10 APs, sizes up to 50)
    steps: Optional[int] = None  # None: the preset's schedule
    batch_size: int = 0  # 0: the preset's
    device: str = "auto"
    limit: Optional[int] = None  # test samples (the first N)
    grid_limit: Optional[int] = None
    beam: int = 3
    alpha_samples: int = 1000  # formulas for the papers' alpha-covariance (0: skip)
    alpha_variants: int = 120  # renamings per formula (all 5!/(5-k)! of a 5-AP pool)
    eval_batch_size: int = 128
    max_len: int = 160  # longest model output, in tokens
    prefix: str = "exp"

    def __post_init__(self) -> None:
        if not self.archs or not self.seeds:
            raise ValueError("an experiment needs at least one architecture and one seed")
        if len(set(self.archs)) != len(self.archs) or len(set(self.seeds)) != len(self.seeds):
            raise ValueError("architectures and seeds must not repeat")

    def name(self, arch: str, seed: int) -> str:
        return f"{self.prefix}-{self.task}-{arch}-{self.preset}-s{seed}"


@dataclass
class Run:
    """One trained and evaluated model; rates are shares in [0, 1]."""

    arch: str
    seed: int
    model: str
    trained: bool  # False: the model was registered already
    train_seconds: float
    steps: int
    metrics: dict[str, float] = field(default_factory=dict)
    alpha_by_aps: dict[int, float] = field(default_factory=dict)


def run_experiment(
    plan: Plan,
    say: Say = lambda _: None,
    on_log: Callable[[dict[str, Any]], None] | None = None,
) -> list[Run]:
    """Train (or reuse) and evaluate every architecture x seed of the plan, in that order."""
    from ltlwit.train.run import train

    # one tokenised copy of the data for every run (a run's own default is its checkpoint folder)
    cache = "" if os.environ.get("LTLWIT_CACHE") else str(registry.checkpoints_dir() / f"{plan.prefix}-cache")
    runs: list[Run] = []
    total = len(plan.archs) * len(plan.seeds)
    for arch in plan.archs:
        for seed in plan.seeds:
            name = plan.name(arch, seed)
            say(f"[{len(runs) + 1}/{total}] {name}")
            started = time.monotonic()
            try:
                info = registry.resolve(name)
                trained = False
                say(f"{name}: registered already, evaluating it as it is")
            except registry.RegistryError:
                result = train(
                    name,
                    on_log,
                    task=plan.task,
                    arch=arch,
                    preset=plan.preset,
                    data=plan.data,
                    steps=plan.steps,
                    device=plan.device,
                    resume=True,
                    seed=seed,
                    batch_size=plan.batch_size,
                    val_every=0,
                    cache=cache,
                )
                if result.registered is None:
                    raise ValueError(f"{name}: training stopped at step {result.step} ({result.stopped})") from None
                info, trained = result.registered, True
            if (info.task, info.arch) != (plan.task, arch):
                raise ValueError(f"{name} is a {info.arch}/{info.task} model, not {arch}/{plan.task}")
            training = info.manifest.get("training") or {}
            run = Run(
                arch,
                seed,
                name,
                trained,
                float(training.get("wall_seconds") or time.monotonic() - started),
                int(training.get("steps") or 0),
            )
            evaluate_run(plan, run, say)
            runs.append(run)
    return runs


def evaluate_run(plan: Plan, run: Run, say: Say) -> None:
    """The test split's rates and alpha-covariance, and the grid's, into `run`."""
    options = EvalOptions(
        model=run.model,
        data=plan.test,
        beam=plan.beam,
        limit=plan.limit,
        alpha_samples=0,
        paper_alpha_samples=plan.alpha_samples,
        paper_alpha_variants=plan.alpha_variants,
        batch_size=plan.eval_batch_size,
        device=plan.device,
        max_len=plan.max_len,
    )
    test = run_eval(options)
    summary = test.accuracy.summary()
    top = f"top{test.accuracy.top}"
    run.metrics.update(correct=summary["correct"], top_n=summary[top], exact=summary["exact"])
    if test.paper_alpha is not None and test.paper_alpha.samples:
        run.metrics["alpha"] = test.paper_alpha.mean
        run.alpha_by_aps = {row["aps"]: row["alpha"] for row in test.paper_alpha.summary()["by_aps"]}
    if plan.grid:
        grid = run_eval(
            EvalOptions(
                model=run.model,
                data=plan.grid,
                beam=plan.beam,
                limit=plan.grid_limit,
                alpha_samples=0,
                paper_alpha_samples=0,
                batch_size=plan.eval_batch_size,
                device=plan.device,
                max_len=plan.max_len,
            )
        )
        seen = max(j.n_aps for j in test.accuracy.judgements)
        beyond = [j for j in grid.accuracy.judgements if j.n_aps > seen]
        run.metrics["grid"] = grid.accuracy.rate("correct")
        if beyond:
            run.metrics["grid_beyond"] = sum(j.correct for j in beyond) / len(beyond)
    say(f"{run.model}: " + "  ".join(f"{k} {v:.3f}" for k, v in run.metrics.items()))


def _mean_std(values: list[float]) -> dict[str, float]:
    """Mean and sample standard deviation (0 for one run)."""
    return {
        "mean": statistics.fmean(values),
        "std": statistics.stdev(values) if len(values) > 1 else 0.0,
        "n": len(values),
    }


def summarise(runs: list[Run]) -> list[dict[str, Any]]:
    """Per architecture, in the plan's order: mean ± std over its seeds of every metric."""
    rows: dict[str, dict[str, Any]] = {}
    for run in runs:
        rows.setdefault(run.arch, {"arch": run.arch, "runs": []})["runs"].append(run)
    out = []
    for arch, row in rows.items():
        group: list[Run] = row["runs"]
        metrics = {
            key: _mean_std([r.metrics[key] for r in group if key in r.metrics])
            for key in dict.fromkeys(k for r in group for k in r.metrics)
        }
        alpha = {
            aps: _mean_std([r.alpha_by_aps[aps] for r in group if aps in r.alpha_by_aps])
            for aps in sorted({a for r in group for a in r.alpha_by_aps})
        }
        out.append(
            {
                "arch": arch,
                "seeds": [r.seed for r in group],
                "metrics": metrics,
                "alpha_by_aps": alpha,
                "train_seconds": _mean_std([r.train_seconds for r in group]),
            }
        )
    return out


#: Column heads of the Markdown table, in order (the papers' Table 2 and the grid figure).
COLUMNS = {
    "correct": "correct",
    "top_n": "top-{top}",
    "exact": "exact",
    "alpha": "α-cov. (papers')",
    "grid": "grid correct",
    "grid_beyond": "grid, APs beyond test",
}


def _cell(stat: dict[str, float] | None) -> str:
    if stat is None:
        return "–"
    if stat["n"] < 2:
        return f"{100 * stat['mean']:.1f}"
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def markdown(plan: Plan, rows: list[dict[str, Any]]) -> str:
    """The table: one row per architecture, percentages as mean ± std over the seeds."""
    keys = [k for k in COLUMNS if any(k in r["metrics"] for r in rows)]
    aps = sorted({a for r in rows for a in r["alpha_by_aps"]})
    split = keys.index("alpha") + 1 if "alpha" in keys else len(keys)  # α per AP count beside the α mean
    heads = (
        ["model"]
        + [COLUMNS[k].format(top=plan.beam) for k in keys[:split]]
        + [f"α {a} AP" for a in aps]
        + [COLUMNS[k] for k in keys[split:]]
        + ["train s"]
    )
    lines = [
        f"{plan.task}, preset {plan.preset}, seeds {', '.join(map(str, plan.seeds))} (mean ± std over seeds, %)",
        "",
        "| " + " | ".join(heads) + " |",
        "|" + "---|" * len(heads),
    ]
    for r in rows:
        cells = (
            [r["arch"]]
            + [_cell(r["metrics"].get(k)) for k in keys[:split]]
            + [_cell(r["alpha_by_aps"].get(a)) for a in aps]
            + [_cell(r["metrics"].get(k)) for k in keys[split:]]
        )
        cells.append(f"{r['train_seconds']['mean']:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def to_json(plan: Plan, runs: list[Run], rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"plan": asdict(plan), "runs": [asdict(r) for r in runs], "summary": rows}
