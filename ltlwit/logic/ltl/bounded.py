"""Bounded lasso search: the shortest lasso witnesses, one SAT call per length (BMC).

The explicit search (`explore`) proves unsatisfiability and finds witnesses by diving depth
first; on specifications whose runs must cycle through many states before every eventuality is
met (an arbiter granting each client in turn) that dive wanders. Bounded model checking asks
the SAT solver for the whole lasso instead, as BLACK does: steps 0..k, each a copy of the
X-normal-form encoding (`xnf`), where N(g) at step i requires E(g) at step i+1, and the last
step's N(g) requires E(g) at the loop step l. The run is then periodic, and it is accepting
when every Until-like u has a step in the loop that does not postpone it (P(u) false: its
transition-based acceptance mark). Such a model is a lasso witness; k grows by one per call on
the same incremental solver, so the first lasso found is a shortest one. It never proves
unsatisfiability: the caller falls back to the explicit search.
"""

from __future__ import annotations

from pysat.solvers import Solver

from ltlwit.logic.budget import Limit, OutOfTime
from ltlwit.logic.ltl.explore import letter_trace
from ltlwit.logic.ltl.xnf import SOLVER, Step, folded
from ltlwit.logic.trace import Trace

#: Lengths tried at most, and the most clauses the unrolling may hold (memory).
MAX_STEPS = 64
MAX_CLAUSES = 2_000_000
#: Work units (unit propagations) charged for adding one clause to the unrolling.
CLAUSE_WORK = 20


class Unroller:
    """Steps of one formula's encoding, copied into one solver (see the module docstring)."""

    def __init__(self, encoding: Step, limit: Limit, max_steps: int = MAX_STEPS,
                 solver: str = SOLVER) -> None:
        self.limit = limit
        self.max_steps = max_steps
        self.done = False
        self.clauses = 0
        self._pending: tuple[int, list[int]] | None = None
        self.initial = encoding.initial
        self.clauses_per_step = encoding.clauses
        self.aps = encoding.aps
        self.width = encoding.width
        self.links = encoding.links
        self.posts = encoding.posts
        self.solver = Solver(name=solver)
        self.top = 0
        self.offsets: list[int] = []  # where each step's copy of the variables starts
        self.interrupted = False

    def interrupt(self) -> None:
        self.interrupted = True
        self.solver.interrupt()

    # -- literals of step i ----------------------------------------------------------------
    @property
    def steps(self) -> int:
        return len(self.offsets)

    def lit(self, step: int, x: int | bool) -> int | bool:
        if isinstance(x, bool):
            return x
        return x + self.offsets[step] if x > 0 else x - self.offsets[step]

    def _fresh(self) -> int:
        self.top += 1
        return self.top

    def _clause(self, lits: list[int | bool]) -> None:
        clause = folded(lits)
        if clause is not None:
            self.solver.add_clause(clause)

    def add_step(self) -> None:
        """Step `self.steps`: the encoding's copy, and the link from the step before."""
        i = self.steps
        self.offsets.append(self.top)
        self.top += self.width
        for clause in self.clauses_per_step:
            self.solver.add_clause([self.lit(i, v) for v in clause])  # type: ignore[misc]
        self.clauses += len(self.clauses_per_step)
        if i:
            for n, e in self.links:
                self._clause([-self.lit(i - 1, n), self.lit(i, e)])  # type: ignore[operator]

    def _loop(self) -> tuple[int, list[int]]:
        """The constraints that close a lasso after the last step, under a fresh selector:
        it loops back to some step l, and every acceptance mark occurs from l on."""
        k = self.steps - 1
        act = self._fresh()
        loops = [self._fresh() for _ in range(k + 1)]
        self.solver.add_clause([-act] + loops)
        self.clauses += (k + 1) * (len(self.links) + 1 + 2 * len(self.posts)) + len(self.posts)
        for l, sel in enumerate(loops):
            for n, e in self.links:
                self._clause([-sel, -self.lit(k, n), self.lit(l, e)])  # type: ignore[operator]
        inside = []  # inside[j]: the loop starts at or before step j
        for j in range(k + 1):
            v = self._fresh()
            self.solver.add_clause([-v] + loops[: j + 1])
            inside.append(v)
        for p in self.posts:
            met = []
            for j in range(k + 1):
                v = self._fresh()
                self.solver.add_clause([-v, -self.lit(j, p)])  # type: ignore[operator]
                self.solver.add_clause([-v, inside[j]])
                met.append(v)
            self.solver.add_clause([-act] + met)
        return act, loops

    def advance(self, work: int) -> Trace | None:
        """Spend about `work` units on the next lengths: the lasso when one is found, None when
        paused (the same length resumes next time) or when `done`. A unit is one unit
        propagation of the SAT solver (3-5 million a second here, whatever the instance: a
        conflict's cost varies a hundredfold), and each clause the unrolling adds costs
        `CLAUSE_WORK` units."""
        while not self.done:
            if self._pending is None:
                if self.steps >= self.max_steps or self.clauses > MAX_CLAUSES:
                    self.done = True
                    return None
                before = self.clauses
                self.add_step()
                self._pending = self._loop()
                work -= CLAUSE_WORK * (self.clauses - before)
            act, loops = self._pending
            if any(x is False for x in self.initial):
                self.done = True
                return None
            if work <= 0:
                return None
            before = self.solver.accum_stats().get("propagations", 0)
            self.solver.prop_budget(work)
            result = None
            if not self.interrupted:
                result = self.solver.solve_limited(
                    assumptions=[self.lit(0, e) for e in self.initial if e is not True] + [act],
                    expect_interrupt=True)
            if result is None:
                if self.interrupted:  # the watchdog: a hard limit
                    self.limit.check_time()
                    raise OutOfTime("time budget exhausted")
                return None  # this round's work is spent
            work -= self.solver.accum_stats().get("propagations", 0) - before
            self.solver.add_clause([-act])
            self._pending = None
            if result:
                return self._lasso(loops)
        return None

    def _lasso(self, loops: list[int]) -> Trace:
        model = self.solver.get_model()
        loop = next(l for l, sel in enumerate(loops) if model[sel - 1] > 0)
        letters = [tuple(sorted((name, model[self.lit(i, v) - 1] > 0)  # type: ignore[operator]
                                for name, v in self.aps.items()))
                   for i in range(self.steps)]
        return letter_trace(letters[:loop], letters[loop:])

    def close(self) -> None:
        self.solver.delete()


