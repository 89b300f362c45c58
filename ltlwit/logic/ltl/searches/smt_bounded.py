"""The bounded search with a theory: the engine's bounded lasso search (`bounded`) copying
the step encoding into z3 instead of MiniSat, each atom's proposition bound to its comparison
over the values at the instants it reads (`x@i`, `x@(i+1)` for `next(x)`), as BLACK's encoding
of LTLf modulo theories does (`ltl.data` runs it).

`TheoryUnroller` is `Unroller` over z3 (`Z3Clauses`: the part of python-sat's interface it
uses); `Bounded` asks for a model of exactly k instants, k = 1, 2, ..., each refuted bound
making instant k exist for good, proves unsatisfiability when no run outlives the bounds
refuted, and on finite traces probes far ahead (`Probe`: one exact length in a problem of its
own, after Boolean unit propagation).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ltlwit.logic import stage
from ltlwit.logic.budget import Limit, OutOfTime
from ltlwit.logic.formula import TRUE, And, Not, ap
from ltlwit.logic.ltl.encoding.xnf import Step
from ltlwit.logic.ltl.searches.bounded import Unroller
from ltlwit.logic.result import Result, Sat, Unknown, Unsat, WitnessRejected
from ltlwit.logic.theory.abstraction import Abstraction
from ltlwit.logic.theory.evaluate import table_atoms, value_atom
from ltlwit.logic.theory.terms import reads
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:  # loaded with the search that mirrors its clauses
    from pysat.solvers import Solver

#: Lengths the bounded search tries at most (BLACK's suite has models of 1,600 instants).
MAX_STEPS = 100_000
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
#: A death question's time at most: this share of the search's time so far, and this many
#: seconds more (an unanswered question only delays a proof: the next one asks again).
DEATH_SHARE = 0.5
DEATH_FLOOR = 0.05
UNDECIDED = "undecided: the logic is undecidable and no bound proves it"
#: SMT-LIB text handed to z3 at once at most (`Z3Clauses.flush`).
FLUSH_CHARS = 400_000


class Z3Clauses:
    """The part of python-sat's solver interface the bounded search uses, over z3: a theory
    search copies the steps with `Unroller`'s own code and adds the atoms' meaning beside.
    Clauses are buffered and handed to z3 as SMT-LIB text before each check: one z3 API call
    per clause cost 0.4 ms, most of the search's time on BLACK's long counters."""

    def __init__(self, encoder, limit: Limit, mirror: bool = False) -> None:
        import z3

        self.z3 = z3
        self.encoder = encoder
        self.limit = limit
        self.solver = z3.Solver(ctx=encoder.ctx)
        #: The same clauses in MiniSat, without the comparisons' meaning (`abstract`)
        self.abstract: Solver | None = None
        if mirror:
            from pysat.solvers import Solver

            from ltlwit.logic.ltl.encoding.xnf import SOLVER

            self.abstract = Solver(name=SOLVER)
        self._bools: dict[int, object] = {}
        self._declared = 0  # variables 1.._declared are declared to z3's parser
        self._pending: list[str] = []
        self._symbols: set[str] = set()  # data symbols declared to this solver's parser
        self._model = None
        self._timeout: int | None = None
        self.theory = False  # the last check needed z3 (the clauses alone did not refute it)

    def z3_bool(self, v: int):
        """Variable v as z3's Boolean."""
        found = self._bools.get(v)
        if found is None:
            found = self._bools[v] = self.z3.Bool(f"b{v}", self.encoder.ctx)
        return found

    def literal(self, x: int):
        return self.z3_bool(x) if x > 0 else self.z3.Not(self.z3_bool(-x))

    def add_clause(self, clause: list[int]) -> None:
        if self.abstract is not None:
            self.abstract.add_clause(clause)
        self._declare(max(abs(x) for x in clause) if clause else 0)
        lits = " ".join(f"b{x}" if x > 0 else f"(not b{-x})" for x in clause)
        self._pending.append(f"(assert (or {lits}))" if len(clause) != 1 else f"(assert {lits})")

    def define(self, var: int, text: str) -> None:
        """`b{var}` stands for the SMT-LIB Boolean `text`."""
        self._declare(var)
        self.assert_text(f"(= b{var} {text})")

    def assert_text(self, text: str) -> None:
        """Assert SMT-LIB `text` written by the encoder (`Encoder.smtlib`), its symbols declared
        to this solver's parser first where they are new to it."""
        enc = self.encoder
        for symbol in enc.used:
            if symbol not in self._symbols:
                self._symbols.add(symbol)
                self._pending.append(enc.declarations[symbol])
        enc.used.clear()
        self._pending.append(f"(assert {text})")

    def _declare(self, top: int) -> None:
        if top > self._declared:
            self._pending.extend(f"(declare-const b{v} Bool)" for v in range(self._declared + 1, top + 1))
            self._declared = top

    def set_timeout(self, ms: int) -> None:
        self._timeout = ms
        self.solver.set("timeout", ms)

    def _arm(self) -> None:
        """z3 counts its timeout from the check on, and a question's problem may take seconds
        to pose after it was set (a probe handed to a fresh solver: a second on 256 steps of
        BLACK's LRA counters): the check never runs past the deadline. (The round's time is
        not cut by the posing: a problem kept from round to round is then never asked.)"""
        self.limit.check_time()
        if self._timeout is not None:
            left = min(self._timeout / 1000, self.limit.remaining())
            self.solver.set("timeout", max(1, int(1000 * left)))

    def flush(self) -> None:
        """Hand the pending text to z3 in pieces of about `FLUSH_CHARS` characters, reading the
        deadline between them: z3 parses 6-9 MB a second, and a probe of 316 steps of EUF
        counters is 7 MB, a second no interrupt reaches."""
        pending, self._pending = self._pending, []
        piece: list[str] = []
        size = 0
        for text in pending:
            piece.append(text)
            size += len(text)
            if size >= FLUSH_CHARS:
                self.limit.check_time()
                self.solver.from_string("".join(piece))
                piece, size = [], 0
        if piece:
            self.limit.check_time()
            self.solver.from_string("".join(piece))

    def check(self, assumptions: list[int]) -> bool | None:
        """Satisfiable under the assumptions; None when z3 does not know (interrupted, or an
        incomplete theory: `reason`). Where the clauses alone (MiniSat's, no theory) refute
        the assumptions, z3 is not asked: the X chains of BLACK's suite (`X X ... X wX
        False`: a model of exactly 150 instants) refute every shorter bound this way, in a
        millisecond each."""
        self.theory = False
        if self.refuted(assumptions):
            return False
        self.theory = True
        self.flush()
        self._model = None
        self._arm()
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
        return self.z3.is_true(self.model.eval(self.z3_bool(v), model_completion=True))

    def refuted(self, assumptions: list[int]) -> bool:
        """Whether the clauses alone refute the assumptions (MiniSat, interruptible: an
        interrupted call refutes nothing, and z3, interrupted too, says so next); never
        without the mirror."""
        if self.abstract is None:
            return False
        return self.abstract.solve_limited(assumptions=assumptions, expect_interrupt=True) is False

    def interrupt(self) -> None:
        self.encoder.interrupt()
        if self.abstract is not None:
            self.abstract.interrupt()

    def delete(self) -> None:
        self.solver = None
        if self.abstract is not None:
            self.abstract.delete()
            self.abstract = None


