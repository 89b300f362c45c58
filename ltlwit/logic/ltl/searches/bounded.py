"""Bounded lasso search: short lasso witnesses, one SAT call per length (BMC).

The explicit search (`explore`) proves unsatisfiability and finds witnesses by diving depth
first; on specifications whose runs must cycle through many states before every eventuality is
met (an arbiter granting each client in turn) that dive wanders. Bounded model checking asks
the SAT solver for the whole lasso instead, as BLACK does: steps 0..k, each a copy of the
X-normal-form encoding (`xnf`), where N(g) at step i requires E(g) at step i+1, and the last
step's N(g) requires E(g) at the loop step l; a past request held at a step (`xnf`) requires
its latch at the step before, and at the loop step also at the last step. The run is then
periodic, and it is accepting
when every Until-like u has a step in the loop that does not postpone it (P(u) false: its
transition-based acceptance mark). Such a model is a lasso witness. It never proves
unsatisfiability: the caller falls back to the explicit search.

The bounds are tried in increasing order on one incremental solver, so the first lasso found
is a shortest one, until a bound outlasts a round of its work. Refuting a bound is where BMC's
time goes (on BLACK's amba_cl_12, 13 steps take minutes to refute, 14 steps 0.05 s to satisfy),
and lasso lengths are monotone: a lasso of k + 1 steps unrolls its loop once into one of k + 2,
so refuting a bound refutes every shorter one too. From then on each round gives half its work
to a probe at about twice the shortest bound not yet refuted, in a solver of its own: a lasso
there is a witness, not always a shortest one; a refutation there moves the search past it;
a probe whose solver outlasts its half is dropped at once for one twice as far, in a fresh
solver (a probe whose half went mostly to building its unrolling keeps its bound one more
round). Below the shortest lasso a
probe is a refutation as hard as the main one's (the N-client arbiter's bounds under N are
pigeonhole problems: mutually exclusive grants in too few steps), while one past it is
satisfiable at once (bound 39 of the 24-client arbiter: 0.03 s, after 8 s on bound 22 when a
probe kept its bound for two rounds).

Where the formula says so, its loop's least length L is known before any SAT call
(`shortest_loop`): propositions that must recur (`G F p`, and `q` where `G(p -> F q)` and p
recurs) and that the invariants (`G` of a propositional formula) make pairwise exclusive need
a loop step each. The bounds just past L are hard satisfiable problems (the 40-client arbiter's
bound 39: 1,890 conflicts, 1.4 s; bound 45: 0.2 s; bound 63: 0.12 s), the ones below it
refutations, pigeonhole problems there: what gets the search past them is a probe at about
twice the shortest bound, and where 2L does not fit in `MAX_STEPS` there is no room for one.
Such a formula leaves the search to the explicit one at once: the 48- to 64-client arbiters
in 1.5-2.3 s instead of 4-10 s (the explicit search found their lassos in the same round
either way), the 100-client one in 8.5 s instead of UNKNOWN at 60 s (35 of 40 s had gone to
refuting bounds below 64), and BLACK's pigeonhole formulas phltl_40_39 to phltl_100_99, which
are unsatisfiable, no longer feed it. Below that the bounds still start at 0 (starting them at
L was tried: the 24- to 60-client arbiters took 1.2-2.3 times as long).

A formula whose models end (`end`: the finite-trace translation's first dead instant, `finite`)
needs no loop: bound k asks for `end` at step k with no Until-like obligation postponed there,
which is a finite model of k steps, as k-liveness's firing edge is (`liveness`); its lasso is
that dead step repeated. BLACK's finite encoding does the same with its last-instant condition.
The loop constraints cost (k + 1) copies of the links per bound, the end one clause per
obligation: on a 3,162-conjunct Declare model (LiEtAl2020's groupedFollowsbn1, whose shortest
finite model has 39 steps) the loops had filled the clause ceiling by bound 28.
"""

from __future__ import annotations

from pysat.solvers import Solver

from ltlwit.logic.budget import Limit, OutOfTime, paced
from ltlwit.logic.formula import Formula, Or, conjuncts, disjuncts
from ltlwit.logic.ltl.encoding.rewrite import negate
from ltlwit.logic.ltl.encoding.xnf import SOLVER, Step, Xnf, folded
from ltlwit.logic.ltl.searches.explore import letter_trace
from ltlwit.logic.trace import Trace

