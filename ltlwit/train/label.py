"""Labelled data sets made by ltlwit itself: random formulas, witnesses from its own engine.

`label(task, formula, seconds)` is one sample's label or None:
- `ltl`: `ltlwit.logic.ltl.solve` within a time budget; satisfiable formulas only (the witness
  is a verified lasso trace), traces with a `0` anywhere dropped as in the reference data.
- `prop`: `ltlwit.logic.prop.solve_prop`'s subset-minimal partial assignment; unsatisfiable
  formulas and tautologies dropped, as PropRandom35 does.

`generate_dataset` runs rounds until the output holds `count` samples: the main process draws a
round of distinct formulas under the size gate (counting those in flight, so a nearly full
size is not over-drawn), a process pool labels them, results are taken back *in order* and
appended to the file at the end of the round. Each round's random stream is seeded by (seed,
samples so far, attempt), so a run is reproducible from its seed, and re-running on the same
output file resumes it: the samples there count towards `count` and are never repeated.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ltlwit.logic.formula import Formula, Not
from ltlwit.logic.result import Sat
from ltlwit.train.generate import (DEFAULT_ALPHA, DEFAULT_ALPHABET, DEFAULT_UNIFORM_FROM, RandomFormulas,
                                   SizeGate)
from ltlwit.train.pairs import append_pairs, recover_pairs

TASKS = ("ltl", "prop")
#: Rounds accepting nothing in a row before giving up (the gate cannot be filled further).
MAX_IDLE_ROUNDS = 20
#: Formulas drawn per round at most: the unit of work between two appends to the file.
ROUND = 512


def label(task: str, formula: Formula, seconds: float | None = None) -> str | None:
    """The sample's label in DeepLTL's Polish layout, or None when it makes no sample."""
    from ltlwit.logic.syntax import print_assignment, print_trace

    if task == "ltl":
        from ltlwit.logic.ltl import Budget, solve

        result = solve(formula, Budget(seconds=seconds) if seconds else None)
        if not isinstance(result, Sat):
            return None
        trace = result.witness
        if any(node.op == "0" for step in trace.steps for node in step.walk()):
            return None
        return print_trace(trace, "polish")
    if task == "prop":
        from ltlwit.logic.prop import solve_prop

        result = solve_prop(formula)
        if not isinstance(result, Sat) or not isinstance(solve_prop(Not(formula)), Sat):
            return None  # unsatisfiable, or a tautology (its negation is unsatisfiable)
        return print_assignment(result.witness, "polish")
    raise ValueError(f"unknown task {task!r} (expected ltl or prop)")


def _label_text(args: tuple[str, str, float | None]) -> str | None:
    """Pool worker: parse the Polish formula and label it."""
    from ltlwit.logic.syntax import parse_formula

    task, text, seconds = args
    return label(task, parse_formula(text, "polish"), seconds)


@dataclass
class GenerateConfig:
    task: str
    n_aps: int
    max_size: int
    count: int
    seed: int = 0
    alphabet: str | None = None  # generate.PRIORITIES key; None: the task's default
    uniform_from: int | None = None  # None: the task's default (10 LTL, 12 prop)
    alpha: float = DEFAULT_ALPHA
    seconds: float | None = 2.0  # engine budget per LTL formula (DeepLTL skipped formulas over 2 s)
    jobs: int = 1

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r} (expected ltl or prop)")
        if not 1 <= self.n_aps <= 26:
            raise ValueError("--aps must be in 1..26 (the two-line format spells APs with one letter)")
        if self.max_size < 1 or self.count < 0 or self.jobs < 1:
            raise ValueError("max size and jobs must be positive, count non-negative")
        alphabet = self.alphabet or DEFAULT_ALPHABET[self.task]
        if self.task == "prop" and alphabet != "prop":
            raise ValueError("the prop task needs the propositional alphabet")
        self.alphabet = alphabet
        if self.uniform_from is None:
            self.uniform_from = DEFAULT_UNIFORM_FROM[self.task]


@dataclass
class Progress:
    """What a progress display needs after each round."""

    total: int  # samples in the file
    target: int
    labelled: int  # formulas labelled in this run
    accepted: int  # samples added in this run
    elapsed: float


@dataclass
class GenerateReport:
    path: Path
    existing: int  # samples already in the file when the run started
    added: int
    labelled: int  # formulas sent to the labeller
    rejected: int  # unsat, tautologies, timeouts, `0` traces
    seconds: float
    complete: bool  # the file holds `count` samples
    sizes: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return self.existing + self.added


def _size_of(text: str) -> int:
    from ltlwit.logic.syntax import parse_formula

    return parse_formula(text, "polish").size


class _Labeller:
    """Labels a list of formula texts in order, in a process pool when jobs > 1."""

    def __init__(self, task: str, seconds: float | None, jobs: int) -> None:
        self.task, self.seconds, self.jobs = task, seconds, jobs
        self.pool = multiprocessing.get_context().Pool(jobs) if jobs > 1 else None

    def __call__(self, texts: list[str]) -> Iterator[str | None]:
        args = [(self.task, t, self.seconds) for t in texts]
        if self.pool is None:
            return map(_label_text, args)
        return self.pool.imap(_label_text, args, chunksize=max(1, min(16, len(args) // (4 * self.jobs))))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


def generate_dataset(path: str | os.PathLike, config: GenerateConfig,
                     progress: Callable[[Progress], None] | None = None) -> GenerateReport:
    """Fill `path` (two-line format, `.gz` compressed) up to `config.count` samples."""
    path = Path(path)
    started = time.perf_counter()
    existing = recover_pairs(path)
    seen = {f for f, _ in existing}
    gate = SizeGate(config.max_size, config.count, config.uniform_from or 1, config.alpha)
    for f, _ in existing:
        size = _size_of(f)
        if size <= config.max_size:
            gate.accept(size)
    gen = RandomFormulas(config.n_aps, config.alphabet or "ltl35")
    gate.closed.update(s for s in range(1, config.max_size + 1) if not gen.feasible(s))
    report = GenerateReport(path, len(existing), 0, 0, 0, 0.0, False)
    rejected: set[str] = set()
    total, attempt, idle = len(existing), 0, 0
    labeller = _Labeller(config.task, config.seconds, config.jobs)
    try:
        while total < config.count and not gate.full() and idle < MAX_IDLE_ROUNDS:
            rng = random.Random(f"{config.seed}/{config.task}/{total}/{attempt}")
            batch = _draw_round(gen, gate, rng, seen | rejected, _round_size(config, total))
            if not batch:
                break
            out: list[tuple[str, str]] = []
            for (text, size), lab in zip(batch, labeller([t for t, _ in batch])):
                report.labelled += 1
                if lab is not None and gate.has_room(size) and total + len(out) < config.count:
                    gate.accept(size)
                    seen.add(text)
                    out.append((text, lab))
                    report.sizes[size] += 1
                elif lab is None:
                    report.rejected += 1
                    rejected.add(text)
                    gate.fail(size)
            append_pairs(path, out)
            total += len(out)
            report.added += len(out)
            attempt, idle = (0, 0) if out else (attempt + 1, idle + 1)
            if progress is not None:
                progress(Progress(total, config.count, report.labelled, report.added,
                                  time.perf_counter() - started))
    finally:
        labeller.close()
    report.seconds = time.perf_counter() - started
    report.complete = total >= config.count
    return report


def _round_size(config: GenerateConfig, total: int) -> int:
    """Not many more formulas than still needed; independent of `jobs`, so that the output is."""
    return max(16, min(ROUND, math.ceil(1.5 * (config.count - total))))


def _draw_round(gen: RandomFormulas, gate: SizeGate, rng: random.Random, known: set[str],
                size: int) -> list[tuple[str, int]]:
    """Distinct new formulas (Polish text, size) under the gate, in-flight ones counted."""
    from ltlwit.logic.syntax import print_formula

    batch: list[tuple[str, int]] = []
    drawn: set[str] = set()
    pending: Counter = Counter()
    while len(batch) < size:
        sizes = gate.open_sizes(pending)
        if not sizes:
            break
        n = rng.choice(sizes)
        text = print_formula(gen.formula(n, rng), "polish")
        if text in known or text in drawn:
            gate.fail(n)
            continue
        drawn.add(text)
        pending[n] += 1
        batch.append((text, n))
    return batch