class TheoryUnroller(Unroller):
    """`Unroller` over z3 with each atom's proposition bound to its comparison at each step
    (module docstring). Driven bound by bound by `Bounded`, not by `Unroller.advance`: z3 has
    no propagation budget, and a refutation here may also prove unsatisfiability."""

    solver: Z3Clauses

    def __init__(
        self, encoding: Step, abstraction: Abstraction, encoder, limit: Limit, end: int | None, alive: str | None = None
    ) -> None:
        self.encoder = encoder
        self.alive = alive  # the finite-trace translation's proposition, not the user's
        self.abstraction = abstraction
        self.theory = [(encoding.aps[n], a) for n, a in abstraction.atoms.items() if n in encoding.aps]
        reach = [d for _, a in self.theory for d in reads(a)]
        self.ahead = max([0, *reach])
        super().__init__(encoding, limit, max_steps=MAX_STEPS, end=end, shortest=1)

    def _new_solver(self) -> Z3Clauses:
        return Z3Clauses(self.encoder, self.limit, mirror=True)

    def add_step(self) -> None:
        super().add_step()
        i = self.steps - 1
        self.limit.check_time()
        for v, a in self.theory:
            self._define(self.lit(i, v), a, i)

    def _define(self, var: int, a, at: int) -> None:
        """Proposition `var` stands for the comparison `a` at instant `at` (as text where it
        can: `Encoder.smtlib`)."""
        s = self.solver
        text = self.encoder.smtlib(a, at)
        if text is None:
            s.solver.add(s.z3_bool(var) == self.encoder.atom(a, at))
        else:
            s.define(var, text)

    def _loop(self, k: int) -> tuple[int, list[int]]:
        """`Unroller._loop`, and on a lasso (no `end`) the values closed under each loop
        selector (`later_passes`)."""
        act, loops = super()._loop(k)
        if self.end is not None:
            return act, loops
        z3 = self.solver.z3
        names = [n for n, sort in self.abstraction.signature.variables.items() if sort.name != "Bool"]
        for l, sel in enumerate(loops):
            closed = [
                self.encoder.var(n, k + j) == self.encoder.var(n, l + j - 1)
                for n in names
                for j in range(1, self.ahead + 1)
            ]
            for v, a in self.theory:
                for at, step, where in later_passes(a, l, k):
                    closed.append(self.solver.z3_bool(self.lit(step, v)) == self.encoder.atom(a, at, where))
            if closed:
                self.solver.solver.add(z3.Implies(self.solver.z3_bool(sel), z3.And(*closed)))
        return act, loops

    def bound(self, k: int, alive: range = range(0)) -> bool | None:
        """Whether a model closes at bound k (module docstring), with the instants `alive`
        existing; None: z3 does not know."""
        return self._check(self._asked_at(k, alive))

    def possible(self, k: int) -> bool:
        """Whether the clauses alone (MiniSat's, no theory) allow bound k."""
        asked = self._asked_at(k, range(0))
        return not any(x is False for x in asked) and not self.solver.refuted(asked)

    def _asked_at(self, k: int, alive: range) -> list:
        self._build(k)
        act, _ = self._loops[k]
        extra = [self.lit(j, -self.end) for j in alive] if self.end is not None else []
        return [self.lit(0, e) for e in self.initial if e is not True] + [act] + extra

    def reaches(self, k: int) -> bool | None:
        """Whether some run reaches step k (on finite traces: with step k alive, so a model
        would have more than k instants); False proves every model shorter."""
        self._build(k)
        extra = [] if self.end is None else [-self.end]
        assumptions = [self.lit(0, e) for e in self.initial if e is not True] + [self.lit(k, x) for x in extra]
        return self._check(assumptions)

    def outlive(self, k: int) -> None:
        """Bound k is done with: every model asked for from now on has more than k instants,
        so step k is alive for good (BLACK's `not_last`), and the later bounds' guarded
        comparisons hold outright there instead of being decided anew in every check."""
        if self.end is not None:
            self._build(k)
            self.solver.add_clause([self.lit(k, -self.end)])

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
            lits = [ap(n) if s.true(self.lit(i, v)) else Not(ap(n)) for n, v in props]
            values = [value_atom(n, self.encoder.value(model, self.encoder.var(n, i)), sort) for n, sort in data]
            steps.append(lits + values)
        formulas = tuple(And(*st) if st else TRUE for st in steps)
        trace = Trace(formulas, ()) if self.end is not None else Trace(formulas[:loop], formulas[loop:])
        return with_tables(trace, self.abstraction, self.encoder.table_reader(model))

    def close(self) -> None:
        self.solver.delete()