#: Lengths tried at most, and the most clauses the unrolling may hold (memory).
MAX_STEPS = 64
MAX_CLAUSES = 2_000_000
#: Work units (unit propagations) charged for adding one clause to the unrolling...
CLAUSE_WORK = 20
#: ...and for one conflict of the SAT solver. A conflict's analysis costs far more than a
#: propagation where refutations are hard: refuting 8 steps of the 16-client arbiter (a
#: pigeonhole problem: sixteen mutually exclusive grants in fewer steps) took 10.8 s for
#: 640,000 propagations and 18,700 conflicts, about 0.5 ms a conflict where a propagation
#: costs 0.2-0.3 µs; counted in propagations alone, that bound kept a round's work for 10 s
#: while the probe past it was satisfiable at once. Charged 2,000 units a conflict, the
#: arbiter's lasso (16 steps) comes in 0.4 s of bounded search instead of 17 s.
CONFLICT_WORK = 2000
#: Clauses copied into the unrolling between two readings of the deadline (about 4 ms).
CHECK_CLAUSES = 4096


class Unroller:
    """Steps of one formula's encoding, copied into one solver (see the module docstring)."""

    def __init__(
        self,
        encoding: Step,
        limit: Limit,
        max_steps: int = MAX_STEPS,
        solver: str = SOLVER,
        end: int | None = None,
        shortest: int = 1,
    ) -> None:
        self.encoding = encoding
        self.end = end  # the literal that ends a model (module docstring), or None
        self.limit = limit
        self.max_steps = max_steps
        self.clauses = 0
        self.initial = encoding.initial
        self.clauses_per_step = encoding.clauses
        self.aps = encoding.aps
        self.width = encoding.width
        self.links = encoding.links
        self.posts = encoding.posts
        self.latches = encoding.latches
        self.name = solver
        self.solver = self._new_solver()
        self.top = 0
        self.offsets: list[int] = []  # where each step's copy of the variables starts
        self.interrupted = False
        self.low = 0  # the last step's index in the shortest lasso not yet refuted
        # a loop of `shortest` steps at least (`shortest_loop`) leaves no room for a probe past
        # it (module docstring); a model that ends needs no loop
        self.done = end is None and 2 * shortest > max_steps
        self.stalled = False  # a bound outlasted a round's work: probes from now on
        self.gap = 0  # how far past the shortest bound the last dropped probe was
        self.prober: Unroller | None = None  # the probes' own solver (module docstring)
        self._loops: dict[int, tuple[int, list[int]]] = {}  # bound: its selector, loop selectors

    def _new_solver(self) -> Solver:
        """The solver the steps are copied into (a theory search gives its own: `ltl.data`)."""
        return Solver(name=self.name)

    def interrupt(self) -> None:
        self.interrupted = True
        self.solver.interrupt()
        if self.prober is not None:
            self.prober.interrupt()

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
        for n, clause in enumerate(self.clauses_per_step):
            if not n % CHECK_CLAUSES:  # copying a multi-MB formula's step takes tenths of a second
                self.limit.check_time()
            self.solver.add_clause([self.lit(i, v) for v in clause])
        self.clauses += len(self.clauses_per_step) + len(self.latches)
        if i:
            for n, e in self.links:
                self._clause([-self.lit(i - 1, n), self.lit(i, e)])
            for held, latch, _ in self.latches:
                self.solver.add_clause([-self.lit(i, held), self.lit(i - 1, latch)])
        else:
            for held, _, weak in self.latches:
                if not weak:  # `Y` is false at the first instant
                    self.solver.add_clause([-self.lit(0, held)])

    def _loop(self, k: int) -> tuple[int, list[int]]:
        """The constraints that close a lasso after step k, under a fresh selector: it loops
        back to some step l, and every acceptance mark occurs from l on. (Steps after k may
        exist: they only ask that the run go on, which every lasso's does.) With an `end`: step
        k ends the model, its only loop is to itself."""
        act = self._fresh()
        if self.end is not None:
            sel = self._fresh()
            self.solver.add_clause([-act, sel])
            self._clause([-sel, self.lit(k, self.end)])
            for p in self.posts:
                self.solver.add_clause([-sel, -self.lit(k, p)])
            self.clauses += 2 + len(self.posts)
            return act, [sel]
        loops = [self._fresh() for _ in range(k + 1)]
        self.solver.add_clause([-act] + loops)
        self.clauses += (k + 1) * (len(self.links) + len(self.latches) + 1 + 2 * len(self.posts)) + len(self.posts)
        for l, sel in enumerate(loops):
            self.limit.check_time()
            for n, e in self.links:
                self._clause([-sel, -self.lit(k, n), self.lit(l, e)])
            for held, latch, _ in self.latches:  # step l follows step k too
                self.solver.add_clause([-sel, -self.lit(l, held), self.lit(k, latch)])
        inside = []  # inside[j]: the loop starts at or before step j
        for j in range(k + 1):
            v = self._fresh()
            self.solver.add_clause([-v] + loops[: j + 1])
            inside.append(v)
        for p in self.posts:
            met = []
            for j in range(k + 1):
                v = self._fresh()
                self.solver.add_clause([-v, -self.lit(j, p)])
                self.solver.add_clause([-v, inside[j]])
                met.append(v)
            self.solver.add_clause([-act] + met)
        return act, loops

    def advance(self, work: int) -> Trace | None:
        """Spend about `work` units on the next bounds (module docstring): the lasso when one
        is found, None when paused (the same bounds resume next time) or when `done`. A unit is
        one unit propagation of the SAT solver (3-5 million a second here, whatever the
        instance: a conflict's cost varies a hundredfold), and each clause the unrolling adds
        costs `CLAUSE_WORK` units."""
        while not self.done:
            k = self.low
            if k >= self.max_steps or self._clauses() > MAX_CLAUSES or any(x is False for x in self.initial):
                self.done = True
                return None
            work -= CLAUSE_WORK * self._build(k)
            if work <= 0:
                return None
            probe = self._probe() if self.stalled else None
            rest = 0 if probe is None else work // 2
            result, work = self._solve(k, work - rest)
            work += rest
            if result is None:
                if probe is None:
                    self.stalled = True
                    return None
                found, work = self._try_probe(k, probe, work)
                if found is None or isinstance(found, Trace):
                    return found
                k = found
            elif result:
                return self._lasso(k)
            self._refuted(k)
        return None

    def _try_probe(self, k: int, probe: int, work: int) -> tuple[Trace | int | None, int]:
        """Bound `probe` on the probes' share of a round, `work` (module docstring): the lasso,
        the bound refuted (and so every shorter one), or None when the share is spent; and the
        work left."""
        assert self.prober is not None
        building = CLAUSE_WORK * self.prober._build(probe)
        share, work = work, work - building
        if work <= 0:
            return None, 0  # its unrolling took the share: the same probe next round
        result, left = self.prober._solve(probe, work)
        if result is not None:
            return self.prober._lasso(probe) if result else probe, left
        if building < share // 2:  # its solver had most of the share: dropped, with the solver
            self.prober.close()
            self.prober = None
            self.gap = probe - k  # the next probe goes twice as far
        return None, 0

    def _clauses(self) -> int:
        return self.clauses + (self.prober.clauses if self.prober is not None else 0)

    def _probe(self) -> int | None:
        """A longer bound to try beside the shortest one, within the step and clause limits, and
        the solver to try it in: a fresh one, as a hard refutation's learned clauses and saved
        phases slow the search for a lasso (amba_cl_12's 14-step lassos: 0.05 s in a solver of
        their own, over 0.5 s after 13 steps' failed refutation)."""
        if self.prober is None:
            self.prober = Unroller(self.encoding, self.limit, self.max_steps, self.name, self.end)
            self.prober.interrupted = self.interrupted
        per_step = len(self.clauses_per_step) + len(self.links)
        room = max(0, MAX_CLAUSES - self._clauses()) // max(1, per_step)
        bound = min(self.low + max(2 * self.gap, self.low + 1), self.max_steps - 1, self.prober.steps - 1 + room)
        return bound if bound > self.low else None

    def _build(self, k: int) -> int:
        """Steps 0..k and bound k's loop constraints, where missing: the clauses added."""
        before = self.clauses
        while self.steps <= k:
            self.add_step()
        if k not in self._loops:
            self._loops[k] = self._loop(k)
        return self.clauses - before

    def _solve(self, k: int, work: int) -> tuple[bool | None, int]:
        """Bound k's SAT call within `work` units: its verdict (None: out of work) and the work
        left."""
        act, _ = self._loops[k]
        before = self._work()
        self.solver.prop_budget(work)
        self.solver.conf_budget(max(1, work // CONFLICT_WORK))
        result = None
        if not self.interrupted:
            result = self.solver.solve_limited(
                assumptions=[self.lit(0, e) for e in self.initial if e is not True] + [act], expect_interrupt=True
            )
        if result is None:
            if self.interrupted:  # the watchdog: a hard limit
                self.limit.check_time()
                raise OutOfTime("time budget exhausted")
            return None, 0  # the work is spent
        return result, work - (self._work() - before)

    def _work(self) -> int:
        """The solver's work so far: its propagations, and its conflicts at `CONFLICT_WORK`."""
        stats = self.solver.accum_stats()
        return stats.get("propagations", 0) + CONFLICT_WORK * stats.get("conflicts", 0)

    def _refuted(self, k: int) -> None:
        """No lasso closes after step k, nor (module docstring) after any earlier step."""
        self.low = max(self.low, k + 1)
        for bound in [b for b in self._loops if b <= k]:
            self.solver.add_clause([-self._loops.pop(bound)[0]])
        if self.prober is not None:
            self.prober._refuted(k)

    def _lasso(self, k: int) -> Trace:
        model = self.solver.get_model()
        loop = k if self.end is not None else next(l for l, sel in enumerate(self._loops[k][1]) if model[sel - 1] > 0)
        letters = [
            tuple(sorted((name, model[self.lit(i, v) - 1] > 0) for name, v in self.aps.items())) for i in range(k + 1)
        ]
        return letter_trace(letters[:loop], letters[loop:])

    def close(self) -> None:
        self.solver.delete()
        if self.prober is not None:
            self.prober.close()


def shortest_loop(formula: Formula, limit: Limit | None = None) -> int:
    """A lower bound on the loop's length in every lasso model of `formula` (NNF, as the
    searches get it), read from its `G` conjuncts: the propositions that recur in every model
    (`G F p`; `a U p` under `G`; `q` where `G(¬p ∨ F q)` and p recurs) that the invariants (the
    propositional conjuncts under `G`) make pairwise exclusive (unit propagation of one implies
    the other's negation) each need a step of the loop: a clique of them, found greedily, is
    the bound. 1 when nothing is known. Sound whatever it misses: fewer recurrences or
    exclusions found only make the bound smaller."""
    invariants: list[Formula] = []
    recurring: dict[Formula, None] = {}
    triggers: list[tuple[Formula, Formula]] = []  # (p, q): G(¬p ∨ F q)
    check = limit.check_time if limit is not None else None
    pending = [g.children[0] for g in paced(conjuncts(formula), check) if g.op == "G"]
    while pending:
        for g in paced(conjuncts(pending.pop()), check):
            if not g.temporal:
                invariants.append(g)
            elif g.op == "G":
                pending.append(g.children[0])
            elif (p := _eventual(g)) is not None:
                recurring[p] = None
            elif g.op == "|":
                parts = disjuncts(g)
                later = [d for d in parts if d.temporal]
                if len(later) == 1 and (q := _eventual(later[0])) is not None:
                    triggers.append((negate(Or(*(d for d in parts if not d.temporal))), q))
    grown = True
    while grown:
        grown = False
        for p, q in paced(triggers, check):
            if q not in recurring and p in recurring:
                recurring[q] = None
                grown = True
    if len(recurring) < 2:
        return 1
    x = Xnf()
    try:
        if limit is not None:
            x.tick = limit.check_time
        for g in invariants:
            lit = x.prop(g)
            if lit is False:
                return 1  # unsatisfiable: the other searches say so
            if lit is not True:
                x.add([lit])
        lits = {r: x.prop(r) for r in recurring}
        props = [r for r in recurring if not isinstance(lits[r], bool)]
        apart: dict[Formula, set[Formula]] = {r: set() for r in props}
        negated: dict[int, list[Formula]] = {}  # ¬lit: the recurring propositions it denies
        for r in props:
            negated.setdefault(-lits[r], []).append(r)
        for r in props:
            if limit is not None:
                limit.check_time()
            ok, implied = x.solver.propagate(assumptions=[lits[r]])
            if not ok:
                return 1
            for v in implied:
                for s in negated.get(v, ()):
                    apart[r].add(s)
                    apart[s].add(r)
    finally:
        x.solver.delete()
    clique: list[Formula] = []
    for r in sorted(props, key=lambda r: -len(apart[r])):  # stable: the formula's order on ties
        if all(c in apart[r] for c in clique):
            clique.append(r)
    return max(1, len(clique))


def _eventual(g: Formula) -> Formula | None:
    """p where `g` is `F p` or `a U p` with p propositional: under `G`, p recurs."""
    if g.op in ("F", "U") and not g.children[-1].temporal:
        return g.children[-1]
    return None
