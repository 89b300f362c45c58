"""SAT-based explicit search for an accepting lasso (aalta's algorithm, on `xnf`).

A state is a set of obligations (NNF formulas, none a conjunction) and, for a formula with past
operators, the set of past requests that hold in it (`xnf`: V(r) assumed true for those, false
for the others). Its successors are the SAT models of E(f₁) ∧ … ∧ E(fₖ) (`xnf`), generated
lazily, one per request of the depth-first search, and each *minimal* in its costs: the N and P
variables it sets and the latches L(r) it leaves false (no model has a strict subset of those
costs): fewer obligations, fewer postponed eventualities and more past requests held make a
weaker edge, and a minimal edge simulates every edge it is below, so the search stays complete
while branching only where the specification does. Blocking each found set's supersets (one
clause under the state's activation literal) enumerates exactly the minimal ones.

Three accelerations, as in aalta:
* obligation acceleration — each new state first asks whether a constant word σ^ω satisfies all
  its obligations (`Xnf.constant`, one SAT call): if so the witness is the search path to it
  followed by `cycle{σ}`; most satisfiable specifications end here within a few states;
* conflicts — a state whose expansion is unsatisfiable yields an unsat core C of its obligations,
  and every later successor containing all of C is excluded by one clause over N variables;
* dead states — an SCC popped without acceptance has only empty-language states, so each one's
  obligation set is excluded the same way (a superset of a dead state is dead, and so is a state
  holding fewer past requests).

The emptiness check is Couvreur's SCC algorithm over transition-based generalized Büchi
acceptance: one mark per Until-like formula, carried by the edges that do not postpone it.
Unsat answers come from the exhausted search (with the pruning above, each step sound);
witnesses are lassos of cubes that the caller verifies with `holds` before printing.
"""

from __future__ import annotations

from typing import Callable, Generator, Iterable, Iterator

from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Limit, OutOfTime, Watchdog, paced
from ltlwit.logic.formula import Formula, conjuncts
from ltlwit.logic.ltl.encoding.xnf import SOLVER, Xnf, propagations
from ltlwit.logic.ltl.searches.emptiness import accepting_cycle, merge, shortest_path
from ltlwit.logic.trace import Trace

#: (obligations, past requests that hold)
State = tuple[frozenset, frozenset]
#: a letter: (AP name, value) pairs, a cube over the APs that the state's expansion mentions
Letter = tuple[tuple[str, bool], ...]
#: a cost of an edge by what it stands for: (NEXT, g) or (POSTPONED, u) set, (UNLATCHED, r) not
#: latched; the kinds are ints, which hash alike in every process (formulas do too): sets of
#: keys iterate in one order, and so do the clauses and assumptions made from them
Key = tuple[int, Formula]
NEXT, POSTPONED, UNLATCHED = 0, 1, 2
#: `Limit.spend` units per obligation whose APs `constant_letter` collects: the deadline is read
#: every 64 obligations (`budget.CHECK_EVERY` = 256)
OBLIGATION_WORK = 4
Edge = tuple[Letter, State, int]


class Unsatisfiable(Exception):
    """The search is exhausted: no accepting run (the formula has no model)."""


#: Minimising a model: one SAT call per optional variable up to this many of them (cheap, no
#: new variables), else "a model with at least one fewer" calls (few, one selector each).
DELETE_AT_MOST = 6
#: Compact the solver once this many selectors are retired (and more than it has other variables).
COMPACT_AFTER = 4096
#: The search's work is counted in the bounded search's unit, a unit propagation (about 7 a
#: microsecond here): its SAT calls' propagations, plus this much per call and one per two
#: variables of the solver for what surrounds a call (the assumptions, the model, a list over
#: every variable, read back): 20 µs + 0.06 µs per variable, measured on BLACK's amba, lift,
#: counter and phltl specifications.
CALL_WORK = 140