def later_passes(a, loop: int, last: int):
    """Where a lasso's loop (steps `loop`..`last`) makes the atom `a` read other values than on
    its first pass: (an instant of a later pass, the step it is at, where each instant it reads
    is held). The letters are the steps', the same in every pass, so the atom must hold alike
    there; past its lookback (`evaluate.lookback`: how far back it reads, `pre` included) every
    pass reads the loop's own steps, as the one after it. The first pass is the step's own
    instant (the unrolling's encoding), and `Encoder.atom` decides a `pre` at the instant
    given, so a later pass is never its first instant."""
    from ltlwit.logic.theory.evaluate import lookback
    from ltlwit.logic.theory.terms import horizon

    back = max(lookback(a), horizon(a))  # below its horizon a `pre` reads its init
    if not back:
        return
    period = last + 1 - loop

    def held(p: int) -> int:
        return p if p < loop else loop + (p - loop) % period

    for m in range(1, -(-back // period) + 1):
        for j in range(min(period, back)):
            yield loop + j + m * period, loop + j, held


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

    solver: Recorded

    def _new_solver(self) -> "Recorded":
        return Recorded(self.encoder, self.limit)

    def _define(self, var: int, a, at: int) -> None:
        self.solver.definitions.append((var, a, at))

    def ask(self, k: int) -> bool | None:
        """Whether a model of exactly k instants exists (None: z3 does not know); asked again
        after a timeout, the same problem in a fresh solver."""
        asked = self._asked_at(k, range(k))
        if any(x is False for x in asked):
            return False
        if not self.solver.posed and not self.solver.pose(asked, k):
            return False
        return self._check([])


class Recorded(Z3Clauses):
    """A probe's clauses and definitions, kept until the question is known (`Probe`)."""

    def __init__(self, encoder, limit: Limit) -> None:
        super().__init__(encoder, limit)
        self.clauses: list[list[int]] = []
        self.definitions: list[tuple[int, object, int]] = []
        self.fixed: dict[int, bool] = {}
        self.posed = None  # the problem z3 is asked (`pose`)
        self.checks = 0

    def add_clause(self, clause: list[int]) -> None:
        self.clauses.append(clause)

    def pose(self, units: list[int], k: int) -> bool:
        """The problem of exactly k instants under `units` for z3 (module docstring of `Probe`);
        False when unit propagation, with the values the equalities force (`theory.forced`),
        refutes it. The comparisons at step k, past the end, are left out: no instant is
        there, and the formula reads nothing of it (a quotient by a value not forced there
        made the whole problem non-linear, and z3's non-linear procedure took 15 s where its
        linear one takes 0.2: BLACK's `x > 2.0 - 1.0 / c`, every value of c forced)."""
        from pysat.solvers import Solver

        from ltlwit.logic.ltl.encoding.xnf import SOLVER
        from ltlwit.logic.theory.forced import Forced

        forced = Forced(self.encoder.sig)
        with Solver(name=SOLVER, bootstrap_with=self.clauses) as sat:
            decided = self._propagate(sat, list(units), forced)
        if decided is None:
            return False
        z3, enc, fixed = self.z3, self.encoder, self.fixed
        posed = []
        for n, (var, a, at) in enumerate(self.definitions):
            if not n & 255:
                self.limit.check_time()  # 140 comparisons a step over 256 steps: seconds
            if n in decided or at >= k:
                continue  # the values below decide it, or no instant is there
            value = fixed.get(var)
            text = enc.smtlib(a, at, forced.states)
            if text is None:
                e = enc.atom(a, at, known=forced.states)
                posed.append(self.z3_bool(var) == e if value is None else e if value else z3.Not(e))
            elif value is None:
                self.define(var, text)
            else:
                self.assert_text(text if value else f"(not {text})")
        for at, values in forced.states.items():
            for name, v in values.items():
                text = enc.fact(name, at, v)
                if text is None:
                    posed.append(enc.var(name, at) == enc.constant(v, enc.sig.variables[name]))
                else:
                    self.assert_text(text)
        for (name, args), v in forced.tables.items():
            sorts, result = enc.sig.functions[(name, len(args))]
            f = enc.function(name, len(args))
            posed.append(f(*(enc.constant(x, s) for x, s in zip(args, sorts))) == enc.constant(v, result))
        for clause in self.clauses:
            if any(fixed.get(abs(x)) == (x > 0) for x in clause):
                continue
            rest = [x for x in clause if abs(x) not in fixed]
            super().add_clause(rest)
        self.flush()
        self.solver.add(*posed)
        self.posed = self.solver.assertions()
        return True

    def _propagate(self, sat, units: list[int], forced) -> set[int] | None:
        """Unit propagation and the values it forces, to a fixpoint: `fixed` set, and the
        definitions the values decide returned; None on a conflict."""
        from collections import defaultdict, deque

        defs = self.definitions
        reading: dict[tuple, list[int]] = defaultdict(list)
        of_var: dict[int, list[int]] = defaultdict(list)
        keys = []
        for n, (var, a, at) in enumerate(defs):
            if not n & 1023:
                self.limit.check_time()
            of_var[var].append(n)
            keys.append(forced.keys(a, at))
            for key in keys[n]:
                reading[key].append(n)
        queue = deque(range(len(defs)))
        decided: set[int] = set()
        fixed: dict[int, bool] = {}
        while True:
            ok, implied = sat.propagate(assumptions=units)
            if not ok:
                return None
            now = {abs(x): x > 0 for x in implied}
            queue.extend(n for v in now.keys() - fixed.keys() for n in of_var.get(v, ()))
            fixed = self.fixed = now
            new = []
            steps = 0
            while queue:
                steps += 1
                if not steps & 1023:
                    self.limit.check_time()
                n = queue.popleft()
                if n in decided:
                    continue
                var, a, at = defs[n]
                value = forced.decide(a, at) if all(forced.known(k) for k in keys[n]) else None
                if value is not None:
                    decided.add(n)
                    held = fixed.get(var)
                    if held is None:
                        fixed[var] = value
                        new.append(var if value else -var)
                    elif held != value:
                        return None
                    continue
                held = fixed.get(var)
                if held is not None:
                    learnt = forced.learn(a, at, held)
                    if learnt is not None:
                        queue.extend(reading.get(learnt, ()))
            if not new:
                return decided
            units += new

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
        self.exact: Probe | None = None  # the bound asked as a probe is (`_exact`)
        self.hard = False  # the last bound needed z3 (`advance`)
        self.started = time.perf_counter()
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
            asker: TheoryUnroller
            if self.probe is not None and not self.hard and k >= PROBE and u.possible(k):
                # a bound the clauses allow after bounds they refuted (the length an `X` chain
                # demands: BLACK's EUF counters): asked as a probe is, in a problem of its own
                found, asker = self._exact(k)
                self.hard = True
            else:
                found, asker = u.bound(k), u
                self.hard = u.solver.theory
            if found is None and _timed_out(asker.solver.reason()):
                return None  # this bound again next round
            if found:
                return self._witness(asker, k)
            if found is None:
                self.doubt = asker.solver.reason()
            elif self.doubt is None and (k <= DEATH_EVERY or k & (k - 1) == 0 and self.hard):
                # a question whose run z3 must build in full (a satisfiable prefix of EUF
                # counters: seconds) gets at most a share of the search's time so far; past
                # the first bounds, only where the bounds need z3 (where the clauses refute
                # them, as below the length an `X` chain demands, runs of that length are
                # what the formula asks for, and z3, building one, may take seconds to heed
                # an interrupt: 256 steps of BLACK's EUF counters, 9 s past its timeout)
                began = time.perf_counter()
                cap = DEATH_SHARE * (began - self.started) + DEATH_FLOOR
                u.solver.set_timeout(max(1, int(1000 * min(cap, ends - began))))
                alive = u.reaches(k)
                if alive is None and ends <= time.perf_counter():
                    return None  # the round's time is up: this bound again next round
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

    def _new_probe(self) -> Probe:
        """An unroller of its own over the main search's encoding and encoder."""
        u = self.unroller
        return Probe(u.encoding, self.abstraction, u.encoder, self.limit, u.end, u.alive)

    def _exact(self, k: int) -> tuple[bool | None, Probe]:
        """Bound k as a `Probe` (kept, unrolled, when it runs out of the round's time): its
        answer, and the probe."""
        exact = self.exact
        if exact is None or exact.steps <= k - 1 or k not in exact._loops:
            if exact is not None:
                exact.close()
            exact = self.exact = self._new_probe()
        exact._build(k)
        exact.solver.set_timeout(self.unroller.solver._timeout or 1)
        return exact.ask(k), exact

    def _probes(self, ends: float) -> Result | None:
        while self.probe is not None and self.probe < min(MAX_STEPS, PROBE_AHEAD * self.k):
            if self.prober is None:
                self.prober = self._new_probe()
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
        if self.probe is not None:
            self.probe = 2 * max(self.probe, self.k)

    def _time(self, u: "TheoryUnroller", ends: float) -> bool:
        left = ends - time.perf_counter()
        if left <= 0:
            return False
        u.solver.set_timeout(max(1, int(1000 * left)))
        return True

    def _witness(self, u: "TheoryUnroller", k: int) -> Result:
        from ltlwit.logic.ltl.check import holds_data
        from ltlwit.logic.theory.smt import Irrational

        try:
            trace = u.witness(k)
        except Irrational as e:
            return Unknown(str(e))
        stage.enter("checking the witness")
        if holds_data(self.abstraction, trace, self.limit):
            return Sat(trace)
        raise WitnessRejected.of(self.abstraction.formula, trace)

    def interrupt(self) -> None:
        self.unroller.interrupt()
        for other in (self.prober, self.exact):
            if other is not None:
                other.interrupt()

    def close(self) -> None:
        self.unroller.close()
        for other in (self.prober, self.exact):
            if other is not None:
                other.close()


def _timed_out(reason: str) -> bool:
    return reason in ("timeout", "canceled", "interrupted from keyboard") or "resource" in reason
