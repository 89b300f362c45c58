"""K-liveness with IC3: unsatisfiability proved by an invariant, not by exhausting the states.

The explicit search (`explore`) proves a formula unsatisfiable by exhausting its states. A
specification whose runs range over many free inputs exhausts any budget that way (a lift with
n call buttons has 2^n states), although a short invariant shows at once that no run is
accepting ("the lift never leaves floor 0, so `G F b1` fails"). ls4 and nuXmv's k-liveness find
such invariants in a fraction of a second; this is the latter (Claessen and Sörensson, "A
liveness checking algorithm that counts", FMCAD 2012) with IC3/PDR (Bradley, VMCAI 2011; Eén,
Mishchenko and Brayton, FMCAD 2011) as the safety checker, over the transition relation of
`xnf.Step`:

* latches: one per obligation g (S_g, "g is required now": S_g → E(g); its next value is N(g));
  one per past request r (V(r) itself, its next value L(r); initially true only for `Z`);
  one for the first step (it asserts the formula's conjuncts, and is false afterwards); and the
  degeneralisation's, `seen_u` per Until-like u, so that `fire` holds on an edge when every
  acceptance mark has occurred since the last firing (this edge included);
* a unary counter of the firings. An accepting run fires infinitely often, so the formula is
  unsatisfiable if no run fires more than K times, for some K: a safety property, which IC3
  proves with an inductive invariant, or refutes (a run firing K+1 times; then K grows).

The relation is monotone in the obligations: a state with fewer of them has every edge of one
with more (each S_g only adds the clause S_g → E(g)), and in the past requests the other way (V(r)
occurs only positively). So a state that IC3 finds, to block or as a predecessor, stands for
every state with at most its obligations and at least its requests: its cube lists the
obligations it lacks and the requests it holds, and the seen and counter latches exactly.

Not lifted further: leaving out of a predecessor's cube the absent obligations that its step
meets anyway (a state with them takes the same edge) made finite-trace lifts' proofs quicker
(lift_f_16: 5.8 s to 0.09 s, before the solvers leaned to obligations present, which alone now
gives 0.25 s), but cost four of BLACK's infinite-trace lifts their proofs (lift_b_l_13: 0.5 s,
then nothing in 10 s), and on 242 finite-trace formulas (alaska, schuppan, 120 of LiEtAl2020)
it made no difference.

A formula whose models end (the finite-trace translation, `finite`: a model is alive, then dead
forever) needs no counting: an edge on which the trace is dead and no Until-like obligation is
postponed is the end of a finite model, so `fire` is that edge and K = 0 is the whole question,
a safety one ("the trace can never end"), without the degeneralisation's latches.

A proof is believed only after its invariant passes a check in a fresh solver: it holds in the
initial state, is inductive, and excludes the bad states.
"""

from __future__ import annotations

import heapq
import time
from typing import Generator, Sequence

from pysat.solvers import Solver

from ltlwit.logic.budget import Limit, OutOfTime, paced
from ltlwit.logic.ltl.encoding.xnf import SOLVER, Lit, Step, folded

#: The largest K tried; a satisfiable formula refutes every K, so the stage stops there.
MAX_K = 32
#: Literals that the generalisation tries to drop from a blocked cube, at most.
DROP_TRIES = 24

Cube = list[int]


