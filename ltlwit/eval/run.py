"""`ltlwit eval` as a function: a registered model (or any predictor) against a data file."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Callable

from ltlwit.eval.alpha import AlphaCovariance, alpha_covariance
from ltlwit.eval.metrics import Accuracy, evaluate, load_samples
from ltlwit.eval.predictor import NeuralPredictor, Predictor

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class EvalOptions:
    model: str
    data: str
    beam: int = 3
    top: int | None = None  # None: the beam size
    limit: int | None = None  # evaluate the first LIMIT samples only
    alpha_samples: int = 1000  # formulas for alpha-covariance (a seeded random subset of those
    # that have alpha-equivalent copies); 0: skip
    alpha_variants: int = 24  # at most this many alpha-equivalent inputs a formula (all if fewer)
    alpha_pool: int = 0  # AP slots the variants may use; 0: permutations of the formula's own
    # The papers' alpha-covariance (ITE paper, Sec. 5.2.2, Tables 2-3): renamings into the whole
    # AP pool, every one of them up to `paper_alpha_variants` (5 APs: 5!/(5-k)! <= 120), else that
    # many random ones (the 10-AP grid: 120), on a seeded random subset of formulas with an AP.
    paper_alpha_samples: int = 200  # 0: skip (the papers use 1000; a CPU takes long)
    paper_alpha_pool: int = 0  # 0: the data's largest AP count (5 for ltl35/prop35, 10 for the grids)
    paper_alpha_variants: int = 120
    size_bucket: int = 5
    batch_size: int = 128
    device: str = "auto"
    seed: int = 0
    max_len: int = 160  # longest output, in tokens
    validators: tuple[str, ...] = ("builtin",)  # who must confirm a candidate (`eval --validator`)

    def __post_init__(self) -> None:
        if self.beam < 1 or (self.top is not None and not 1 <= self.top <= self.beam):
            raise ValueError(f"need beam >= 1 and 1 <= top <= beam (got beam {self.beam}, top {self.top})")
        if self.alpha_samples < 0 or self.alpha_variants < 2 or self.size_bucket < 1:
            raise ValueError("alpha samples must be >= 0, alpha variants >= 2, size bucket >= 1")
        if self.paper_alpha_samples < 0 or self.paper_alpha_variants < 2 or self.paper_alpha_pool < 0:
            raise ValueError("paper alpha samples and pool must be >= 0, paper alpha variants >= 2")


@dataclass
class EvalResult:
    accuracy: Accuracy
    alpha: AlphaCovariance | None
    meta: dict[str, Any]
    paper_alpha: AlphaCovariance | None = None  # the papers' way: renamings into the whole AP pool


def run_eval(options: EvalOptions, predictor: Predictor | None = None, task: str | None = None,
             progress: Progress | None = None) -> EvalResult:
    """Load the model (unless a predictor and task are given), evaluate, measure alpha-covariance."""
    meta: dict[str, Any] = {"model": options.model, "data": options.data, "beam": options.beam}
    if predictor is None:
        from ltlwit.neural import registry
        info = registry.resolve(options.model)
        model, manifest = registry.load(options.model, device="cpu")
        task = manifest["task"]
        predictor = NeuralPredictor(model, beam=options.beam, n_best=options.top or options.beam,
                                    batch_size=options.batch_size, device=options.device, max_len=options.max_len)
        meta.update(arch=manifest.get("arch"), model_source=info.source, parameters=manifest.get("parameters"))
    if task is None:
        raise ValueError("a predictor needs its task")
    samples = load_samples(options.data, task, options.limit)
    if not samples:
        raise ValueError(f"{options.data}: no samples")
    top = options.top or options.beam
    step = (lambda phase: (lambda done, total: progress(phase, done, total))) if progress else (lambda _: None)
    accuracy = evaluate(samples, predictor, task, top=top, size_bucket=options.size_bucket,
                        batch=max(options.batch_size, 1), progress=step("accuracy"),
                        validators=options.validators)
    alpha = None
    if options.alpha_samples:
        # formulas with alpha-equivalent copies (two APs or more, or one into a pool of slots)
        eligible = [s.formula for s in samples if math.perm(max(options.alpha_pool, len(s.formula.aps())),
                                                            len(s.formula.aps())) >= 2]
        chosen = eligible if len(eligible) <= options.alpha_samples else \
            random.Random(options.seed).sample(eligible, options.alpha_samples)
        alpha = alpha_covariance(chosen, predictor, pool=options.alpha_pool,
                                 max_variants=options.alpha_variants, seed=options.seed,
                                 batch=max(options.batch_size, 1), progress=step("alpha-covariance"))
    paper_alpha = None
    if options.paper_alpha_samples:
        pool = options.paper_alpha_pool or max(len(s.formula.aps()) for s in samples)
        eligible = [s.formula for s in samples if s.formula.aps()]
        chosen = eligible if len(eligible) <= options.paper_alpha_samples else \
            random.Random(options.seed).sample(eligible, options.paper_alpha_samples)
        if pool >= 2 and chosen:
            paper_alpha = alpha_covariance(chosen, predictor, pool=pool, max_variants=options.paper_alpha_variants,
                                           seed=options.seed, batch=max(options.batch_size, 1),
                                           progress=step("alpha-covariance, whole AP pool"))
    meta.update(task=task, top=top)
    return EvalResult(accuracy, alpha, meta, paper_alpha)