class Search:
    """One satisfiability search; `run()` returns a witness `Trace` or raises `Unsatisfiable`
    (or `OutOfBudget` from the limit)."""

    def __init__(self, formula: Formula, limit: Limit | None = None, solver: str = SOLVER, encode: bool = True) -> None:
        """`encode` False leaves the closure's encoding (`encode`) to the first call that needs
        it, so that `constant_word` may answer first without it."""
        self.limit = limit if limit is not None else Limit(None)
        self.formula = formula
        self.x = Xnf(solver)
        self.x.tick = self.limit.check_time  # a multi-MB formula's encoding takes seconds
        self.initial: State = (frozenset(paced(conjuncts(formula), self.limit.check_time)), frozenset())
        self.edges: dict[State, list[Edge]] = {}
        self.stats = {"states": 0, "sat_calls": 0, "learned": 0}
        self._charged = 0  # `CALL_WORK`'s charges, and the propagations of compacted-away solvers
        self._steps: Generator[None, None, Trace] | None = None
        self._goal = 0  # the work the rounds have granted so far (`advance`)
        #: each obligation's AP variables, for `constant_letter` (170,000 SAT calls on BLACK's
        #: 12-bit counters, each state's dozen obligations' APs gathered afresh: a sixth of the
        #: search's time)
        self._letter_aps: dict[Formula, frozenset[int]] = {}
        self._keys: dict[int, Key] = {}  # `_key`'s answers, until the solver is compacted
        self._encoded = False
        if encode:
            self.encode()

    def encode(self) -> None:
        """E of the formula's whole closure, so that every acceptance mark and past request
        exists before the search (once; `advance` calls it too)."""
        if self._encoded:
            return
        self.x.encode_closure(self.formula)
        self.x.latches()
        self.bit = {}
        for i, u in enumerate(self.x.post):
            self.bit[u] = 1 << i
            if not i & 255:  # i bits each: 100,000 eventualities are 600 MB of masks, and seconds
                self.limit.check_time()
        self.until = list(self.bit)  # by mark index
        self.all_marks = (1 << len(self.bit)) - 1
        #: the past requests; a latch may be set at any step, so their arguments' cone too
        self.requests = list(self.x.latch)
        self._latch_cone = self._cone_of([r.children[0] for r in self.requests])
        self.initial = (self.initial[0], frozenset(r for r in self.requests if r.op == "Z"))
        self._encoded = True

    def constant_word(self) -> Trace | None:
        """`cycle{σ}` where the constant word σ^ω satisfies the formula, else None: the
        obligation acceleration of the initial state, which needs C of the formula only, not
        the E encoding of its closure (a multi-megabyte tdllite specification is answered so
        with seconds of encoding spared: `solver._constant_word` asks it first)."""
        # the initial obligations are the formula's conjuncts: their APs are the formula's, one
        # walk (with the deadline read), not one per conjunct
        letter = self.constant_letter(self.initial, self.formula.aps(self.limit.check_time))
        return None if letter is None else self._trace([], [letter])

    # -- SAT calls -----------------------------------------------------------------------------
    def _solve(self, assumptions: list[int]) -> bool:
        self.stats["sat_calls"] += 1
        result = None
        if not self.x.interrupted:
            result = self.x.solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
            self._charged += CALL_WORK + self.x.top // 2
        if result is None:  # the watchdog interrupted it: a hard limit was reached
            self.limit.check_time()
            raise OutOfTime("time budget exhausted")
        return result

    def _model(self, variables: frozenset[int] | set[int]) -> set[int]:
        """The true variables among `variables` in the last model."""
        return _true(self.x.solver.get_model(), variables)

    # -- the pieces of a state -------------------------------------------------------------------
    def _cone_of(self, formulas: Iterable[Formula]) -> tuple[frozenset[int], frozenset[int]]:
        aps: set[int] = set()
        np: set[int] = set()
        for f in paced(formulas, self.limit.check_time):
            a, n = self.x.cone(f)
            aps |= a
            np |= n
        return frozenset(aps), frozenset(np)

    def _cone(self, state: State) -> tuple[frozenset[int], list[int]]:
        """The AP variables of the state's letters, and its edges' possible costs (literals)."""
        aps, np = self._cone_of(state[0])
        if not self.requests:
            return aps, list(np)
        more_aps, more_np = self._latch_cone
        return aps | more_aps, list(np | more_np) + [-self.x.latch[r] for r in self.requests]

    def _now(self, state: State) -> list[int] | None:
        """The assumptions E(f) of the state's obligations and V(r) of its past requests (true
        for those it holds, false for the others); None when an obligation is `0`."""
        lits = self.x.assumptions(state[0])
        if lits is not None and self.requests:
            held = state[1]
            lits += [v if r in held else -v for r, v in ((r, self.x.held[r]) for r in self.requests)]
        return lits

    def _learn(self, formulas: Iterable[Formula], lacking: Iterable[Formula] = ()) -> None:
        """Exclude every successor that holds all of `formulas` as obligations and none of the
        past requests `lacking` (that has no model)."""
        clause = [-self.x.next_var(g) for g in formulas] + [self.x.latch[r] for r in lacking]
        if clause:
            self.stats["learned"] += 1
            self.x.add(clause)

    def _learn_dead(self, state: State) -> None:
        held = state[1]
        self._learn(state[0], [r for r in self.requests if r not in held])

    def _key(self, lit: int) -> Key:
        """A cost literal as what it stands for, which survives `Xnf.compact` (kept per
        literal until then: 2.5 million asked on a 12-bit counter's 49,000 states)."""
        key = self._keys.get(lit)
        if key is None:
            if lit < 0:
                key = (UNLATCHED, self.x.latch_of[-lit])
            else:
                g = self.x.next_of.get(lit)
                key = (NEXT, g) if g is not None else (POSTPONED, self.x.post_of[lit])
            self._keys[lit] = key
        return key

    def _var(self, key: Key) -> int:
        kind, g = key
        if kind == UNLATCHED:
            return -self.x.latch[g]
        return self.x.next_var(g) if kind == NEXT else self.x.post_var(g)

    def successors(self, state: State, oldest: Callable[[int], list[int]] | None = None) -> Iterator[Edge]:
        """The state's minimal edges, one SAT model at a time (module docstring). Between two
        requests it holds formulas, not variables: the solver may be compacted meanwhile.

        `oldest(marks)`: the state's pending eventualities (a mask of their marks) that the
        path has postponed longest; the solver's phases lean to meeting them in the first
        model (a hint, not an assumption: the same minimal edges are enumerated, the first one
        likelier to meet them). Without it the dive grants whatever the solver finds first: on
        the N-client arbiter (each request answered by some grant, grants mutually exclusive)
        a cycle of 1,150 steps in 36 s for N = 16, where granting the longest-waiting clients
        first closes one of about N steps (0.1 s). Assumptions instead of phases did as well
        there, but cost a SAT call per state elsewhere (BLACK's counters: 15% more work)."""
        found: list[frozenset[Key]] = []
        forced: frozenset[Key] | None = None
        while True:
            x = self.x
            if x.selectors > COMPACT_AFTER and x.selectors > x.top - x.selectors:
                self._charged += propagations(x.solver)
                x.compact()
                self._letter_aps.clear()  # its variables are renumbered
                self._keys.clear()
            base = self._now(state)
            if base is None:
                self._learn([f for f in state[0] if x.now(f) is False][:1])
                return
            aps, np = self._cone(state)
            if not found:
                if oldest is not None:
                    urgent = self._urgent(np, oldest)
                    if urgent:
                        x.solver.set_phases(urgent)
                if not self._solve(base):
                    self._learn_core(state, base)
                    return
            else:
                act = x.selector()
                for keys in found:
                    x.add_temporary([-act] + [-self._var(k) for k in keys])
                base = base + [act]
                if not self._solve(base):
                    x.retire(act)
                    return
            model = x.solver.get_model()
            true = _true(model, np)
            optional = []
            if true:
                if forced is None:
                    forced = self._forced(np, base)
                optional = [v for v in true if self._key(v) not in forced]
            if len(optional) > DELETE_AT_MOST:
                # many optional costs: ask for a model with at least one fewer, until none, or
                # until the round's work is spent: a bigger edge is still an edge (the states
                # it leads to hold more), and every model still contains some edge found
                while true and self.work() < self._goal:
                    sel = x.selector()
                    x.add_temporary([-sel] + [-v for v in true])
                    smaller = self._solve(base + [sel] + [-w for w in np if w not in true])
                    x.retire(sel)
                    if not smaller:
                        break
                    model = x.solver.get_model()
                    true = _true(model, true)
            elif optional:
                # a few: try dropping each (promises first), one call per cost
                changed = False
                for v in sorted(optional, key=lambda v: v < 0 or v not in x.post_of):
                    trial = true - {v}
                    if self._solve(base + [-w for w in np if w not in trial]):
                        true = trial
                        changed = True
                if changed:  # a model with exactly `true`, for the letter
                    self._solve(base + [w if w in true else -w for w in np])
                    model = x.solver.get_model()
            if found:
                x.retire(act)
            ones = _true(model, aps)
            letter = tuple(sorted((x.ap_names[v], v in ones) for v in aps))
            keys = frozenset(self._key(v) for v in true)
            found.append(keys)
            # a paused generator per state on the search stack: it keeps only `found` and
            # `forced` (the model alone is a list over every variable)
            del model, ones, base, aps, np, true, optional
            nxt = (
                frozenset(g for kind, g in keys if kind == NEXT),
                frozenset(r for r in self.requests if (UNLATCHED, r) not in keys) if self.requests else _NONE,
            )
            marks = self.all_marks
            for kind, g in keys:
                if kind == POSTPONED:
                    marks &= ~self.bit[g]
            yield letter, nxt, marks

    def _urgent(self, costs: list[int], oldest: Callable[[int], list[int]]) -> list[int]:
        """The literals "not postponed" of the eventualities among a state's `costs` (its
        cone's cost literals) that `oldest` picks."""
        pending = 0
        for v in costs:
            u = self.x.post_of.get(v)
            if u is not None:
                pending |= self.bit[u]
        return [-self.x.post[self.until[bit.bit_length() - 1]] for bit in oldest(pending)] if pending else []

    def _forced(self, costs: list[int], base: list[int]) -> frozenset[Key]:
        """The costs that the assumptions `base` imply by propagation, as keys (a method of its
        own, so that the paused generator of every state on the stack keeps no set of implied
        literals: 5 KB a state on BLACK's counters)."""
        implied = set(self.x.solver.propagate(assumptions=base)[1])
        return frozenset(self._key(v) for v in costs if v in implied)

    def _learn_core(self, state: State, base: list[int]) -> None:
        """The state's expansion is unsatisfiable under what is learned: learn the obligations
        and missing past requests of its unsat core (part of the state, so it excludes more
        states than the state; a request held is never needed in a core, V being positive)."""
        core = set(self.x.solver.get_core() or base)
        held = state[1]
        self._learn(
            [f for f in state[0] if self.x.now(f) in core],
            [r for r in self.requests if r not in held and -self.x.held[r] in core],
        )

    def _generalise(self, state: State) -> None:
        """A state just learned dead: every successor of it is now excluded, so its expansion is
        unsatisfiable and its core is a smaller dead set (aalta's conflict analysis)."""
        base = self._now(state)
        if base is not None and not self._solve(base):
            self._learn_core(state, base)

    def constant_letter(self, state: State, names: tuple[str, ...] | None = None) -> Letter | None:
        """A letter σ with σ^ω satisfying every obligation of the state, or None; never for
        obligations with past operators (on a constant word their values still change).
        `names`: the obligations' APs where the caller knows them."""
        obligations = state[0]
        if any(f.past for f in obligations):
            return None
        lits = self.x.assumptions(obligations, constant=True)
        if lits is None or not self._solve(lits):
            return None
        aps: set[int] = set()
        if names is not None:
            aps.update(self.x.ap(n) for n in names)
        known = self._letter_aps
        for f in obligations if names is None else ():
            vs = known.get(f)
            if vs is None:  # a first `aps()` walks the obligation: seconds in all on a multi-MB
                self.limit.spend(OBLIGATION_WORK)  # formula's thousands of them
                vs = known[f] = frozenset(self.x.ap(n) for n in f.aps())
            aps |= vs
        # σ must fix every AP of the obligations: C is exact for constant words only, and a
        # partial cube stands for non-constant words too (the model is read after the walk:
        # `x.ap` only numbers APs, it adds no clause)
        true = self._model(aps)
        return tuple(sorted((self.x.ap_names[v], v in true) for v in aps))

    # -- the search --------------------------------------------------------------------------
    def run(self) -> Trace:
        """The whole search at once."""
        try:
            with Watchdog(self.limit, self.x.interrupt):
                while True:
                    trace = self.advance(1 << 40)
                    if trace is not None:
                        return trace
        finally:
            self.close()

    def advance(self, work: int) -> Trace | None:
        """Explore new states until `work` more units are spent (`CALL_WORK`): the witness when
        found, None when paused (a portfolio interleaves this with the bounded search);
        `Unsatisfiable` when exhausted. The work is counted from the first call on, so what a
        state takes past its round's share is owed by the next rounds, and the other searches
        get their time meanwhile. (A state's edges are not cut short, only the shrinking of
        one, `successors`: it had taken 1,162 SAT calls and 2.5 s for one edge of a 92 KB
        Declare model, LiEtAl2020's gzippedxmlXESeventlog, in a round of 0.03 s.)"""
        if self._steps is None:
            self.encode()
            self._steps = self._couvreur()
            self._goal = self.work()
        self._goal += work
        try:
            while self.work() < self._goal:
                next(self._steps)
        except StopIteration as done:
            return done.value
        return None

    def work(self) -> int:
        """The work spent so far, in `CALL_WORK`'s units (read once per state: a SAT call here
        may take 20 µs, reading the solver's statistics 2 µs)."""
        return self._charged + propagations(self.x.solver)

    def close(self) -> None:
        """Free the solver, and the explored automaton now: the paused generator's frame and
        this object refer to each other, so without this it waits for the cyclic garbage
        collector (half a second per 100 MB of states, at process exit if not before)."""
        if self._steps is not None:
            self._steps.close()
            self._steps = None
        self.edges.clear()
        self.x.solver.delete()

    def _couvreur(self) -> Generator[None, None, Trace]:
        """Couvreur's SCC algorithm (as `emptiness.accepting_scc`) over lazy successors, with
        the constant-word check on every new state and dead SCCs learned as they are popped;
        pauses (yields) after each new state."""
        init = self.initial
        limit = self.limit
        limit.tick()
        self.stats["states"] += 1
        trace = self.constant_word()
        if trace is not None:
            return trace
        index: dict[State, int] = {init: 1}
        live = [init]
        roots: list[list[int]] = [[1, 0]]
        arcs: list[int] = []
        self.edges[init] = []
        # (state, its successor iterator, the edge that entered it)
        todo: list[tuple[State, Iterator[Edge], Edge | None]] = [(init, self.successors(init), None)]
        try:
            while todo:
                s, succ, _ = todo[-1]
                edge = next(succ, None)
                if edge is None:
                    todo.pop()
                    if roots[-1][0] == index[s]:
                        roots.pop()
                        if arcs:
                            arcs.pop()
                        dead = []
                        while True:
                            u = live.pop()
                            index[u] = 0
                            dead.append(u)
                            if u == s:
                                break
                        if s is init:
                            raise Unsatisfiable()
                        for u in dead:
                            self._learn_dead(u)
                        for u in dead:
                            self._generalise(u)
                    continue
                self.edges[s].append(edge)
                _, t, marks = edge
                n = index.get(t)
                if n is None:
                    limit.tick()
                    self.stats["states"] += 1
                    letter = self.constant_letter(t)
                    if letter is not None:
                        path = [e for _, _, e in todo[1:] if e is not None] + [edge]  # all but the root's
                        return self._trace([e[0] for e in path], [letter])
                    n = len(index) + 1
                    index[t] = n
                    live.append(t)
                    roots.append([n, 0])
                    arcs.append(marks)
                    self.edges[t] = []
                    todo.append((t, self.successors(t, lambda pending: _oldest(todo, pending, len(self.until))), edge))
                    yield
                    continue
                if n == 0:
                    continue
                low = merge(roots, arcs, n, marks, self.all_marks)
                if low is not None:
                    scc = {u for u in live if index[u] >= low}
                    return self._lasso(scc, index)
            raise Unsatisfiable()
        finally:
            # the successor iterators' callbacks refer to `todo`, which holds them: a cycle
            # over every state on the stack that only the cyclic collector would free, after
            # the answer and past the deadline (a 19-bit counter's: 1.4 million objects)
            todo.clear()

    def _lasso(self, scc: set, index: dict) -> Trace:
        def succ(s: State) -> list[Edge]:
            return self.edges.get(s, [])

        explored = {s for s, n in index.items() if n}
        prefix = shortest_path(self.initial, scc.__contains__, succ, explored.__contains__, limit=self.limit)
        entry = prefix[-1][1] if prefix else self.initial
        cycle = accepting_cycle(entry, scc, succ, self.all_marks, self.limit)
        return self._trace([e[0] for e in prefix], [e[0] for e in cycle])

    def _trace(self, prefix: list[Letter], cycle: list[Letter]) -> Trace:
        return letter_trace(prefix, cycle)