class Liveness:
    """The k-liveness stage for one formula: `advance(seconds)` until it returns True (the
    formula is unsatisfiable) or `done` (every K up to `MAX_K` refuted, or its proof failed
    its check)."""

    def __init__(self, encoding: Step, limit: Limit, solver: str = SOLVER, end: Lit | None = None) -> None:
        self.limit = limit
        self.solver = solver
        self.clauses = list(encoding.clauses)
        self.top = encoding.width
        #: each latch's next value and initial value; `exact`: the latches that are neither
        #: obligations nor past requests (IC3's cubes keep them both ways); `held`: the past
        #: requests, whose cubes keep them where true (more of them is the more capable state)
        self.prime: dict[int, int] = {}
        self.init: dict[int, bool] = {}
        self.exact: set[int] = set()
        self.held: set[int] = set()
        #: what each obligation latch requires of the step it is in (its only clauses), for the
        #: solvers' phases (`_solver`): the literals, constants dropped (None where one is false)
        self.requires: dict[int, list[int] | None] = {}
        self.first, after = self._latch(initial=True, exact=False)
        self.clauses.append([-after])
        self.requires[self.first] = _literals(encoding.initial)
        check = limit.check_time  # a multi-MB formula's step has 100,000s of each
        for e in paced(encoding.initial, check):
            self._clause([-self.first, e])
        for n, e in paced(encoding.links, check):
            s, _ = self._latch(after=n, exact=False)
            self.requires[s] = _literals([e])
            self._clause([-s, e])
        for held, latch, weak in paced(encoding.latches, check):  # V(r) is itself the latch, L(r) its next value
            self.prime[held] = latch
            self.init[held] = weak
            self.held.add(held)
        self.fire = self._degeneralise(encoding.posts) if end is None else self._ending(end, encoding.posts)
        #: the largest K: with an end, one firing is a model
        self.max_k = MAX_K if end is None else 0
        #: IC3's activation variables are numbered from here in every frame's solver, above the
        #: system's variables and those its counter will take (at most 3 per bit, `_count`)
        self.acts_from = self.top + 3 * self.max_k + 1
        self.counter: list[int] = []
        self.done = False
        self.proved = False
        self._until = 0.0
        self._live: list[Solver] = []
        self._interrupted = False
        self._run = self._prove()

    # -- the system ----------------------------------------------------------------------------
    def _fresh(self) -> int:
        self.top += 1
        return self.top

    def _clause(self, lits: list[Lit]) -> None:
        clause = folded(lits)
        if clause is not None:
            self.clauses.append(clause)

    def _latch(self, after: int | None = None, initial: bool = False, exact: bool = True) -> tuple[int, int]:
        """A latch and its next value (a fresh variable unless given), registered."""
        v = self._fresh()
        if after is None:
            after = self._fresh()
        self.prime[v] = after
        self.init[v] = initial
        if exact:
            self.exact.add(v)
        return v, after

    def _degeneralise(self, posts: list[int]) -> int:
        """The `fire` variable: every u has met its mark (P(u) false) now or since the last
        firing; the seen latches reset when it fires."""
        fire = self._fresh()
        if not posts:
            self.clauses.append([fire])
            return fire
        met = []
        for p in paced(posts, self.limit.check_time):
            seen, after = self._latch()
            m = self._fresh()  # m <-> seen | -p
            self.clauses += [[-m, seen, -p], [m, -seen], [m, p]]
            self.clauses += [[-after, m], [-after, -fire], [after, -m, fire]]  # after <-> m & -fire
            met.append(m)
        self.clauses.append([fire] + [-m for m in met])
        self.clauses += [[-fire, m] for m in met]
        return fire

    def _ending(self, end: Lit, posts: list[int]) -> int:
        """The `fire` variable of a formula whose models end (the finite-trace translation,
        `finite`): an edge on which `end` holds (the trace's first dead instant) and no
        Until-like obligation is postponed. Past that edge every obligation left is met by
        staying dead (the translation guards each strong next with the alive proposition, so
        none is pending there), so one firing is a finite model: no degeneralisation, no
        seen latches, and the question is the safety one, K = 0."""
        fire = self._fresh()
        self.clauses += [[-fire, end]] + [[-fire, -p] for p in posts] + [[fire, -end] + list(posts)]
        return fire

    def _count(self) -> list[Cube]:
        """One more bit of the unary counter, c_K' <-> c_K | (c_K-1 & fire): its clauses."""
        start = len(self.clauses)
        assert self.top + 3 < self.acts_from, "the counter outgrew its reserved variables"
        c, after = self._latch()
        if self.counter:
            both = self._fresh()
            prev = self.counter[-1]
            self.clauses += [[-both, prev], [-both, self.fire], [both, -prev, -self.fire]]
        else:
            both = self.fire
        self.clauses += [[-after, c, both], [after, -c], [after, -both]]
        self.counter.append(c)
        return self.clauses[start:]

    def bad(self) -> Cube:
        """The K+1-th firing: an edge that fires with the counter at K."""
        return self.counter[-1:] + [self.fire]

    # -- driving it --------------------------------------------------------------------------
    @property
    def k(self) -> int:
        """The bound being proved: no run meets every eventuality more than k times."""
        return len(self.counter)

    def advance(self, seconds: float) -> bool:
        """Work for about `seconds`; True once the formula is proved unsatisfiable."""
        if self.done:
            return self.proved
        self._until = time.perf_counter() + seconds
        try:
            next(self._run)
        except StopIteration as stop:
            self.done = True
            self.proved = bool(stop.value)
            self.close()
        return self.proved

    def interrupt(self) -> None:
        self._interrupted = True
        for s in list(self._live):
            s.interrupt()

    def close(self) -> None:
        for s in self._live:
            s.delete()
        self._live = []

    def _solver(self, units: Sequence[Cube] = ()) -> Solver:
        s = Solver(name=self.solver)
        self._live.append(s)  # (deleted by `close` even when the copy below stops at a limit)
        for clause in paced(self.clauses, self.limit.check_time):  # a multi-MB formula's: seconds
            s.add_clause(clause)
        for u in units:
            s.add_clause(u)
        # decisions lean to obligations present and met, so a state found has few absent ones
        # to list in its cube (`_Ic3._cube`): 0.58 s against 0.05 s on a random Declare conjunction
        s.set_phases(list(self.requires) + [e for es in self.requires.values() if es for e in es])
        if self._interrupted:
            s.interrupt()
        return s

    def _sat(self, s: Solver, assumptions: list[int]) -> Generator[None, None, bool]:
        """One SAT call; pauses the stage (yields) once its time is spent."""
        result = None
        if not self._interrupted:
            result = s.solve_limited(assumptions=assumptions, expect_interrupt=True)
        if result is None:  # the watchdog: a hard limit
            self.limit.check_time()
            raise OutOfTime("time budget exhausted")
        if time.perf_counter() >= self._until:
            yield
        return result

    def _prove(self) -> Generator[None, None, bool]:
        """K = 0, 1, ...: the first proof found and certified; False when none is. The frames
        carry over from one K to the next: a lemma over-approximates the states reachable
        within its level whatever the counter's width."""
        ic3 = _Ic3(self)
        for k in range(self.max_k + 1):
            if k:
                ic3.widen(self._count())
            invariant = yield from ic3.run()
            if invariant is not None:
                return (yield from self._certified(invariant))
        return False

    def _certified(self, invariant: list[Cube]) -> Generator[None, None, bool]:
        """The invariant (clauses over the latches) holds initially, is inductive, and excludes
        the bad edges: checked afresh, apart from the bookkeeping that found it."""
        for clause in invariant:
            if not any(self.init[abs(l)] == (l > 0) for l in clause):
                return False
        s = self._solver(invariant)
        if (yield from self._sat(s, self.bad())):
            return False
        for clause in invariant:
            if (yield from self._sat(s, [-_primed(self.prime, l) for l in clause])):
                return False
        return True


