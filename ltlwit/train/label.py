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
reference data sets) and labels it, in units of `UNIT` slots, results are taken back *in
order*, duplicates dropped (also formulas of `exclude` files: the validation and test splits),
and the new samples appended to the file at the end of the round. Each round's random stream is
seeded by (seed, samples so far, attempt), so re-running on the same output file resumes it: the
samples there count towards `count` and are never repeated.

The output depends on the seed alone, not on `jobs`: rounds and units are cut the same way
for any number of workers, and every unit starts with the engine's caches cleared, so a
formula's label (which of several witnesses the engine returns) cannot depend on which worker
solved what before. The one exception is the time budget: a formula near `seconds` may be
labelled in one run and skipped in another on a loaded machine.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import signal
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula, Not
from ltlwit.logic.result import Sat
from ltlwit.logic.trace import Trace
from ltlwit.train.generate import (
    DEFAULT_ALPHA,
    DEFAULT_ALPHABET,
    DEFAULT_UNIFORM_FROM,
    MAX_NORMAL_SIZE,
    RandomFormulas,
    SizeGate,
)
from ltlwit.train.pairs import append_pairs, iter_pairs, recover_pairs

TASKS = ("ltl", "prop")
#: Rounds accepting nothing in a row before giving up (the gate cannot be filled further).
MAX_IDLE_ROUNDS = 20
#: Formulas drawn per round at most: the work between two appends to the file (and the one
#: point where the workers wait for each other).
ROUND = 8192
#: Formulas a worker labels in one go, the engine's caches cleared first.
UNIT = 64


def label(task: str, formula: Formula, seconds: float | None = None) -> str | None:
    """The sample's label in DeepLTL's Polish layout, or None when it makes no sample."""
    from ltlwit.logic.syntax import print_assignment, print_trace

    if task == "ltl":
        from ltlwit.logic.ltl import Budget, solve

        result = solve(formula, Budget(seconds=seconds) if seconds else None)
        if not isinstance(result, Sat) or not isinstance(result.witness, Trace):
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
        assert isinstance(result.witness, Assignment)  # (the SAT solver's)
        return print_assignment(result.witness, "polish")
    raise ValueError(f"unknown task {task!r} (expected ltl or prop)")


_GENERATORS: dict[tuple[int, str], RandomFormulas] = {}


def _make_unit(args: tuple[str, int, str, float | None, list[tuple[int, int]]]) -> list[tuple[str, str | None]]:
    """Pool worker: draw the formulas of a unit of (size, seed) slots and label them, from cold
    engine caches (so the labels do not depend on the worker's history). Drawing happens here,
    not in the main process, so that both scale with the workers."""
    from ltlwit.logic.syntax import print_formula

    task, n_aps, alphabet, seconds, slots = args
    gen = _GENERATORS.get((n_aps, alphabet))
    if gen is None:
        gen = _GENERATORS[n_aps, alphabet] = RandomFormulas(n_aps, alphabet)
    if task == "ltl":
        from ltlwit.logic.ltl import clear_caches

        clear_caches()
    out: list[tuple[str, str | None]] = []
    for size, seed in slots:
        formula = gen.normal_formula(size, random.Random(seed))
        out.append(("", None) if formula is None else (print_formula(formula, "polish"), label(task, formula, seconds)))
    return out


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
    exclude: tuple[str, ...] = ()  # files whose formulas are never generated (validation, test splits)
    size_shares: dict[int, float] | None = None  # target size distribution (e.g. a reference set's)

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r} (expected ltl or prop)")
        if not 0 <= self.n_aps <= 26:
            raise ValueError("--aps must be in 0..26 (the two-line format spells APs with one letter)")
        if self.max_size < 1 or self.count < 0 or self.jobs < 1:
            raise ValueError("max size and jobs must be positive, count non-negative")
        if self.max_size > MAX_NORMAL_SIZE:
            raise ValueError(f"--max-size: at most {MAX_NORMAL_SIZE}")
        alphabet = self.alphabet or DEFAULT_ALPHABET[self.task]
        if self.task == "prop" and not alphabet.startswith("prop"):
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
    duplicates: int  # formulas already in the file (or drawn twice, or in an excluded file)
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
        units = [
            (c.task, c.n_aps, c.alphabet or "", c.seconds, slots[i : i + UNIT]) for i in range(0, len(slots), UNIT)
        ]
        results = map(_make_unit, units) if self.pool is None else self.pool.imap(_make_unit, units)
        return (sample for unit in results for sample in unit)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()