def letter_trace(prefix: list[Letter], cycle: list[Letter]) -> Trace:
    """Spot's word simplification on cubes (as `witness.simplify_word`), then formulas."""
    prefix, cycle = list(prefix), list(cycle)
    if len(cycle) > 1:
        merged = _meet(cycle)
        if merged is not None:
            cycle = [merged]
    while prefix:
        both = _meet([prefix[-1], cycle[-1]])
        if both is None:
            break
        prefix.pop()
        cycle.pop()
        cycle.insert(0, both)
    return Trace(tuple(cube(x) for x in prefix), tuple(cube(x) for x in cycle))


_NONE: frozenset = frozenset()
#: How far back along the search path `_oldest` looks, per eventuality (at least 64 edges),
#: and how many eventualities it names.
LOOK_BACK = 2
URGENT = 3


def _oldest(todo: list, pending: int, marks: int) -> list[int]:
    """Of the marks in `pending` (one bit each), the `URGENT` whose eventualities the search
    path (`todo`'s entering edges, newest first) has postponed longest, oldest first: the last
    met going back; ties (met at the same edge, or not within `LOOK_BACK` edges per one of the
    `marks` eventualities) go to the lower bit. No more than `URGENT` pending: all of them,
    lowest first (a counter's state has a few, and a path of thousands of steps to look at)."""
    if pending.bit_count() <= URGENT:  # all of them: the order is the caller's own business
        return _bits(pending)
    order: list[int] = []  # met going back, newest first
    for _, _, edge in reversed(todo[-max(64, LOOK_BACK * marks) :]):
        if edge is None:
            break
        met = pending & edge[2]
        pending &= ~met
        order.extend(reversed(_bits(met)))  # read back to front below: the lower bit first
        if not pending:
            break
    return (_bits(pending) + order[::-1])[:URGENT]


def _bits(mask: int) -> list[int]:
    """The one-bit masks of `mask`, lowest first."""
    out = []
    while mask:
        bit = mask & -mask
        out.append(bit)
        mask &= ~bit
    return out


def _true(model: list[int], literals: Iterable[int]) -> set[int]:
    """The true literals among `literals` in a model (variables in no clause yet are absent
    from it: free, read as false)."""
    known = len(model)
    out = set()
    for v in literals:
        if v > 0:
            if v <= known and model[v - 1] > 0:
                out.add(v)
        elif -v > known or model[-v - 1] < 0:
            out.add(v)
    return out


def _meet(letters: list[Letter]) -> Letter | None:
    """The conjunction of cubes, or None when two of them clash."""
    out: dict[str, bool] = {}
    for x in letters:
        for name, value in x:
            if out.setdefault(name, value) != value:
                return None
    return tuple(sorted(out.items()))


def search(formula: Formula, limit: Limit | None = None) -> Trace | None:
    """A candidate witness lasso for the simplified NNF `formula`, or None when it has no model."""
    try:
        return Search(formula, limit).run()
    except Unsatisfiable:
        return None
