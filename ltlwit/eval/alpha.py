"""Alpha-covariance (Işık et al., ICML 2025, Section 5.2.2): does renaming the APs of an input
change the model's answer beyond the renaming?

For one formula x with k APs (renamed canonically to slots 0..k-1) the alpha-equivalent inputs
are α_i(x) for injective maps α_i of those k slots into a pool of V >= k slots (V = k: the k!
permutations; the paper's LTL setting, 5 AP tokens, is V = 5 and gives 5!/(5-k)! variants). P
holds the identity and either every such map (when there are at most `max_variants`) or
`max_variants - 1` distinct random non-identity ones. The model's best output ŷ_i for each α_i(x)
is mapped back with the *same* α_i (the reference code inverted random draws with
`itertools.permutations` order instead, a bug), giving U = {α_i⁻¹(ŷ_i)}, and

    alpha-covariance(x) = 1 - (|U| - 1) / (|P| - 1)

1 when every renamed copy gives the renamed answer, 0 when every copy gives a different one.
Reported as the mean per AP count; formulas with fewer than two variants (k < 2 with V = k) have
no alpha-covariance and are left out. `invariant` is the stricter share of formulas whose every
copy gives exactly the original's answer back. A copy with no output counts as the answer
"nothing"; a malformed output is compared by its tokens, renamed back the same way.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ltlwit.eval.predictor import Prediction, Predictor, invert
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming, slot_name


def variant_maps(k: int, pool: int, max_variants: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Slot images of slots 0..k-1, identity first: all injections into `pool` slots when there
    are at most `max_variants`, else the identity and distinct random ones."""
    pool = max(pool, k)
    total = math.perm(pool, k)
    identity = tuple(range(k))
    if total <= max_variants:
        return [identity] + [p for p in itertools.permutations(range(pool), k) if p != identity]
    chosen = {identity: None}
    while len(chosen) < max_variants:
        chosen.setdefault(tuple(rng.sample(range(pool), k)), None)
    return list(chosen)


def alpha_of(predictions: Sequence[Prediction | None]) -> float:
    """1 - (|U| - 1) / (|P| - 1) for predictions already mapped back (P = their number)."""
    if len(predictions) < 2:
        raise ValueError("alpha-covariance needs at least two alpha-equivalent inputs")
    return 1 - (len(set(predictions)) - 1) / (len(predictions) - 1)


@dataclass
class AlphaRow:
    n_aps: int
    samples: int = 0
    variants: int = 0  # alpha-equivalent inputs in all, identity included
    alpha_sum: float = 0.0
    invariant: int = 0

    @property
    def alpha(self) -> float:
        return self.alpha_sum / self.samples if self.samples else 0.0


@dataclass
class AlphaCovariance:
    pool: int
    max_variants: int
    rows: dict[int, AlphaRow] = field(default_factory=dict)
    seconds: float = 0.0  # decoding and scoring, wall clock

    @property
    def samples(self) -> int:
        return sum(r.samples for r in self.rows.values())

    @property
    def mean(self) -> float:
        return sum(r.alpha_sum for r in self.rows.values()) / self.samples if self.samples else 0.0

    @property
    def invariant(self) -> float:
        return sum(r.invariant for r in self.rows.values()) / self.samples if self.samples else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "samples": self.samples,
            "mean": self.mean,
            "invariant": self.invariant,
            "pool": self.pool,
            "max_variants": self.max_variants,
            "inputs": sum(r.variants for r in self.rows.values()),
            "seconds": round(self.seconds, 3),
            "by_aps": [
                {
                    "aps": r.n_aps,
                    "samples": r.samples,
                    "variants": r.variants,
                    "alpha": r.alpha,
                    "invariant": r.invariant / r.samples if r.samples else 0.0,
                }
                for r in sorted(self.rows.values(), key=lambda r: r.n_aps)
            ],
        }


def _best(candidates: list[Prediction]) -> Prediction | None:
    return candidates[0] if candidates else None


@dataclass
class AlphaPlan:
    """The renamed copies one alpha-covariance measure will decode, drawn before any decoding so
    that `ltlwit eval` can say up front (and count in its progress bar) how much work it is."""

    pool: int
    max_variants: int
    jobs: list[tuple[Formula, list[Renaming]]]  # canonical formula, its renamings (identity first)

    @property
    def inputs(self) -> int:
        return sum(len(renamings) for _, renamings in self.jobs)


def plan_alpha(formulas: Sequence[Formula], pool: int = 0, max_variants: int = 24, seed: int = 0) -> AlphaPlan:
    """Each formula (any AP names; renamed canonically first) with its alpha-equivalent
    renamings; formulas with fewer than two are left out. `pool`: AP slots the variants may use
    (0: the formula's own, i.e. permutations only)."""
    if max_variants < 2:
        raise ValueError("max_variants must be at least 2")
    rng = random.Random(seed)
    jobs: list[tuple[Formula, list[Renaming]]] = []
    for f in formulas:
        x = Renaming.canonical(f).apply(f)
        k = len(x.aps())
        if math.perm(max(pool, k), k) < 2:
            continue
        width = max(pool, k)
        jobs.append((x, [_renaming(image, width) for image in variant_maps(k, pool, max_variants, rng)]))
    return AlphaPlan(pool, max_variants, jobs)


def measure_alpha(
    plan: AlphaPlan, predictor: Predictor, batch: int = 256, progress: Callable[[int, int], None] | None = None
) -> AlphaCovariance:
    """Decode every copy of `plan` (in batches), map each best output back, score per AP count."""
    result = AlphaCovariance(plan.pool, plan.max_variants)
    jobs = plan.jobs
    flat = [(i, r) for i, (_, rs) in enumerate(jobs) for r in rs]
    answers: list[list[Prediction | None]] = [[] for _ in jobs]
    start = time.perf_counter()
    for lo in range(0, len(flat), batch):
        chunk = flat[lo : lo + batch]
        inputs = [r.apply(jobs[i][0]) for i, r in chunk]
        predicted = predictor(inputs)
        if len(predicted) != len(inputs):
            raise ValueError(f"the predictor answered {len(predicted)} inputs for {len(inputs)} formulas")
        for (i, r), cands in zip(chunk, predicted):
            best = _best(cands)
            answers[i].append(None if best is None else invert(r, best))
        if progress is not None:
            progress(min(lo + batch, len(flat)), len(flat))
    for (x, renamings), got in zip(jobs, answers):
        row = result.rows.setdefault(len(x.aps()), AlphaRow(len(x.aps())))
        row.samples += 1
        row.variants += len(renamings)
        row.alpha_sum += alpha_of(got)
        row.invariant += all(g == got[0] for g in got)
    result.seconds = time.perf_counter() - start
    return result


def alpha_covariance(
    formulas: Sequence[Formula],
    predictor: Predictor,
    pool: int = 0,
    max_variants: int = 24,
    seed: int = 0,
    batch: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> AlphaCovariance:
    """Alpha-covariance per AP count over `formulas`: `plan_alpha`, then `measure_alpha`."""
    return measure_alpha(plan_alpha(formulas, pool, max_variants, seed), predictor, batch, progress)


def _renaming(image: tuple[int, ...], width: int) -> Renaming:
    """Slot i -> slot image[i] for the formula's slots, extended to a bijection of the first
    `width` slots so that an output naming a free slot can be mapped back too."""
    taken = set(image)
    rest = iter(s for s in range(width) if s not in taken)
    full = list(image) + [next(rest) for _ in range(len(image), width)]
    return Renaming.permutation((slot_name(i), slot_name(j)) for i, j in enumerate(full))
