"""Accuracy of a predictor on a labelled data set, overall and as an (AP count x size) grid.

Each formula is renamed canonically (APs by first appearance, as `ltlwit solve` does before it
asks a model) and the predictor's candidates are judged in that slot space:
- correct: the best candidate is a witness (`ltlwit.logic.witness.is_witness`, the seam `solve`
  and `verify` use: LTL, every word of the lasso satisfies the formula; propositional, the
  assignment entails it);
- top-N: one of the first N candidates is a witness (what the solve pipeline gets: it takes the
  first candidate that verifies);
- exact: the best candidate is the data set's label, renamed the same way (only over samples
  with a label: grid rows past Spot's time limit have none);
- invalid: no candidate, or a best candidate that is not a well-formed witness.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ltlwit.eval.predictor import Predictor
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Invalid, Prediction, Witness, is_witness


@dataclass(frozen=True)
class Sample:
    formula: Formula
    label: Witness | None
    line: int = 0


def load_samples(path: str | os.PathLike, task: str, limit: int | None = None) -> list[Sample]:
    """Parsed samples of a two-line file or a JSON Lines grid; a bad line is a ValueError
    naming file and line."""
    from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace
    from ltlwit.train.pairs import other_task, read_samples

    if task not in ("ltl", "prop"):
        raise ValueError(f"unknown task {task!r} (expected ltl or prop)")
    out: list[Sample] = []
    for raw in read_samples(path):
        if limit is not None and len(out) >= limit:
            break
        try:
            formula = parse_formula(raw.formula, raw.formula_syntax)
            label: Witness | None = None
            if raw.label is not None:
                label = (
                    parse_trace(raw.label, raw.label_syntax)
                    if task == "ltl"
                    else parse_assignment(raw.label, raw.label_syntax)
                )
        except ValueError as e:
            what = other_task(raw, task)
            raise (
                TaskMismatch(f"{path}:{raw.line}", what, task) if what else ValueError(f"{path}:{raw.line}: {e}")
            ) from None
        if task == "prop" and formula.temporal:
            raise TaskMismatch(f"{path}:{raw.line}", "an LTL formula", task)
        out.append(Sample(formula, label, raw.line))
    return out


class TaskMismatch(ValueError):
    """The data are of the other task (an LTL set read for a propositional model, or the
    reverse): said as such rather than as the syntax error it first shows up as."""

    def __init__(self, where: str, what: str, task: str) -> None:
        self.where, self.what, self.task = where, what, task
        from ltlwit.train.pairs import TASK_FORMULAS

        super().__init__(f"{where}: {what}, in data read for {TASK_FORMULAS[task]}")


@dataclass
class Judgement:
    """One sample's verdicts."""

    n_aps: int
    size: int
    correct: bool
    top_n: bool
    exact: bool | None  # None: no label to compare with
    invalid: bool
    rank: int | None  # 1-based rank of the first verified candidate, None if none
    verified: tuple[bool, ...] = ()  # each of the first `top` candidates' verdict (`eval --predictions`)


def judge(
    sample: Sample,
    renaming: Renaming,
    canonical: Formula,
    candidates: Sequence[Prediction],
    top: int,
    validators: Sequence[str] = ("builtin",),
) -> Judgement:
    ranked = list(candidates[:top])
    verified = tuple(_confirmed(canonical, c, validators) for c in ranked)
    rank = verified.index(True) + 1 if True in verified else None
    best = ranked[0] if ranked else None
    exact: bool | None = None
    if sample.label is not None:
        try:
            label = (
                renaming.apply_trace(sample.label)
                if isinstance(sample.label, Trace)
                else renaming.apply_assignment(sample.label)
            )
            exact = best == label
        except ValueError:  # the label names an AP the formula lacks
            exact = False
    return Judgement(
        len(canonical.aps()),
        canonical.size,
        rank == 1,
        rank is not None,
        exact,
        best is None or isinstance(best, Invalid),
        rank,
        verified,
    )


