"""`ltlwit eval` as a function: a registered model (or any predictor) against a data file.

Alpha-covariance decodes many renamed copies of each formula (about 15 a formula over its own
APs, 84 into ltl35's 5-AP pool), so its default sample counts follow `--limit`: a quick look at
100 formulas should not decode 10,000 copies. Both measures are drawn before any decoding, so
the progress callback counts every input of the run against one total."""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

from ltlwit.eval.alpha import AlphaCovariance, AlphaPlan, measure_alpha, plan_alpha
from ltlwit.eval.metrics import Accuracy, Sample, SampleHook, TaskMismatch, evaluate, load_samples
from ltlwit.eval.predictor import NeuralPredictor, Predictor
from ltlwit.logic.formula import Formula
from ltlwit.train.pairs import TASK_FORMULAS

Progress = Callable[[str, int, int], None]

#: Formulas for each alpha-covariance measure: (without --limit, N divided by this with --limit N).
ALPHA_DEFAULTS = {"alpha_samples": (1000, 20), "paper_alpha_samples": (200, 50)}
#: Most renamings a formula the papers' way: (without --limit, with it).
PAPER_VARIANTS = (120, 24)


@dataclass(frozen=True)
class EvalOptions:
    model: str
    data: str
    beam: int = 3
    top: int | None = None  # None: the beam size
    limit: int | None = None  # evaluate the first LIMIT samples only
    # Formulas for alpha-covariance (a seeded random subset of those that have alpha-equivalent
    # copies); 0: skip; None: 1000, with a limit N: N // 20.
    alpha_samples: int | None = None
    alpha_variants: int = 24  # at most this many alpha-equivalent inputs a formula (all if fewer)
    alpha_pool: int = 0  # AP slots the variants may use; 0: permutations of the formula's own
    # The papers' alpha-covariance (ITE paper, Sec. 5.2.2, Tables 2-3): renamings into the whole
    # AP pool, every one of them up to `paper_alpha_variants` (5 APs: 5!/(5-k)! <= 120), else that
    # many random ones (the 10-AP grid: 120), on a seeded random subset of formulas with an AP.
    paper_alpha_samples: int | None = None  # 0: skip; None: 200 (the papers: 1000), with a limit N: N // 50
    paper_alpha_pool: int = 0  # 0: the data's largest AP count (5 for ltl35/prop35, 10 for the grids)
    paper_alpha_variants: int | None = None  # None: 120, with a limit: 24
    size_bucket: int = 5
    batch_size: int = 128
    device: str = "auto"
    #: CPU threads of this process's tensor operations from the model's loading on (`ltlwit eval`
    #: passes 1 unless told otherwise, as `solve` does); None leaves torch's setting alone (the
    #: experiment runner, whose process trains too)
    threads: int | None = None
    seed: int = 0
    max_len: int = 160  # longest output, in tokens
    validators: tuple[str, ...] = ("builtin",)  # who must confirm a candidate (`eval --validator`)

    def __post_init__(self) -> None:
        for name, (full, divisor) in ALPHA_DEFAULTS.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, full if self.limit is None else max(1, self.limit // divisor))
        if self.paper_alpha_variants is None:
            object.__setattr__(self, "paper_alpha_variants", PAPER_VARIANTS[self.limit is not None])
        if self.beam < 1 or (self.top is not None and not 1 <= self.top <= self.beam):
            raise ValueError(f"need beam >= 1 and 1 <= top <= beam (got beam {self.beam}, top {self.top})")
        samples, paper_samples, paper_variants = self.alpha_samples, self.paper_alpha_samples, self.paper_alpha_variants
        assert samples is not None and paper_samples is not None and paper_variants is not None  # (filled above)
        if samples < 0 or self.alpha_variants < 2 or self.size_bucket < 1:
            raise ValueError("alpha samples must be >= 0, alpha variants >= 2, size bucket >= 1")
        if paper_samples < 0 or paper_variants < 2 or self.paper_alpha_pool < 0:
            raise ValueError("paper alpha samples and pool must be >= 0, paper alpha variants >= 2")


@dataclass
class EvalResult:
    accuracy: Accuracy
    alpha: AlphaCovariance | None
    meta: dict[str, Any]
    paper_alpha: AlphaCovariance | None = None  # the papers' way: renamings into the whole AP pool


@dataclass(frozen=True)
class EvalPlan:
    """What a run will decode: the samples, then each alpha-covariance measure's copies."""

    samples: int
    alpha: AlphaPlan | None
    paper_alpha: AlphaPlan | None

    @property
    def inputs(self) -> int:
        return self.samples + sum(p.inputs for p in (self.alpha, self.paper_alpha) if p is not None)

    def describe(self) -> str:
        """One line for stderr before the work starts: how much of it there is."""
        parts = [f"{self.samples} formulas"]
        for plan, what in ((self.alpha, "alpha-covariance"), (self.paper_alpha, "alpha-covariance, papers' way")):
            if plan is not None and plan.jobs:
                parts.append(f"{what} on {len(plan.jobs)} ({plan.inputs} renamed copies)")
        return f"evaluating {', '.join(parts)}: {self.inputs} inputs to decode"


@dataclass
class Evaluation:
    """A run made ready: the model loaded, the samples read, both alpha-covariance measures
    drawn (`plan`), so that a caller can say how much work there is before it starts."""

    options: EvalOptions
    predictor: Predictor
    task: str
    samples: list[Sample]
    plan: EvalPlan
    meta: dict[str, Any]
    began: float

    def run(self, progress: Progress | None = None, on_sample: SampleHook | None = None) -> EvalResult:
        """Decode and judge. `progress(phase, done, total)` counts decoded inputs over the whole
        run; `on_sample` sees each sample judged (`evaluate`)."""
        options, plan = self.options, self.plan
        done = 0

        def step(phase: str) -> Callable[[int, int], None] | None:
            offset = done
            return (lambda finished, _: progress(phase, offset + finished, plan.inputs)) if progress else None

        top = options.top or options.beam
        batch = max(options.batch_size, 1)
        accuracy = evaluate(
            self.samples,
            self.predictor,
            self.task,
            top=top,
            size_bucket=options.size_bucket,
            batch=batch,
            progress=step("accuracy"),
            validators=options.validators,
            on_sample=on_sample,
        )
        done += len(self.samples)
        alpha = paper_alpha = None
        if plan.alpha is not None:
            alpha = measure_alpha(plan.alpha, self.predictor, batch, step("alpha-covariance"))
            done += plan.alpha.inputs
        if plan.paper_alpha is not None:
            paper_alpha = measure_alpha(
                plan.paper_alpha, self.predictor, batch, step("alpha-covariance, whole AP pool")
            )
        meta = {
            **self.meta,
            "task": self.task,
            "top": top,
            "limit": options.limit,
            "alpha_samples": options.alpha_samples,
            "paper_alpha_samples": options.paper_alpha_samples,
            "paper_alpha_variants": options.paper_alpha_variants,
            "wall_seconds": round(time.perf_counter() - self.began, 3),
        }
        return EvalResult(accuracy, alpha, meta, paper_alpha)


def prepare(options: EvalOptions, predictor: Predictor | None = None, task: str | None = None) -> Evaluation:
    """Load the model (unless a predictor and its task are given), read the samples, draw the
    alpha-covariance copies."""
    began = time.perf_counter()
    meta: dict[str, Any] = {"model": options.model, "data": options.data, "beam": options.beam}
    if predictor is None:
        from ltlwit.neural import registry
        from ltlwit.neural.config import ExpEmbConfig

        info = registry.resolve(options.model)
        model, manifest = registry.load(options.model, device="cpu", threads=options.threads)
        if isinstance(model.cfg, ExpEmbConfig):  # writes formulas, not witnesses
            raise ValueError(f"{options.model}: an embedding model ({model.cfg.arch}): bench/embeddings.py measures it")
        task = manifest["task"]
        predictor = NeuralPredictor(
            model,
            beam=options.beam,
            n_best=options.top or options.beam,
            batch_size=options.batch_size,
            device=options.device,
            max_len=options.max_len,
        )
        meta.update(arch=manifest.get("arch"), model_source=info.source, parameters=manifest.get("parameters"))
    if task is None:
        raise ValueError("a predictor needs its task")
    try:
        samples = load_samples(options.data, task, options.limit)
    except TaskMismatch as e:
        raise ValueError(
            f"{e.where}: {e.what}: model {options.model!r} was trained for {TASK_FORMULAS[e.task]}"
        ) from None
    if not samples:
        raise ValueError(f"{options.data}: no samples")
    plan = EvalPlan(len(samples), _alpha_plan(options, samples), _paper_alpha_plan(options, samples))
    return Evaluation(options, predictor, task, samples, plan, meta, began)


def run_eval(
    options: EvalOptions,
    predictor: Predictor | None = None,
    task: str | None = None,
    progress: Progress | None = None,
    on_sample: SampleHook | None = None,
) -> EvalResult:
    """`prepare`, then run."""
    return prepare(options, predictor, task).run(progress, on_sample)


def _subset(formulas: list[Formula], count: int, seed: int) -> list[Formula]:
    return formulas if len(formulas) <= count else random.Random(seed).sample(formulas, count)


def _alpha_plan(options: EvalOptions, samples: list[Sample]) -> AlphaPlan | None:
    """Formulas with alpha-equivalent copies (two APs or more, or one into a pool of slots)."""
    if not options.alpha_samples:
        return None
    eligible = [
        s.formula
        for s in samples
        if math.perm(max(options.alpha_pool, len(s.formula.aps())), len(s.formula.aps())) >= 2
    ]
    return plan_alpha(
        _subset(eligible, options.alpha_samples, options.seed), options.alpha_pool, options.alpha_variants, options.seed
    )


def _paper_alpha_plan(options: EvalOptions, samples: list[Sample]) -> AlphaPlan | None:
    if not options.paper_alpha_samples:
        return None
    pool = options.paper_alpha_pool or max(len(s.formula.aps()) for s in samples)
    chosen = _subset([s.formula for s in samples if s.formula.aps()], options.paper_alpha_samples, options.seed)
    if pool < 2 or not chosen:
        return None
    return plan_alpha(chosen, pool, options.paper_alpha_variants, options.seed)  # type: ignore[arg-type]  # set by __post_init__
