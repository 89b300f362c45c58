"""The abstraction refined by the theory (`ltl.data` runs it): the engine's own portfolio
(k-liveness, the explicit search, the bounded search) decides the Boolean abstraction with the
lemmas learned so far; unsatisfiable means unsatisfiable (every model of the formula is one of
the abstraction, and lemmas are theory facts); a witness of it is given values by z3 instant by
instant, and where none exist, the unsatisfiable core of its comparisons becomes a lemma that
forbids that pattern of atoms at every instant (`G !(a & X b)`), or, where only rigid symbols
tie its instants together, anywhere in the trace (`!(F a & F b)`). This proves what no bound
can: `G(x > 0) & F(x < 0)`, or `x > 3 & G(wnext(x) >= x) & F(x < 2)` by the inductive lemma
`G !(x > 3 & wnext(x) >= x & X(x <= 3))`.
"""

from __future__ import annotations

import time

from ltlwit.logic import stage
from ltlwit.logic.budget import Budget, Limit
from ltlwit.logic.formula import TRUE, And, Formula, Not, ap
from ltlwit.logic.ltl.searches.smt_bounded import _timed_out, later_passes, with_tables
from ltlwit.logic.result import Result, Sat, Unknown, Unsat, WitnessRejected
from ltlwit.logic.theory.abstraction import Abstraction
from ltlwit.logic.theory.evaluate import value_atom
from ltlwit.logic.theory.terms import has_pre, reads
from ltlwit.logic.trace import Trace


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
            from ltlwit.logic.theory.smt import Irrational

            witness = result.witness
            assert isinstance(witness, Trace)  # the engine's witnesses are traces, a propositional one's too
            try:
                found = self._concretise(witness, limit, left)
            except Irrational as e:
                return Unknown(str(e))
            if isinstance(found, Trace):
                from ltlwit.logic.ltl.check import holds_data

                stage.enter("checking the witness")
                if holds_data(self.abstraction, found, limit):
                    return Sat(found)
                raise WitnessRejected.of(self.abstraction.formula, found)
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

    def _z3(self, f: Formula, at: int, where=None, letters: int | None = None):
        """A propositional step formula at instant `at`: atoms' propositions as their
        comparisons there (their instants mapped by `where`, as `Encoder.atom`'s), other
        propositions as z3 Booleans of the step `letters` (default: `at`)."""
        import z3

        enc = self.encoder
        atoms = self.abstraction.atoms
        done: dict[Formula, object] = {}
        from ltlwit.logic.formula import postorder

        for node in postorder(f):
            op = node.op
            if node.name is not None:  # an AP
                a = atoms.get(node.name)
                done[node] = (
                    enc.atom(a, at, where)
                    if a is not None
                    else z3.Bool(f"{node.name}@{at if letters is None else letters}", enc.ctx)
                )
            elif op in ("1", "0"):
                done[node] = z3.BoolVal(op == "1", enc.ctx)
            else:
                k = [done[c] for c in node.children]
                done[node] = (
                    z3.Not(k[0])
                    if op == "!"
                    else z3.And(*k)
                    if op == "&"
                    else z3.Or(*k)
                    if op == "|"
                    else z3.Implies(*k)
                    if op == "->"
                    else k[0] == k[1]
                    if op == "<->"
                    else k[0] != k[1]
                )
        return done[f]

    def _closure(self, trace: Trace) -> list:
        """A lasso's values closed, as `TheoryUnroller._loop` closes them: the instants after
        the last step are the loop's, and each step's comparisons hold alike in the loop's
        later passes (`later_passes`)."""
        enc = self.encoder
        sig = self.abstraction.signature
        atoms = self.abstraction.atoms
        loop, last = len(trace.prefix), len(trace.steps) - 1
        ahead = max([0, *(d for r in self._atoms_read.values() for d in r)])
        closed = [
            enc.var(n, last + j) == enc.var(n, loop + j - 1)
            for n, sort in sig.variables.items()
            if sort.name != "Bool"
            for j in range(1, ahead + 1)
        ]
        for step in range(loop, last + 1):
            for part in _parts(trace.steps[step]):
                for a in {atoms[n] for n in part.aps() if n in atoms}:
                    for at, held_step, held in later_passes(a, loop, last):
                        if held_step == step:
                            closed.append(self._z3(part, at, held, letters=step))
        return closed

    def _lemma(self, core: list[tuple[int, Formula]]) -> Formula:
        """The core's pattern forbidden: at every instant where its instants are linked by the
        values they read (one window), or anywhere in the trace where only rigid functions
        link them (several windows). A core with a `pre` (whose meaning depends on the first
        instant) is forbidden where it was found, at those instants only."""
        atoms = self.abstraction.atoms
        if any(has_pre(atoms[n]) for _, part in core for n in part.aps() if n in atoms):
            by_instant: dict[int, list[Formula]] = {}
            for i, part in core:
                by_instant.setdefault(i, []).append(part)
            return Not(_shifted(by_instant))
        reads = {}
        for i, part in core:
            touched: set[int] = set()
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
            values = [
                value_atom(n, enc.value(model, enc.var(n, i)), sort)
                for n, sort in sig.variables.items()
                if sort.name != "Bool"
            ]
            steps.append(And(*lits, *values) if lits or values else TRUE)
        out = (
            Trace(tuple(steps), ())
            if trace.finite
            else Trace(tuple(steps[: len(trace.prefix)]), tuple(steps[len(trace.prefix) :]))
        )
        return with_tables(out, self.abstraction, enc.table_reader(model))


def _shifted(by_offset: dict[int, list[Formula]]) -> Formula:
    """`p0 & X(p1 & X(... ))` for the parts at each offset from the window's first instant
    (`X^d` of nothing where an offset has no part)."""
    pattern = And(*by_offset.get(max(by_offset), []))
    for d in range(max(by_offset) - 1, -1, -1):
        pattern = And(*by_offset.get(d, []), Formula("X", (pattern,)))
    return pattern


def _parts(step: Formula) -> list[Formula]:
    from ltlwit.logic.formula import conjuncts

    return conjuncts(step) or [TRUE]


def _instants(a) -> tuple[int, ...]:
    """The instants an atom may read, relative to its own (`terms.reads`)."""
    return tuple(sorted(reads(a)))