def _literals(lits: list[Lit]) -> list[int] | None:
    """The literals of a conjunction whose members may be constants: None if one is false."""
    if any(l is False for l in lits):
        return None
    return [l for l in lits if l is not True]


def _primed(prime: dict[int, int], lit: int) -> int:
    return prime[lit] if lit > 0 else -prime[-lit]


class _Ic3:
    """IC3 on `system`: frames F_0 (the initial state) ⊆ F_1 ⊆ …, each a solver holding the
    transition relation and the lemmas of its level and above."""

    def __init__(self, system: Liveness) -> None:
        self.sys = system
        self.lemmas: list[list[Cube]] = []  # lemmas[i]: the clauses whose highest level is i
        self.solvers: list[Solver] = []
        #: the activation variables each frame's solver has used up (`_activation`)
        self.spent: list[int] = []
        self._level()

    def _level(self) -> None:
        self.solvers.append(self._frame(len(self.solvers)))
        self.spent.append(0)
        self.lemmas.append([])

    def _frame(self, i: int) -> Solver:
        """F_i's solver: the relation, the initial state in F_0, the lemmas of level i and
        above in the others."""
        if i == 0:
            return self.sys._solver([[v if value else -v] for v, value in self.sys.init.items()])
        return self.sys._solver([c for frame in self.lemmas[i:] for c in frame])

    def _activation(self, i: int) -> int:
        """A fresh activation variable in F_i's solver. Each query's leaves one behind, fixed
        false, and the solver's every call costs time in its number of variables (minisat
        rebuilds its decision heap over all of them): thousands of them made the counters'
        proofs' 6,000 small calls 90 µs each instead of 27. So the solver is built afresh,
        its activation variables numbered from `acts_from` again, once they outnumber the
        system's own."""
        if self.spent[i] >= self.sys.acts_from:
            old = self.solvers[i]
            self.sys._live.remove(old)
            old.delete()
            self.solvers[i] = self._frame(i)
            self.spent[i] = 0
        self.spent[i] += 1
        return self.sys.acts_from + self.spent[i] - 1

    def widen(self, clauses: list[Cube]) -> None:
        """The counter's new bit: its clauses in every frame, its initial value in F_0."""
        for s in self.solvers:
            for c in clauses:
                s.add_clause(c)
        self.solvers[0].add_clause([-self.sys.counter[-1]])

    def run(self) -> Generator[None, None, list[Cube] | None]:
        """The invariant when no run fires K+1 times, None when one does. Frames kept from a
        smaller K are cleared of the new bad states level by level first."""
        sat = self.sys._sat
        bad = self.sys.bad()
        level = 0
        while True:
            while (yield from sat(self.solvers[level], bad)):
                if level == 0 or not (yield from self._block(self._cube(level), level)):
                    return None
            level += 1
            if level < len(self.solvers):
                continue
            self._level()
            for i in range(1, level):
                for clause in list(self.lemmas[i]):
                    ok, _ = yield from self._relative([-l for l in clause], i + 1, predecessor=False)
                    if ok:
                        self.lemmas[i].remove(clause)
                        self._add(clause, i + 1)
                if not self.lemmas[i]:  # F_i = F_i+1: an inductive invariant
                    return [c for frame in self.lemmas[i + 1 :] for c in frame]

    def _cube(self, level: int) -> Cube:
        """The last model's state, standing for every state with at most its obligations.

        Its literals in the order in which `_generalise` tries to drop them. On
        infinite traces, the latches' making order (breadth first from the formula's
        conjuncts, then the past requests, the seen latches and the counter): the lifts'
        proofs (lift_b_l_12-18: 0.4 s each) need it, and are lost in the reverse. With an end
        (finite traces), the reverse: the obligations furthest from the formula's top go
        first and the lemmas keep those nearest it (a `G`'s, a chain's head), which is what
        "no reachable state can end" needs; in the making order the rozier counters' proofs
        depended on how the encoding numbered its gates (counterCarry14: 0.07 s or nothing in
        10 s), in the reverse they take 0.02-0.5 s under either numbering."""
        model = self.solvers[level].get_model()
        exact, held = self.sys.exact, self.sys.held
        cube = []
        for v in reversed(self.sys.prime) if self.sys.max_k == 0 else self.sys.prime:
            true = model[v - 1] > 0
            if v in exact:
                cube.append(v if true else -v)
            elif v in held:
                if true:
                    cube.append(v)
            elif not true:
                cube.append(-v)
        return cube

    def _initial(self, cube: Cube) -> bool:
        init = self.sys.init
        return all(init[abs(l)] == (l > 0) for l in cube)

    def _add(self, clause: Cube, level: int) -> None:
        self.lemmas[level].append(clause)
        for s in self.solvers[1 : level + 1]:
            s.add_clause(clause)

    def _relative(self, cube: Cube, level: int, predecessor: bool = True) -> Generator[None, None, tuple[bool, Cube]]:
        """Is `cube` unreachable in one step from F_level-1 ∧ ¬cube? (True, a sub-cube that
        is too, from the unsat core) or (False, the predecessor's cube; an empty one unless
        `predecessor`: `_generalise` and pushing only ask whether, and most of their calls
        have a predecessor, whose model, every variable of the solver, was a quarter of the
        time of a counter's proof)."""
        act = self._activation(level - 1)
        s = self.solvers[level - 1]
        s.add_clause([-act] + [-l for l in cube])
        prime = self.sys.prime
        try:
            if (yield from self.sys._sat(s, [act] + [_primed(prime, l) for l in cube])):
                return False, self._cube(level - 1) if predecessor else []
            core = set(s.get_core() or ())
            smaller = [l for l in cube if _primed(prime, l) in core]
            if self._initial(smaller):  # keep one literal that excludes the initial state
                outside = [l for l in cube if self.sys.init[abs(l)] != (l > 0)]
                smaller = smaller + outside[:1] if outside else cube
            return True, smaller
        finally:
            s.add_clause([-act])

    def _generalise(self, cube: Cube, level: int) -> Generator[None, None, Cube]:
        """Drop literals while the cube stays unreachable relative to F_level-1."""
        i = tries = 0
        while i < len(cube) and tries < DROP_TRIES:
            trial = cube[:i] + cube[i + 1 :]
            if not trial or self._initial(trial):
                i += 1
                continue
            tries += 1
            ok, smaller = yield from self._relative(trial, level, predecessor=False)
            if ok:
                keep = set(smaller)
                cube = [l for l in trial if l in keep]
            else:
                i += 1
        return cube

    def _block(self, cube: Cube, level: int) -> Generator[None, None, bool]:
        """Block `cube` at `level` and every predecessor below; False when one is initial."""
        queue = [(level, 0, cube)]
        order = 1
        top = len(self.solvers) - 1
        while queue:
            i, _, c = heapq.heappop(queue)
            ok, found = yield from self._relative(c, i)
            if not ok:
                if i == 1 or self._initial(found):
                    return False
                heapq.heappush(queue, (i - 1, order, found))
                heapq.heappush(queue, (i, order + 1, c))
                order += 2
                continue
            found = yield from self._generalise(found, i)
            j = i
            while j < top:
                pushed, _ = yield from self._relative(found, j + 1, predecessor=False)
                if not pushed:
                    break
                j += 1
            self._add([-l for l in found], j)
            if j < top:
                heapq.heappush(queue, (j + 1, order, c))
                order += 1
        return True