def generate_dataset(
    path: str | os.PathLike, config: GenerateConfig, progress: Callable[[Progress], None] | None = None
) -> GenerateReport:
    """Fill `path` (two-line format, `.gz` compressed) up to `config.count` samples.

    Two rounds are in flight at a time, so that the workers label the next round while this
    process takes in, writes and replaces the last: a round is drawn right after the results
    of the one before the last are in, counting the last one's slots as pending. So every draw
    depends on finished rounds and on the slots in flight alone, never on timing or `jobs`.
    """
    path = Path(path)
    started = time.perf_counter()
    path.parent.mkdir(parents=True, exist_ok=True)  # `-o mydata/train.txt.gz`: the folder `train --data` reads
    existing = recover_pairs(path)
    seen = {f for f, _ in existing}
    for other in config.exclude:
        seen.update(f for f, _ in iter_pairs(other))
    gate = SizeGate(config.max_size, config.count, config.uniform_from or 1, config.alpha, shares=config.size_shares)
    for f, _ in existing:
        size = _size_of(f)
        if size <= config.max_size:
            gate.accept(size)
    gen = RandomFormulas(config.n_aps, config.alphabet or "ltl35")
    gate.close(s for s in range(1, config.max_size + 1) if not gen.feasible(s))
    report = GenerateReport(path, len(existing), 0, 0, 0, 0, 0.0, False)
    total, attempt, idle = len(existing), 0, 0
    workers = _Workers(config)
    flight: deque[tuple[list[tuple[int, int]], Iterator[tuple[str, str | None]]]] = deque()
    try:
        while total < config.count and not gate.full() and idle < MAX_IDLE_ROUNDS:
            while len(flight) < 2:  # draw (and start) rounds until two are in flight
                pending = Counter(size for slots, _ in flight for size, _ in slots)
                n = _round_size(config, total) - sum(pending.values())
                if n < 16 and flight:
                    break  # the round in flight may well suffice
                rng = random.Random(f"{config.seed}/{config.task}/{total}/{attempt}/{len(flight)}")
                slots = _draw_round(gate, rng, max(n, 16), pending)
                if not slots:
                    break
                flight.append((slots, workers(slots)))
            if not flight:
                break
            slots, results = flight.popleft()
            out: list[tuple[str, str]] = []
            for (size, _), (text, lab) in zip(slots, results):
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
                progress(Progress(total, config.count, report.labelled, report.added, time.perf_counter() - started))
    finally:
        workers.close()
    report.seconds = time.perf_counter() - started
    report.complete = total >= config.count
    return report


def _round_size(config: GenerateConfig, total: int) -> int:
    """Not many more formulas than still needed; independent of `jobs`, so that the output is."""
    return max(16, min(ROUND, math.ceil(1.5 * (config.count - total))))


def _draw_round(gate: SizeGate, rng: random.Random, n: int, pending: Counter | None = None) -> list[tuple[int, int]]:
    """(size, seed) slots under the gate, those in flight (`pending`, and this round's) counted
    against their size's cap."""
    slots: list[tuple[int, int]] = []
    pending = Counter(pending or {})
    sizes = gate.open_sizes(pending)  # within a round only `pending` changes: a size leaves when full
    while len(slots) < n and sizes:
        size = rng.choice(sizes)
        pending[size] += 1
        slots.append((size, rng.getrandbits(64)))
        if not gate.is_open(size, pending):
            sizes.remove(size)
    return slots