def _confirmed(formula: Formula, candidate: Prediction, validators: Sequence[str]) -> bool:
    """A witness by the builtin checker and by every other validator named (`eval --validator
    spot` counts a candidate correct as the papers did, when Spot confirms it)."""
    if not is_witness(formula, candidate):
        return False
    others = [name for name in validators if name != "builtin"]
    if not others:
        return True
    from ltlwit.logic.validators import judge as validate

    try:
        return all(v.valid for v in validate(others, formula, candidate).values())  # type: ignore[arg-type]  # a witness: is_witness passed it
    except ValueError:
        return False


SampleHook = Callable[[Sample, Renaming, Sequence[Prediction], Judgement], None]


@dataclass
class Cell:
    samples: int = 0
    correct: int = 0
    top_n: int = 0

    def add(self, o: Judgement) -> None:
        self.samples += 1
        self.correct += o.correct
        self.top_n += o.top_n


@dataclass
class Accuracy:
    task: str
    top: int
    size_bucket: int
    judgements: list[Judgement] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def samples(self) -> int:
        return len(self.judgements)

    def rate(self, attr: str) -> float:
        pool = [o for o in self.judgements if getattr(o, attr) is not None]
        return sum(bool(getattr(o, attr)) for o in pool) / len(pool) if pool else 0.0

    def bucket(self, size: int) -> tuple[int, int]:
        lo = (size - 1) // self.size_bucket * self.size_bucket + 1
        return lo, lo + self.size_bucket - 1

    def grid(self) -> dict[tuple[int, tuple[int, int]], Cell]:
        """(AP count, (size from, size to)) -> counts, sorted."""
        cells: dict[tuple[int, tuple[int, int]], Cell] = {}
        for o in self.judgements:
            cells.setdefault((o.n_aps, self.bucket(o.size)), Cell()).add(o)
        return dict(sorted(cells.items()))

    def summary(self) -> dict[str, Any]:
        labelled = sum(o.exact is not None for o in self.judgements)
        return {
            "task": self.task,
            "samples": self.samples,
            "correct": self.rate("correct"),
            f"top{self.top}": self.rate("top_n"),
            "exact": self.rate("exact"),
            "exact_over": labelled,
            "invalid": self.rate("invalid"),
            "seconds": round(self.seconds, 3),
            "per_second": round(self.samples / self.seconds, 2) if self.seconds else None,
        }


def evaluate(
    samples: Sequence[Sample],
    predictor: Predictor,
    task: str,
    top: int = 1,
    size_bucket: int = 5,
    batch: int = 256,
    progress: Callable[[int, int], None] | None = None,
    validators: Sequence[str] = ("builtin",),
    on_sample: SampleHook | None = None,
) -> Accuracy:
    """Run the predictor over every sample (canonically renamed, in batches) and judge it
    (a candidate is correct when every one of `validators` confirms it). `on_sample` sees each
    sample with its renaming, candidates and judgement as they come (`eval --predictions`)."""
    if top < 1 or size_bucket < 1:
        raise ValueError("top and size_bucket must be positive")
    result = Accuracy(task, top, size_bucket)
    start = time.perf_counter()
    for lo in range(0, len(samples), batch):
        chunk = samples[lo : lo + batch]
        renamings = [Renaming.canonical(s.formula) for s in chunk]
        canonical = [r.apply(s.formula) for r, s in zip(renamings, chunk)]
        predictions = _checked(predictor(canonical), len(chunk))
        for s, r, x, cands in zip(chunk, renamings, canonical, predictions):
            verdict = judge(s, r, x, cands, top, validators)
            result.judgements.append(verdict)
            if on_sample is not None:
                on_sample(s, r, cands[:top], verdict)
        if progress is not None:
            progress(min(lo + batch, len(samples)), len(samples))
    result.seconds = time.perf_counter() - start
    return result


def _checked(predictions: Iterable[list[Prediction]], n: int) -> list[list[Prediction]]:
    out = list(predictions)
    if len(out) != n:
        raise ValueError(f"the predictor answered {len(out)} inputs for {n} formulas")
    return out
