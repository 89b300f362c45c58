"""LTL modulo theories: formulas over data decided by the one engine with an SMT solver under
its step encoding.

A formula over data becomes its Boolean abstraction (`theory.abstraction`): one proposition per
atom, guarded at the trace's ends. Two procedures then decide it, in rounds of doubling time:

1. **The bounded search with the theory** (`TheoryUnroller`): the abstraction's X-normal-form
   step (`xnf`), copied step by step as the bounded lasso search copies it (`bounded`), into z3
   instead of MiniSat, each atom's proposition at step i bound to its comparison over the
   values at the instants it reads (`x@i`, `x@(i+1)` for `next(x)`), as BLACK's encoding of
   LTLf modulo theories does. Bound k asks for a model of k instants (finite semantics) or a
   lasso closing after step k, whose loop closes the values too (infinite semantics: the
   instant after the last is the loop's first, with its values). Every satisfiable formula has
   a finite model of some length, so on finite traces this search finds one (BLACK's
   semi-decision procedure). It also proves unsatisfiability the way BLACK does once next and
   previous values are compared: when steps 0..k cannot all exist (no run reaches step k) and
   no shorter model exists, there is no model at all.
2. **The abstraction refined** (`Refinement`): the engine's own portfolio (k-liveness, the
   explicit search) decides the abstraction with the lemmas learned so far; unsatisfiable
   means unsatisfiable (every model of the formula is one of the abstraction, lemmas being
   theory facts); a witness of it is given values by z3 instant by instant, and when no values
   exist, the unsatisfiable core of the comparisons becomes a lemma that forbids that pattern
   of atoms at every instant (`G !(a & X b)`), or, where only rigid symbols tie its instants
   together, anywhere in the trace. This proves what no bound can: `G(x > 0) & F(x < 0)`.

Neither guesses: UNSAT only from a proof, otherwise UNKNOWN with the reason (the logic is
undecidable), and every witness is checked by the exact evaluator (`theory.evaluate`), which
does not use z3, before it is returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ltlwit.logic import stage
from ltlwit.logic.budget import Budget, Limit, OutOfBudget, OutOfTime, Watchdog
from ltlwit.logic.formula import FALSE, TRUE, And, Formula, Not, ap, collector_paused
from ltlwit.logic.ltl.bounded import Unroller
from ltlwit.logic.ltl.xnf import Step
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.theory.abstraction import Abstraction
from ltlwit.logic.theory.evaluate import Value, table_atoms, value_atom
from ltlwit.logic.theory.terms import offsets
from ltlwit.logic.trace import Trace

#: Lengths the bounded search tries at most (BLACK's suite has models of 1,600 instants).
MAX_STEPS = 100_000
#: The first round's time, in seconds; each round doubles it.
FIRST_ROUND = 0.25
#: The refinement's time in a round, as a share of the bounded search's.
REFINE_SHARE = 0.25
#: The first probe's length on finite traces, and how far past the bounds refuted the probes
#: go at most (`Bounded`).
PROBE = 32
PROBE_AHEAD = 8
#: Bounds up to this one ask whether a run outlives them (a proof of unsatisfiability when
#: none does), then the powers of two: where some bound is the last any run reaches, the
#: next power of two past it says so, and the bounds between are refuted at once (their
#: instants are asserted to exist); a question that a run answers costs z3 a model of the
#: whole prefix.
DEATH_EVERY = 16
UNDECIDED = "undecided: the logic is undecidable and no bound proves it"


class Z3Clauses:
    """The part of python-sat's solver interface the bounded search uses, over z3: a theory
    search copies the steps with `Unroller`'s own code and adds the atoms' meaning beside.
    Clauses are buffered and handed to z3 as SMT-LIB text before each check: one z3 API call
    per clause cost 0.4 ms, most of the search's time on BLACK's long counters."""

    def __init__(self, encoder, mirror: bool = False) -> None:
        import z3

        self.z3 = z3
        self.encoder = encoder
        self.solver = z3.Solver(ctx=encoder.ctx)
        #: The same clauses in MiniSat, without the comparisons' meaning (`abstract`)
        self.abstract = None
        if mirror:
            from pysat.solvers import Solver

            from ltlwit.logic.ltl.xnf import SOLVER

            self.abstract = Solver(name=SOLVER)
        self._bools: list = [None]
        self._declared = 0  # variables 1.._declared are declared to z3's parser
        self._pending: list[str] = []
        self._model = None
        self._timeout: int | None = None
        self.theory = False  # the last check needed z3 (the clauses alone did not refute it)

    def bool(self, v: int):
        while len(self._bools) <= v:
            self._bools.append(self.z3.Bool(f"b{len(self._bools)}", self.encoder.ctx))
        return self._bools[v]

    def literal(self, x: int):
        return self.bool(x) if x > 0 else self.z3.Not(self.bool(-x))

    def add_clause(self, clause: list[int]) -> None:
        if self.abstract is not None:
            self.abstract.add_clause(clause)
        top = max(abs(x) for x in clause) if clause else 0
        if top > self._declared:
            self._pending.extend(f"(declare-const b{v} Bool)" for v in range(self._declared + 1, top + 1))
            self._declared = top
        lits = " ".join(f"b{x}" if x > 0 else f"(not b{-x})" for x in clause)
        self._pending.append(f"(assert (or {lits}))" if len(clause) != 1 else f"(assert {lits})")

    def set_timeout(self, ms: int) -> None:
        self._timeout = ms
        self.solver.set("timeout", ms)

    def flush(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending = []
            self.solver.from_string(text)

    def check(self, assumptions: list[int]) -> bool | None:
        """Satisfiable under the assumptions; None when z3 does not know (interrupted, or an
        incomplete theory: `reason`). Where the clauses alone (MiniSat's, no theory) refute
        the assumptions, z3 is not asked: the X chains of BLACK's suite (`X X ... X wX
        False`: a model of exactly 150 instants) refute every shorter bound this way, in a
        millisecond each."""
        self.theory = False
        if self.abstract is not None and not self.abstract.solve(assumptions=assumptions):
            return False
        self.theory = True
        self.flush()
        self._model = None
        result = self.solver.check(*(self.literal(x) for x in assumptions))
        if result == self.z3.sat:
            return True
        if result == self.z3.unsat:
            return False
        return None

    @property
    def model(self):
        if self._model is None:
            self._model = self.solver.model()
        return self._model

    def reason(self) -> str:
        return self.solver.reason_unknown()

    def true(self, v: int) -> bool:
        return self.z3.is_true(self.model.eval(self.bool(v), model_completion=True))

    def interrupt(self) -> None:
        self.encoder.interrupt()

    def delete(self) -> None:
        self.solver = None
        if self.abstract is not None:
            self.abstract.delete()
            self.abstract = None


class TheoryUnroller(Unroller):
    """`Unroller` over z3 with each atom's proposition bound to its comparison at each step
    (module docstring). Driven bound by bound by `search`, not by `Unroller.advance`: z3 has
    no propagation budget, and a refutation here may also prove unsatisfiability."""

    def __init__(self, encoding: Step, abstraction: Abstraction, encoder, limit: Limit,
                 end: int | None, alive: str | None = None) -> None:
        self.encoder = encoder
        self.alive = alive  # the finite-trace translation's proposition, not the user's
        self.abstraction = abstraction
        self.theory = [(encoding.aps[n], a) for n, a in abstraction.atoms.items() if n in encoding.aps]
        reach = [d for _, a in self.theory for _, d, _ in offsets(a)]
        self.ahead = max([0, *reach])
        self.back = max([0, *(-d for d in reach)])
        super().__init__(encoding, limit, max_steps=MAX_STEPS, end=end, shortest=1)

    def _new_solver(self) -> Z3Clauses:  # type: ignore[override]
        return Z3Clauses(self.encoder, mirror=True)

    def add_step(self) -> None:
        super().add_step()
        i = self.steps - 1
        self.limit.check_time()
        for v, a in self.theory:
            self._define(self.lit(i, v), a, i)  # type: ignore[arg-type]

    def _define(self, var: int, a, at: int) -> None:
        """Proposition `var` stands for the comparison `a` at instant `at`."""
        s = self.solver
        s.solver.add(s.bool(var) == self.encoder.atom(a, at))

    def _loop(self, k: int) -> tuple[int, list[int]]:
        """`Unroller._loop`, and on a lasso (no `end`) the values closed under each loop
        selector: the instants after step k are the loop's, and at the loop's first steps an
        atom that looks back reads the last steps as well as the prefix's."""
        act, loops = super()._loop(k)
        if self.end is not None:
            return act, loops
        z3 = self.solver.z3
        names = [n for n, sort in self.abstraction.signature.variables.items() if sort.name != "Bool"]
        for l, sel in enumerate(loops):
            closed = [self.encoder.var(n, k + j) == self.encoder.var(n, l + j - 1)
                      for n in names for j in range(1, self.ahead + 1)]

            def wrapped(p: int, l: int = l) -> int:
                return p if p >= l else p + (k + 1 - l)

            for j in range(min(self.back, k + 1 - l)):
                for v, a in self.theory:
                    if any(d < 0 and j + d < 0 for _, d, _ in offsets(a)):
                        closed.append(self.solver.bool(self.lit(l + j, v)) == self.encoder.atom(a, l + j, wrapped))
            if closed:
                self.solver.solver.add(z3.Implies(self.solver.bool(sel), z3.And(*closed)))
        return act, loops

    def bound(self, k: int, alive: range = range(0)) -> bool | None:
        """Whether a model closes at bound k (module docstring), with the instants `alive`
        existing; None: z3 does not know."""
        return self._check(self._asked_at(k, alive))

    def _asked_at(self, k: int, alive: range) -> list:
        self._build(k)
        act, _ = self._loops[k]
        extra = [self.lit(j, -self.end) for j in alive] if self.end is not None else []  # type: ignore[operator]
        return [self.lit(0, e) for e in self.initial if e is not True] + [act] + extra

    def reaches(self, k: int) -> bool | None:
        """Whether some run reaches step k (on finite traces: with step k alive, so a model
        would have more than k instants); False proves every model shorter."""
        self._build(k)
        extra = [] if self.end is None else [-self.end]
        assumptions = [self.lit(0, e) for e in self.initial if e is not True] + [self.lit(k, x) for x in extra]
        return self._check(assumptions)  # type: ignore[arg-type]

    def outlive(self, k: int) -> None:
        """Bound k is done with: every model asked for from now on has more than k instants,
        so step k is alive for good (BLACK's `not_last`), and the later bounds' guarded
        comparisons hold outright there instead of being decided anew in every check."""
        if self.end is not None:
            self._build(k)
            self.solver.add_clause([self.lit(k, -self.end)])  # type: ignore[list-item]

    def _check(self, assumptions: list) -> bool | None:
        if any(x is False for x in assumptions):
            return False
        result = self.solver.check(assumptions)
        if self.interrupted:  # whatever z3 said after an interrupt, nothing is trusted
            self.limit.check_time()
            raise OutOfTime("time budget exhausted")
        return result

    def witness(self, k: int) -> Trace:
        """The model of bound k as a data trace: each step's propositions and values, the
        functions' tables in the first step."""
        s = self.solver
        sig = self.abstraction.signature
        loop = k if self.end is not None else next(l for l, sel in enumerate(self._loops[k][1]) if s.true(sel))
        last = k - 1 if self.end is not None else k
        skip = set(self.abstraction.atoms) | {self.alive}
        props = [(n, v) for n, v in self.aps.items() if n not in skip]
        data = [(n, sort) for n, sort in sig.variables.items() if sort.name != "Bool"]
        model = s.model
        steps = []
        for i in range(last + 1):
            lits = [ap(n) if s.true(self.lit(i, v)) else Not(ap(n)) for n, v in props]  # type: ignore[arg-type]
            values = [value_atom(n, self.encoder.value(model, self.encoder.var(n, i)), sort) for n, sort in data]
            steps.append(lits + values)
        formulas = tuple(And(*st) if st else TRUE for st in steps)
        trace = Trace(formulas, ()) if self.end is not None else Trace(formulas[:loop], formulas[loop:])
        return with_tables(trace, self.abstraction, self.encoder.table_reader(model))

    def close(self) -> None:
        self.solver.delete()


def with_tables(trace: Trace, abstraction: Abstraction, read) -> Trace:
    """`trace` with the function entries its exact check reads, as the model (`read`) gives
    them, in its first step: reading the atoms records them."""
    if not abstraction.signature.functions:
        return trace
    from ltlwit.logic.theory.evaluate import boolean_trace

    used: dict = {}

    class Recording(dict):
        def __missing__(self, key):
            used[key] = value = read(*key)
            return value

    boolean_trace(trace, abstraction.names, abstraction.signature, Recording())
    if not used:
        return trace
    first = And(trace.steps[0], *table_atoms(used, abstraction.signature))
    if trace.prefix:
        return Trace((first, *trace.prefix[1:]), trace.cycle)
    return Trace((), (first, *trace.cycle[1:]))


class Probe(TheoryUnroller):
    """One exact length asked once, in a problem of its own (`Bounded`): the unrolling is
    kept as clauses, and before z3 sees it, unit propagation (MiniSat's) of what the question
    asserts (every instant alive, the end, the formula at the first step) settles most
    propositions; z3 then gets the comparisons those settle as facts, the others defined,
    and the clauses still open. Asserted outright, the facts let z3 solve the equations away:
    1,024 instants of `x = 0 & G(wnext(x) = x + 1) & F(x = 780)` in 0.2 s, where the same
    problem with every comparison behind a proposition took 1.5 s, and under assumptions in
    the incremental solver minutes."""

    def _new_solver(self) -> "Recorded":  # type: ignore[override]
        return Recorded(self.encoder, self.limit)

    def _define(self, var: int, a, at: int) -> None:
        self.solver.definitions.append((var, a, at))

    def ask(self, k: int) -> bool | None:
        """Whether a model of exactly k instants exists (None: z3 does not know); asked again
        after a timeout, the same problem in a fresh solver."""
        asked = self._asked_at(k, range(k))
        if any(x is False for x in asked):
            return False
        if not self.solver.posed and not self.solver.pose(asked):
            return False
        return self._check([])


class Recorded(Z3Clauses):
    """A probe's clauses and definitions, kept until the question is known (`Probe`)."""

    def __init__(self, encoder, limit: Limit) -> None:
        super().__init__(encoder)
        self.limit = limit
        self.clauses: list[list[int]] = []
        self.definitions: list[tuple[int, object, int]] = []
        self.fixed: dict[int, bool] = {}
        self.posed = None  # the problem z3 is asked (`pose`)
        self.checks = 0

    def add_clause(self, clause: list[int]) -> None:
        self.clauses.append(clause)

    def pose(self, units: list[int]) -> bool:
        """The problem under `units` for z3 (module docstring of `Probe`); False when unit
        propagation alone refutes it."""
        from pysat.solvers import Solver

        from ltlwit.logic.ltl.xnf import SOLVER

        with Solver(name=SOLVER, bootstrap_with=self.clauses) as sat:
            ok, implied = sat.propagate(assumptions=units)
        if not ok:
            return False
        self.fixed = {abs(x): x > 0 for x in implied}
        z3, enc, fixed = self.z3, self.encoder, self.fixed
        posed = []
        for n, (var, a, at) in enumerate(self.definitions):
            if not n & 255:
                self.limit.check_time()  # 140 comparisons a step over 256 steps: seconds
            e = enc.atom(a, at)
            value = fixed.get(var)
            posed.append(self.bool(var) == e if value is None else e if value else z3.Not(e))
        for clause in self.clauses:
            if any(fixed.get(abs(x)) == (x > 0) for x in clause):
                continue
            rest = [x for x in clause if abs(x) not in fixed]
            super().add_clause(rest)
        self.flush()
        self.solver.add(*posed)
        self.posed = self.solver.assertions()
        return True

    def check(self, assumptions: list[int]) -> bool | None:
        if self.checks:  # asked again (after a timeout): a solver never asked, which simplifies
            fresh = self.z3.Solver(ctx=self.encoder.ctx)
            fresh.add(self.posed)
            if self._timeout is not None:
                fresh.set("timeout", self._timeout)
            self.solver = fresh
        self.checks += 1
        return super().check(assumptions)

    def true(self, v: int) -> bool:
        value = self.fixed.get(v)
        return value if value is not None else super().true(v)


class Refinement:
    """The abstraction refined by the theory's lemmas (module docstring, procedure 2)."""

    def __init__(self, abstraction: Abstraction, encoder) -> None:
        self.abstraction = abstraction
        self.encoder = encoder
        self.lemmas: list[Formula] = []
        self.stuck = False  # a witness of the abstraction whose loop no values close
        self._atoms_read = {n: _instants(a) for n, a in abstraction.atoms.items()}

    def advance(self, limit: Limit, seconds: float) -> Result | None:
        """Lemmas until the abstraction is decided, within `seconds`: Unsat, a verified Sat,
        or None (out of its time, or stuck)."""
        from ltlwit.logic.ltl import finite as finite_traces
        from ltlwit.logic.ltl.solver import solve_builtin

        ends = time.perf_counter() + seconds
        while not self.stuck:
            left = min(ends, limit.deadline or ends) - time.perf_counter()
            if left <= 0:
                return None
            formula = And(self.abstraction.formula, *self.lemmas)
            budget = Budget(seconds=left, memory=limit.memory)
            if self.abstraction.finite:
                result = finite_traces.solve(formula, budget)
            else:
                result = solve_builtin(finite_traces.strong(formula), budget)
            if isinstance(result, Unsat):
                return Unsat(f"abstraction ({len(self.lemmas)} theory lemmas)")
            if not isinstance(result, Sat):
                limit.check_time()
                return None
            left = ends - time.perf_counter()
            if left <= 0:
                return None
            found = self._concretise(result.witness, limit, left)  # type: ignore[arg-type]
            if isinstance(found, Trace):
                from ltlwit.logic.ltl.check import holds_data

                stage.enter("checking the witness")
                if holds_data(self.abstraction, found, limit):
                    return Sat(found)
                return Unknown(f"internal error: the witness {found} failed its exact check")
        return None

    def _concretise(self, trace: Trace, limit: Limit, seconds: float) -> Trace | None:
        """Values for a witness of the abstraction, or a lemma learned from why there are none
        (then None), within `seconds` (then None, nothing learned); `stuck` when values exist
        for the unrolled steps but none close its loop."""
        import z3

        enc = self.encoder
        solver = z3.Solver(ctx=enc.ctx)
        solver.set("timeout", max(1, int(1000 * seconds)))
        steps = trace.steps
        trackers = {}
        for i, step in enumerate(steps):
            limit.check_time()
            for k, part in enumerate(_parts(step)):
                t = z3.Bool(f"t{i}_{k}", enc.ctx)
                solver.add(z3.Implies(t, self._z3(part, i)))
                trackers[t] = (i, part)
        result = solver.check(*trackers)
        limit.check_time()
        if result == z3.unsat:
            self.lemmas.append(self._lemma([trackers[t] for t in solver.unsat_core()]))
            return None
        if result != z3.sat:
            if not _timed_out(solver.reason_unknown()):
                self.stuck = True  # an incomplete theory: this witness would come back again
            return None
        if not trace.finite:
            solver.add(*self._closure(trace))
            if solver.check(*trackers) != z3.sat:
                self.stuck = True
                return None
        model = solver.model()
        return self._witness(trace, model)

    def _z3(self, f: Formula, at: int, where=None):
        """A propositional step formula at instant `at`: atoms' propositions as their
        comparisons there (their instants mapped by `where`, as `Encoder.atom`'s), other
        propositions as z3 Booleans of that instant."""
        import z3

        enc = self.encoder
        atoms = self.abstraction.atoms
        done: dict[Formula, object] = {}
        from ltlwit.logic.formula import postorder

        for node in postorder(f):
            op = node.op
            if op == "ap":
                a = atoms.get(node.name)  # type: ignore[arg-type]
                done[node] = enc.atom(a, at, where) if a is not None else z3.Bool(f"{node.name}@{at}", enc.ctx)
            elif op in ("1", "0"):
                done[node] = z3.BoolVal(op == "1", enc.ctx)
            else:
                k = [done[c] for c in node.children]
                done[node] = (z3.Not(k[0]) if op == "!" else z3.And(*k) if op == "&" else z3.Or(*k) if op == "|"
                              else z3.Implies(*k) if op == "->" else k[0] == k[1] if op == "<->" else k[0] != k[1])
        return done[f]

    def _closure(self, trace: Trace) -> list:
        """A lasso's values closed, as `TheoryUnroller._loop` closes them: the instants after
        the last step are the loop's, and at the loop's first steps the atoms that look back
        hold of the last steps' values too (the later passes' past)."""
        enc = self.encoder
        sig = self.abstraction.signature
        loop, last = len(trace.prefix), len(trace.steps) - 1
        reads = [d for r in self._atoms_read.values() for d in r]
        ahead, back = max([0, *reads]), max([0, *(-d for d in reads)])
        closed = [enc.var(n, last + j) == enc.var(n, loop + j - 1)
                  for n, sort in sig.variables.items() if sort.name != "Bool" for j in range(1, ahead + 1)]

        def wrapped(p: int) -> int:
            return p if p >= loop else p + (last + 1 - loop)

        for j in range(min(back, last + 1 - loop)):
            for part in _parts(trace.steps[loop + j]):
                if any(min(self._atoms_read.get(n, (0,))) + j < 0 for n in part.aps()):
                    closed.append(self._z3(part, loop + j, wrapped))
        return closed

    def _lemma(self, core: list[tuple[int, Formula]]) -> Formula:
        """The core's pattern forbidden: at every instant where its instants are linked by the
        values they read (one window), or anywhere in the trace where only rigid functions
        link them (several windows)."""
        reads = {}
        for i, part in core:
            touched = set()
            for name in part.aps():
                touched.update(i + d for d in self._atoms_read.get(name, (0,)))
            reads[(i, part)] = touched
        windows: list[list[tuple[int, Formula]]] = []
        spans: list[set[int]] = []
        for item, touched in sorted(reads.items(), key=lambda kv: kv[0][0]):
            joined = [w for w, span in enumerate(spans) if span & touched]
            merged = [item] + [x for w in joined for x in windows[w]]
            span = touched.union(*(spans[w] for w in joined))
            windows = [w for k, w in enumerate(windows) if k not in joined] + [merged]
            spans = [s for k, s in enumerate(spans) if k not in joined] + [span]
        patterns = []
        for window in windows:
            base = min(i for i, _ in window)
            by_offset: dict[int, list[Formula]] = {}
            for i, part in window:
                by_offset.setdefault(i - base, []).append(part)
            patterns.append(_shifted(by_offset))
        if len(patterns) == 1:
            return Formula("G", (Not(patterns[0]),))
        return Not(And(*(Formula("F", (p,)) for p in patterns)))

    def _witness(self, trace: Trace, model) -> Trace:
        enc = self.encoder
        sig = self.abstraction.signature
        skip = set(self.abstraction.atoms)
        props = [n for n in dict.fromkeys(self.abstraction.formula.aps()) if n not in skip]
        import z3

        steps = []
        for i in range(len(trace.steps)):
            lits = []
            for n in props:
                v = model.eval(z3.Bool(f"{n}@{i}", enc.ctx), model_completion=True)
                lits.append(ap(n) if z3.is_true(v) else Not(ap(n)))
            values = [value_atom(n, enc.value(model, enc.var(n, i)), sort)
                      for n, sort in sig.variables.items() if sort.name != "Bool"]
            steps.append(And(*lits, *values) if lits or values else TRUE)
        out = Trace(tuple(steps), ()) if trace.finite else \
            Trace(tuple(steps[: len(trace.prefix)]), tuple(steps[len(trace.prefix):]))
        return with_tables(out, self.abstraction, enc.table_reader(model))


def _shifted(by_offset: dict[int, list[Formula]]) -> Formula:
    """`p0 & X(p1 & X(... ))` for the parts at each offset from the window's first instant
    (`X^d` of nothing where an offset has no part)."""
    pattern: Formula | None = None
    for d in range(max(by_offset), -1, -1):
        now = by_offset.get(d, [])
        inner = [Formula("X", (pattern,))] if pattern is not None else []
        pattern = And(*now, *inner) if now or inner else TRUE
    return pattern  # type: ignore[return-value]


def _parts(step: Formula) -> list[Formula]:
    from ltlwit.logic.formula import conjuncts

    return conjuncts(step) or [TRUE]


def _instants(a) -> tuple[int, ...]:
    """The instants an atom reads, relative to its own."""
    return tuple(sorted({d for _, d, _ in offsets(a)} | {0}))


def solve(abstraction: Abstraction, budget: Budget | None = None) -> Result:
    """Decide a formula over data (module docstring), as its `abstraction` says: on finite
    traces when `abstraction.finite`."""
    with collector_paused():
        limit = Limit(budget)
        try:
            result = _portfolio(abstraction, limit)
        except OutOfBudget as e:
            result = Unknown(str(e))
    hard = nonlinear(abstraction)
    if isinstance(result, Unknown) and hard:
        if result.reason.startswith("the SMT solver gave up"):
            raise ValueError(f"the SMT solver gives up on the non-linear atom {hard[0]} ({result.reason})")
        return Unknown(f"{result.reason} (the SMT solver may not decide the non-linear atom {hard[0]})")
    return result


def nonlinear(abstraction: Abstraction) -> list[str]:
    """The atoms whose arithmetic is not linear: a product of two terms with variables, a
    quotient or remainder by one. z3 decides linear arithmetic; on these it may give up."""
    out = []
    for a in abstraction.names:
        for node in a.walk():
            if node.op == "*" and all(c.variables() for c in node.children) or \
                    node.op in ("/", "mod") and node.children[1].variables():
                out.append(str(a))
                break
    return out


def _portfolio(abstraction: Abstraction, limit: Limit) -> Result:
    """The two procedures in rounds of doubling time, the bounded search first (most
    satisfiable formulas have a short model)."""
    from ltlwit.logic.ltl import finite as finite_traces
    from ltlwit.logic.ltl.rewrite import simplify
    from ltlwit.logic.ltl.xnf import step
    from ltlwit.logic.theory.smt import Encoder

    stage.enter("rewriting")
    formula, alive = abstraction.formula, None
    if abstraction.finite:
        formula, alive = finite_traces.guarded(formula)
    prepared = simplify(formula, limit)
    if prepared is FALSE:
        return Unsat("rewriting")
    encoding = step(prepared, limit=limit)
    end = -encoding.aps[alive.name] if alive is not None and alive.name in encoding.aps else None
    encoder = Encoder(abstraction.signature)
    bounded = Bounded(abstraction, TheoryUnroller(encoding, abstraction, encoder, limit, end,
                                                       alive.name if alive is not None else None), limit)
    refinement = Refinement(abstraction, Encoder(abstraction.signature))
    seconds = FIRST_ROUND
    owed = 0.0  # what the refinement took past its shares so far (the engine's searches overrun)
    import z3

    try:
        with Watchdog(limit, lambda: (bounded.interrupt(), refinement.encoder.interrupt())):
            while True:
                result = bounded.advance(seconds)
                if result is not None:
                    return result
                share = REFINE_SHARE * seconds - owed
                if not refinement.stuck and share > 0:
                    stage.enter(f"abstraction refinement, {len(refinement.lemmas)} lemmas")
                    began = time.perf_counter()
                    result = refinement.advance(limit, share)
                    if result is not None:
                        return result
                    owed = max(0.0, time.perf_counter() - began - share)
                else:
                    owed = max(0.0, owed - REFINE_SHARE * seconds)
                if bounded.exhausted and refinement.stuck:
                    return Unknown(bounded.reason())
                seconds *= 2
    except z3.Z3Exception:
        # a z3 call the watchdog's interrupt cut short (`canceled`): out of time, if it was
        limit.check_time()
        raise
    finally:
        bounded.close()


class Bounded:
    """The bounded search, resumable round after round: the bounds in increasing order (a
    model of exactly k instants, each refuted bound making instant k exist for good), and on
    finite traces probes far ahead, at exact lengths 32, 64, 128, ... past the bounds refuted,
    each in a solver of its own where everything is asserted outright: z3 simplifies such a
    problem as a whole (solving the equations, propagating values), which it does not do for
    checks under assumptions, and past a few hundred steps the incremental checks slow down
    tenfold (BLACK's counters, `x = 0 & G(wnext(x) = x + 1) & F(x = 780)`: the probe of 1,024
    instants answers in 1.5 s, the bounds would take minutes to get there)."""

    def __init__(self, abstraction: Abstraction, unroller: TheoryUnroller, limit: Limit) -> None:
        self.abstraction = abstraction
        self.unroller = unroller
        self.limit = limit
        self.k = 1 if unroller.end is not None else 0
        self.probe = PROBE if unroller.end is not None else None
        self.prober: Probe | None = None
        self.hard = False  # the last bound needed z3 (`advance`)
        self.doubt: str | None = None  # why z3 could not decide some bound
        self.exhausted = False

    def reason(self) -> str:
        return UNDECIDED if self.doubt is None else f"the SMT solver gave up: {self.doubt}"

    def advance(self, seconds: float) -> Result | None:
        """About `seconds` of search, the bounds first, half of it on a probe where there is one
        and the bounds need z3 (the last one was not refuted by its clauses alone: where they
        are, as below the length an `X` chain demands, the bounds go fast and a probe of
        another length would be refuted the same way, after its unrolling was built): an
        answer, or None (the same bounds and probe resume next round)."""
        ends = time.perf_counter() + seconds
        probing = self.probe is not None and self.hard
        result = self._bounds(ends - seconds / 2 if probing else ends)
        if result is None and probing:
            result = self._probes(ends)
        return result

    def _bounds(self, ends: float) -> Result | None:
        u = self.unroller
        while self.k < MAX_STEPS:
            if not self._time(u, ends):
                return None
            k = self.k
            stage.enter(f"theory search, bound {k}")
            found = u.bound(k)
            self.hard = u.solver.theory
            if found is None and _timed_out(u.solver.reason()):
                return None  # this bound again next round
            if found:
                return self._witness(u, k)
            if found is None:
                self.doubt = u.solver.reason()
            elif self.doubt is None and (k <= DEATH_EVERY or k & (k - 1) == 0):
                alive = u.reaches(k)
                if alive is None and _timed_out(u.solver.reason()):
                    return None
                if alive is False:
                    return Unsat("theory search: no run outlives the shorter bounds")
            if found is False:
                u._refuted(k)
            u.outlive(k)
            self.k += 1
            if self.probe is not None and self.probe <= self.k:
                self._next_probe()
        self.exhausted = True
        return None

    def _probes(self, ends: float) -> Result | None:
        while self.probe is not None and self.probe < min(MAX_STEPS, PROBE_AHEAD * self.k):
            if self.prober is None:
                self.prober = Probe(self.unroller.encoding, self.abstraction, self.unroller.encoder,
                                    self.limit, self.unroller.end, self.unroller.alive)
            p = self.prober
            stage.enter(f"theory search, probe {self.probe}")
            p._build(self.probe)
            if not self._time(p, ends):
                return None
            found = p.ask(self.probe)
            if found is None and _timed_out(p.solver.reason()):
                return None  # this probe again next round, its unrolling kept
            if found:
                return self._witness(p, self.probe)
            self._next_probe()
        return None

    def _next_probe(self) -> None:
        if self.prober is not None:
            self.prober.close()
            self.prober = None
        self.probe = 2 * max(self.probe, self.k)  # type: ignore[type-var]

    def _time(self, u: "TheoryUnroller", ends: float) -> bool:
        left = ends - time.perf_counter()
        if left <= 0:
            return False
        u.solver.set_timeout(max(1, int(1000 * left)))
        return True

    def _witness(self, u: "TheoryUnroller", k: int) -> Result:
        from ltlwit.logic.ltl.check import holds_data

        trace = u.witness(k)
        stage.enter("checking the witness")
        if holds_data(self.abstraction, trace, self.limit):
            return Sat(trace)
        return Unknown(f"internal error: the witness {trace} failed its exact check")

    def interrupt(self) -> None:
        self.unroller.interrupt()
        if self.prober is not None:
            self.prober.interrupt()

    def close(self) -> None:
        self.unroller.close()
        if self.prober is not None:
            self.prober.close()


def _timed_out(reason: str) -> bool:
    return reason in ("timeout", "canceled", "interrupted from keyboard") or "resource" in reason
