"""Labelled data sets made by ltlwit itself: random formulas, witnesses from its own engine.

`label(task, formula, seconds)` is one sample's label or None:
- `ltl`: `ltlwit.logic.ltl.solve` within a time budget; satisfiable formulas only (the witness
  is a verified lasso trace), traces with a `0` anywhere dropped as in the reference data.
- `prop`: `ltlwit.logic.prop.solve_prop`'s subset-minimal partial assignment; unsatisfiable
  formulas and tautologies dropped, as PropRandom35 does.

`generate_dataset` runs rounds until the output holds `count` samples: the main process picks a
round of (size, seed) slots under the size gate (counting those in flight, so a nearly full size
is not over-drawn), a process pool draws each slot's formula (`RandomFormulas.normal_formula`:
no formula that Spot's trivial identities would rewrite, as in randltl's output and the
reference data sets) and labels it, results are taken
back *in order*, duplicates dropped, and the new samples appended to the file at the end of
the round. Each round's random stream is seeded by (seed, samples so far, attempt), so the
formulas of a run are reproducible from its seed whatever `jobs` is, and re-running on the same
output file resumes it: the samples there count towards `count` and are never repeated. The
labels are the engine's verified witnesses; which of several witnesses it returns can depend on
what the process solved before, so labels may differ between runs with other `jobs`.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ltlwit.logic.formula import Formula, Not
from ltlwit.logic.result import Sat
from ltlwit.train.generate import (DEFAULT_ALPHA, DEFAULT_ALPHABET, DEFAULT_UNIFORM_FROM, MAX_NORMAL_SIZE,
                                   RandomFormulas, SizeGate)
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


_GENERATORS: dict[tuple[int, str], RandomFormulas] = {}


def _make_sample(args: tuple[str, int, str, int, int, float | None]) -> tuple[str, str | None]:
    """Pool worker: draw the formula of one (size, seed) slot and label it. Drawing happens
    here, not in the main process, so that both scale with the workers."""
    from ltlwit.logic.syntax import print_formula

    task, n_aps, alphabet, size, seed, seconds = args
    gen = _GENERATORS.get((n_aps, alphabet))
    if gen is None:
        gen = _GENERATORS[n_aps, alphabet] = RandomFormulas(n_aps, alphabet)
    formula = gen.normal_formula(size, random.Random(seed))
    if formula is None:
        return "", None
    return print_formula(formula, "polish"), label(task, formula, seconds)


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
        if self.max_size > MAX_NORMAL_SIZE:
            raise ValueError(f"--max-size: at most {MAX_NORMAL_SIZE}")
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
    labelled: int  # formulas drawn and labelled
    rejected: int  # unsat, tautologies, timeouts, `0` traces
    duplicates: int  # formulas already in the file
    seconds: float
    complete: bool  # the file holds `count` samples
    sizes: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return self.existing + self.added


def _size_of(text: str) -> int:
    from ltlwit.logic.syntax import parse_formula

    return parse_formula(text, "polish").size


def _quiet_worker() -> None:
    """Ctrl-C is the main process's business (it stops the pool); workers stay silent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Workers:
    """Makes samples for a list of (size, seed) slots, in order; a process pool when jobs > 1."""

    def __init__(self, config: GenerateConfig) -> None:
        self.config = config
        self.pool = multiprocessing.get_context().Pool(config.jobs, _quiet_worker) if config.jobs > 1 else None

    def __call__(self, slots: list[tuple[int, int]]) -> Iterator[tuple[str, str | None]]:
        c = self.config
        args = [(c.task, c.n_aps, c.alphabet or "", size, seed, c.seconds) for size, seed in slots]
        if self.pool is None:
            return map(_make_sample, args)
        return self.pool.imap(_make_sample, args, chunksize=max(1, min(32, len(args) // (4 * c.jobs))))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


def generate_dataset(path: str | os.PathLike, config: GenerateConfig,
                     progress: Callable[[Progress], None] | None = None) -> GenerateReport:
    """Fill `path` (two-line format, `.gz` compressed) up to `config.count` samples."""
    path = Path(path)
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)  # `-o mydata/train.txt.gz`: the folder `train --data` reads
    existing = recover_pairs(path)
    seen = {f for f, _ in existing}
    gate = SizeGate(config.max_size, config.count, config.uniform_from or 1, config.alpha)
    for f, _ in existing:
        size = _size_of(f)
        if size <= config.max_size:
            gate.accept(size)
    gen = RandomFormulas(config.n_aps, config.alphabet or "ltl35")
    gate.closed.update(s for s in range(1, config.max_size + 1) if not gen.feasible(s))
    report = GenerateReport(path, len(existing), 0, 0, 0, 0, 0.0, False)
    total, attempt, idle = len(existing), 0, 0
    workers = _Workers(config)
    try:
        while total < config.count and not gate.full() and idle < MAX_IDLE_ROUNDS:
            rng = random.Random(f"{config.seed}/{config.task}/{total}/{attempt}")
            slots = _draw_round(gate, rng, _round_size(config, total))
            if not slots:
                break
            out: list[tuple[str, str]] = []
            for (size, _), (text, lab) in zip(slots, workers(slots)):
                report.labelled += 1
                if lab is None:
                    report.rejected += 1
                    gate.fail(size)
                elif text in seen:
                    report.duplicates += 1
                    gate.fail(size)
                elif gate.has_room(size) and total + len(out) < config.count:
                    gate.accept(size)
                    seen.add(text)
                    out.append((text, lab))
                    report.sizes[size] += 1
            append_pairs(path, out)
            total += len(out)
            report.added += len(out)
            attempt, idle = (0, 0) if out else (attempt + 1, idle + 1)
            if progress is not None:
                progress(Progress(total, config.count, report.labelled, report.added,
                                  time.perf_counter() - started))
    finally:
        workers.close()
    report.seconds = time.perf_counter() - started
    report.complete = total >= config.count
    return report


def _round_size(config: GenerateConfig, total: int) -> int:
    """Not many more formulas than still needed; independent of `jobs`, so that the output is."""
    return max(16, min(ROUND, math.ceil(1.5 * (config.count - total))))


def _draw_round(gate: SizeGate, rng: random.Random, n: int) -> list[tuple[int, int]]:
    """(size, seed) slots under the gate, those in flight counted against their size's cap."""
    slots: list[tuple[int, int]] = []
    pending: Counter = Counter()
    while len(slots) < n:
        sizes = gate.open_sizes(pending)
        if not sizes:
            break
        size = rng.choice(sizes)
        pending[size] += 1
        slots.append((size, rng.getrandbits(64)))
    return slots
