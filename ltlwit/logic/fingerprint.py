"""A formula's semantic fingerprint: its truth values on a fixed set of concrete traces.

Equivalent formulas get equal fingerprints by construction (the checker decides each value on
full valuations, where it is exact), and formulas that differ on a trace of the set get
different ones, whatever their syntax: `G(a -> F b)` and `!F(a & G !b)` share theirs, `G F a`
and `F G a` do not. It needs no training, and it is the bar a learned embedding is measured
against (docs/models.md).

The traces are the same for every formula of a run and for every run (`seed`): trace k has a
shape (prefix and cycle lengths, or a finite length) and a bias (how often a proposition holds:
`G a` is true on a trace only where `a` holds at every instant, so some traces make nearly
everything true and some nearly nothing), and each proposition's value at each instant is drawn
from its name alone: adding a formula over new names leaves every other fingerprint as it was.
A fingerprint is an int of `size` bits (bit k: the formula holds on trace k), compared by the
cosine of its ±1 vector (`cosine`), and the traces double as witnesses: a bit that one formula
has and another lacks is a trace that tells them apart (`trace`).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Iterator

from ltlwit.logic.formula import And, Formula, Not, ap, rebuilt, transform
from ltlwit.logic.trace import Trace

#: How often a proposition holds on a trace, trace by trace in turn.
BIASES = (0.5, 0.85, 0.15, 0.7, 0.3, 0.95, 0.05)
#: Formulas a worker of `Fingerprints.many` takes at a time.
MANY_CHUNK = 64
#: The longest prefix, cycle and finite trace.
MAX_PREFIX, MAX_CYCLE, MAX_FINITE = 3, 4, 8


@dataclass(frozen=True)
class Fingerprints:
    """The fingerprints of formulas on `size` traces of `semantics` ("infinite": lassos,
    "finite": finite traces), drawn from `seed`. A formula over data gets its `skeleton`'s: its
    values are not drawn, so its fingerprint ranks but proves nothing."""

    semantics: str = "infinite"
    size: int = 256
    seed: int = 0
    _shapes: tuple[tuple[int, int, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.semantics not in ("infinite", "finite"):
            raise ValueError(f"unknown semantics {self.semantics!r}")
        if self.size < 1:
            raise ValueError("a fingerprint needs at least one trace")
        draw = random.Random(f"ltlwit-fingerprint-{self.seed}")
        shapes = []
        for k in range(self.size):
            if self.semantics == "finite":
                shape = (draw.randint(1, MAX_FINITE), 0)
            else:
                shape = (draw.randint(0, MAX_PREFIX), draw.randint(1, MAX_CYCLE))
            shapes.append((*shape, BIASES[k % len(BIASES)]))
        object.__setattr__(self, "_shapes", tuple(shapes))

    def of(self, formula: Formula) -> int:
        """The fingerprint of `formula`: bit k set where it holds on trace k. Each value by the
        checker's linear pass over full valuations (exact there), the formula prepared once."""
        from ltlwit.logic.ltl import check, finite

        if formula.data:
            formula = skeleton(formula)
        names = formula.aps()
        if self.semantics == "finite":
            alive = finite.alive_name(names)
            evaluator = check.cube_evaluator(finite.translate(formula, ap(alive)))
        else:
            alive = None
            evaluator = check.cube_evaluator(finite.strong(formula))
        drawn = [self._values(name) for name in names]
        bits = 0
        for k in range(self.size):
            first, cycle, _ = self._shapes[k]
            length = first + cycle
            values = [d[k] for d in drawn]
            cubes = [{name: v[i] for name, v in zip(names, values)} for i in range(length)]
            if alive is not None:  # the lasso a finite trace stands for: alive, then dead forever
                for cube in cubes:
                    cube[alive] = True
                cubes.append({**dict.fromkeys(names, False), alive: False})
            verdict = evaluator.run(cubes, first if alive is None else length)
            if verdict is None:  # (full valuations: the pass is exact)
                raise AssertionError(f"the checker left {formula} undecided on a full valuation")
            if verdict:
                bits |= 1 << k
        return bits

    def many(self, formulas: Iterable[Formula], jobs: int = 1) -> Iterator[int]:
        """The fingerprints of `formulas`, in order, from `jobs` processes: a library of a
        million formulas is hours of one core's checking. Read a batch at a time, so that a
        stream is never held whole."""
        if jobs <= 1:
            yield from map(self.of, formulas)
            return
        import sys
        import threading
        from concurrent.futures import ProcessPoolExecutor
        from multiprocessing import get_context

        # forked where that is safe (Linux, one Python thread: no lock held by another), else spawned
        fork = sys.platform.startswith("linux") and threading.active_count() == 1
        stream = iter(formulas)
        with ProcessPoolExecutor(jobs, mp_context=get_context("fork" if fork else "spawn")) as pool:
            while batch := list(itertools.islice(stream, jobs * MANY_CHUNK * 4)):
                yield from pool.map(self.of, batch, chunksize=MANY_CHUNK)

    def _values(self, name: str) -> list[tuple[bool, ...]]:
        """A proposition's values on each trace, drawn from its name alone."""
        return _drawn(self.seed, name, self._shapes)

    def trace(self, k: int, names: tuple[str, ...] | list[str]) -> Trace:
        """Trace k over `names` (each proposition's values drawn from its name, module
        docstring): a lasso, or a finite trace under finite semantics."""
        first, cycle, _ = self._shapes[k]
        length = first + cycle
        values = {name: self._values(name)[k] for name in names}
        steps = tuple(And(*(ap(n) if values[n][i] else Not(ap(n)) for n in names)) for i in range(length))
        return Trace(steps[:first], steps[first:]) if cycle else Trace(steps, ())


def skeleton(formula: Formula) -> Formula:
    """A formula over data with each atom a proposition named by its text (`x > 5` the
    proposition "x > 5"): the same atom in two formulas is the same proposition."""
    from ltlwit.logic.theory.printing import print_term

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.term is not None:  # an atom
            return ap(print_term(node.term))
        return rebuilt(node, kids)

    return transform(formula, rule, skip=lambda node: not node.data)


def cosine(a: int, b: int, size: int) -> float:
    """The cosine of two fingerprints' ±1 vectors: 1 for equal ones, -1 for complements."""
    return (size - 2 * (a ^ b).bit_count()) / size


def vector(bits: int, size: int) -> list[int]:
    """A fingerprint as its ±1 vector (what `ltlwit embed --fingerprint` prints)."""
    return [1 if bits >> k & 1 else -1 for k in range(size)]


@lru_cache(maxsize=4096)
def _drawn(seed: int, name: str, shapes: tuple[tuple[int, int, float], ...]) -> list[tuple[bool, ...]]:
    digest = hashlib.blake2b(f"{seed}\0{name}".encode(), digest_size=8).digest()
    draw = random.Random(int.from_bytes(digest, "big")).random
    return [tuple(draw() < bias for _ in range(first + cycle)) for first, cycle, bias in shapes]
