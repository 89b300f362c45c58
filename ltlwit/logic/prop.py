"""Propositional satisfiability and entailment: the witnesses of propositional formulas.

A propositional witness is a *partial* assignment that entails the formula (every completion
satisfies it), reduced to a subset-minimal one as DeepLTL does: take a SAT model of φ, take the
unsat core of ¬φ under the model's literals as assumptions, then delete literals one at a time
while ¬φ stays unsatisfiable. Entailment is monotone (a superset of an entailing assignment
entails), so a literal whose deletion failed once can never be deleted later: one pass of
deletion gives a truly subset-minimal assignment, not merely a small one.

Two backends implement the same algorithm:

* ``tseitin`` (the default, the hot path): φ is Tseitin-encoded straight into python-sat
  (MiniSat 2.2) with constant folding, one encoding per formula answers both φ and ¬φ through
  an assumption on the root literal, and the last few encodings (with a solver for
  entailment) are cached so that checking many candidate assignments of one formula costs one
  SAT call each. `solve_prop` searches on a fresh solver, so its witness depends on the
  formula alone, never on earlier calls. On the 110,354 prop35
  test formulas (one core of the 2-core dev machine): solve_prop ~9,000/s, entails on a new
  formula ~12,000/s, entails on a cached formula ~200,000/s.
* ``aiger``: the formula becomes a py-aiger circuit (:func:`to_aiger`) solved by py-aiger-sat,
  the toolchain DeepLTL names: ~600 solves/s, ~1,200 entails/s even with the
  circuit built node by node (py-aiger's own BoolExpr operators: ~100/s), too slow for checking
  neural candidates, so it is the reference the tests cross-check the fast path against.
  py-aiger and py-aiger-sat come with the aiger extra (`pip install 'ltlwit[aiger]'`; the test
  extra has them too), not with ltlwit itself: besides this backend only the aiger validator
  needs them, and they load only when one of the two is asked for.

Both are iterative: a formula 10,000 operators deep encodes without recursion.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Iterable, Literal

from pysat.solvers import Minisat22

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.budget import Budget, HardLimit, Limit, OutOfTime, Watchdog
from ltlwit.logic.formula import Formula, postorder
from ltlwit.logic.result import Sat, Unknown, Unsat

Backend = Literal["tseitin", "aiger"]

#: How many formulas keep their encoded solver alive (LRU), for repeated entailment checks.
CACHE_SIZE = 64

# A node's encoding: a DIMACS literal, or a Python bool when constant folding decided it.
_Lit = int | bool


def _require_propositional(formula: Formula) -> None:
    if formula.temporal:
        raise ValueError(f"not a propositional formula (it has temporal operators): {formula}")


class _Encoding:
    """φ Tseitin-encoded once: `clauses` define a variable for every gate, `root` is φ's
    literal (or a constant when folding decided φ), `var` maps each AP to its variable."""

    def __init__(self, formula: Formula) -> None:
        _require_propositional(formula)
        self.var: dict[str, int] = {}
        self.clauses: list[list[int]] = []
        top = 0
        lit: dict[int, _Lit] = {}
        for node in postorder(formula):
            op = node.op
            name = node.name
            if name is not None:  # an AP
                v = self.var.get(name)
                if v is None:
                    top += 1
                    v = self.var[name] = top
                lit[id(node)] = v
                continue
            if op == "1" or op == "0":
                lit[id(node)] = op == "1"
                continue
            kids = [lit[id(c)] for c in node.children]
            if op == "!":
                x = kids[0]
                lit[id(node)] = (not x) if isinstance(x, bool) else -x
                continue
            a, b = kids
            if op == "->":
                op, a = "|", ((not a) if isinstance(a, bool) else -a)
            negate = op == "<->"
            if negate:
                op = "xor"
            folded = _fold(op, a, b)
            if folded is None:
                top += 1
                _define(op, top, a, b, self.clauses)
                folded = top
            if negate:
                folded = (not folded) if isinstance(folded, bool) else -folded
            lit[id(node)] = folded
        self.root: _Lit = lit[id(formula)]
        self._checker: Minisat22 | None = None

    def solver(self, *, fresh: bool) -> Minisat22 | None:
        """A MiniSat loaded with the clauses (None when `root` is a constant).

        `fresh=True` for searches whose *result* matters (models, cores): a reused solver's
        saved phases and learnt clauses would make the witness depend on earlier calls, and
        the same formula must always get the same witness. Yes/no questions (entailment) use
        the cached solver: its answers cannot depend on history.
        """
        if isinstance(self.root, bool):
            return None
        if fresh:
            return Minisat22(bootstrap_with=self.clauses)
        if self._checker is None:
            self._checker = Minisat22(bootstrap_with=self.clauses)
        return self._checker

    def assumptions(self, values: Iterable[tuple[str, bool]]) -> list[int]:
        """DIMACS literals for an assignment; APs folded away cannot matter and are dropped."""
        var = self.var
        return [var[name] if value else -var[name] for name, value in values if name in var]

    def model(self, solver: Minisat22 | None, limit: Limit | None = None) -> list[tuple[str, bool]] | None:
        """A satisfying valuation of the APs still in the CNF, or None when φ is unsat."""
        if solver is None:
            return [] if self.root else None
        if not _solve(solver, [self.root], limit):
            return None
        model = solver.get_model()
        return [(name, model[v - 1] > 0) for name, v in self.var.items() if v <= len(model)]

    def refutes_negation(
        self, solver: Minisat22 | None, lits: list[int], limit: Limit | None = None
    ) -> list[int] | None:
        """If ¬φ ∧ lits is unsat (lits entail φ), the core among `lits`; otherwise None."""
        if solver is None:
            return [] if self.root else None
        neg_root = -self.root
        if _solve(solver, [neg_root, *lits], limit):
            return None
        return [x for x in (solver.get_core() or ()) if x != neg_root]

    def close(self) -> None:
        if self._checker is not None:
            self._checker.delete()
            self._checker = None


def _fold(op: str, a: _Lit, b: _Lit) -> _Lit | None:
    """Constant-fold `a op b` (op in & | xor); None when a fresh variable is needed."""
    ca, cb = isinstance(a, bool), isinstance(b, bool)
    if not (ca or cb):
        if a == b:
            return a if op != "xor" else False
        if a == -b:
            return {"&": False, "|": True, "xor": True}[op]
        return None
    if ca and cb:
        return {"&": a and b, "|": a or b, "xor": a != b}[op]
    const, other = (a, b) if ca else (b, a)
    if op == "&":
        return other if const else False
    if op == "|":
        return True if const else other
    return -other if const else other  # xor with a constant


def _define(op: str, v: int, a: int, b: int, clauses: list[list[int]]) -> None:
    """Clauses for v <-> (a op b), both directions: one encoding serves φ and ¬φ."""
    if op == "&":
        clauses += [[-v, a], [-v, b], [v, -a, -b]]
    elif op == "|":
        clauses += [[v, -a], [v, -b], [-v, a, b]]
    else:  # xor
        clauses += [[-v, a, b], [-v, -a, -b], [v, -a, b], [v, a, -b]]


_cache: "OrderedDict[Formula, _Encoding]" = OrderedDict()


def _encoding(formula: Formula) -> _Encoding:
    enc = _cache.get(formula)
    if enc is not None:
        _cache.move_to_end(formula)
        return enc
    enc = _Encoding(formula)
    _cache[formula] = enc
    if len(_cache) > CACHE_SIZE:
        _, old = _cache.popitem(last=False)
        old.close()
    return enc


# --- the algorithm, over either backend -------------------------------------------------


def _minimize(
    model: list[tuple[str, bool]], core_of: Callable[[list[tuple[str, bool]]], list[tuple[str, bool]] | None]
) -> Assignment:
    """Subset-minimal entailing sub-assignment of `model` (which entails φ).

    `core_of(lits)` returns a subset of `lits` that still entails φ (an unsat core of ¬φ), or
    None when `lits` does not entail φ. Deletion over the core: each literal is dropped when the
    rest still entails φ (then continue from that smaller core); a literal kept once is kept
    for good, which monotonicity of entailment makes sound (see the module docstring).
    """
    current = core_of(model)
    if current is None:
        raise AssertionError("a model of φ does not entail φ: the encoding is broken")
    for lit in list(current):
        if lit not in current:
            continue
        trial = [x for x in current if x != lit]
        core = core_of(trial)
        if core is not None:
            current = core
    return Assignment.of(current)


def _check_aps(assignment: Assignment, formula: Formula) -> None:
    extra = sorted(set(assignment.aps()) - set(formula.aps()))
    if extra:
        names = ", ".join(extra)
        raise ValueError(f"the assignment names {names}, which the formula does not mention")


def _solve(solver: Minisat22, assumptions: list[int], limit: Limit | None) -> bool:
    """One SAT call; with a `limit`, interruptible by its watchdog (`HardLimit` then)."""
    if limit is None:
        return solver.solve(assumptions=assumptions)
    result = solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    if result is None:
        limit.check_time()
        raise OutOfTime("time budget exhausted")
    return result


def solve_prop(
    formula: Formula, budget: Budget | None = None, *, backend: Backend = "tseitin"
) -> Sat | Unsat | Unknown:
    """Sat(subset-minimal partial Assignment) or Unsat("sat-solver"); Unknown when `budget`'s
    deadline or memory ceiling is reached first (a watchdog interrupts the SAT calls).

    A tautology is answered with the empty assignment: nothing needs fixing. ValueError for a
    formula with temporal operators.
    """
    if backend == "aiger":
        return _solve_aiger(formula)
    limit = Limit(budget) if budget is not None else None
    enc = _encoding(formula)
    solver = enc.solver(fresh=True)
    try:
        if limit is None or solver is None:
            return _solve_with(enc, solver, None)
        with Watchdog(limit, solver.interrupt):
            return _solve_with(enc, solver, limit)
    except HardLimit as exc:
        return Unknown(str(exc))
    finally:
        if solver is not None:
            solver.delete()


def _solve_with(enc: _Encoding, solver: Minisat22 | None, limit: Limit | None) -> Sat | Unsat:
    model = enc.model(solver, limit)
    if model is None:
        return Unsat("sat-solver")
    names = {v: name for name, v in enc.var.items()}

    def core_of(values: list[tuple[str, bool]]) -> list[tuple[str, bool]] | None:
        core = enc.refutes_negation(solver, enc.assumptions(values), limit)
        return None if core is None else [(names[abs(x)], x > 0) for x in core]

    return Sat(_minimize(model, core_of))


def entails(assignment: Assignment, formula: Formula, *, backend: Backend = "tseitin") -> bool:
    """Whether every completion of `assignment` satisfies `formula` (¬φ ∧ assignment unsat).

    This is the check a propositional witness must pass. ValueError when the assignment names
    an AP the formula does not mention (a witness for another formula, most likely a renaming
    bug upstream), or when the formula is temporal.
    """
    _check_aps(assignment, formula)
    if backend == "aiger":
        _require_propositional(formula)
        return not _aiger_solver(to_aiger(formula, negate=True)).is_sat(assignment.as_dict())
    enc = _encoding(formula)
    return enc.refutes_negation(enc.solver(fresh=False), enc.assumptions(assignment.values)) is not None


# --- py-aiger backend ---------------------------------------------------------------------


def to_aiger(formula: Formula, *, negate: bool = False):  # -> aiger.BoolExpr (lazy import)
    """The formula (or its negation) as a py-aiger expression, built gate by gate in one
    iterative pass.

    Going through BoolExpr's operators would re-compose whole circuits at every node
    (quadratic, and recursive inside py-aiger); building the AIG nodes directly is linear.
    Every node is hashed as soon as it is built, children first, so py-aiger's cached hashes
    never recurse; for the same reason negate here rather than with BoolExpr's `~`, which
    rebuilds the circuit top-down.
    """
    aiger = _reference_backend("aiger")
    from aiger.aig import AIG, ConstFalse, Input, Node

    _require_propositional(formula)
    false = ConstFalse()
    gate: dict[int, Node] = {}
    for node in postorder(formula):
        op = node.op
        if op == "ap":
            g = Input(node.name)
        elif op in ("1", "0"):
            g = ~false if op == "1" else false
        else:
            kids = [gate[id(c)] for c in node.children]
            if op == "!":
                g = ~kids[0]
            else:
                a, b = kids
                if op == "&":
                    g = a & b
                elif op == "|":
                    g = ~(~a & ~b)
                elif op == "->":
                    g = ~(a & ~b)
                else:
                    same = ~(a & ~b) & ~(~a & b)
                    g = same if op == "<->" else ~same
        hash(g)
        gate[id(node)] = g
    root = gate[id(formula)]
    circuit = AIG(inputs=frozenset(formula.aps()), node_map={"out": ~root if negate else root})
    return aiger.BoolExpr(circuit)


def _reference_backend(module: str):  # -> the module
    """py-aiger (`aiger`) or py-aiger-sat (`aiger_sat`), or an ImportError that says how to get
    them: they are test dependencies, not ltlwit's own."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"backend='aiger' needs py-aiger and py-aiger-sat (pip install 'ltlwit[aiger]'): {exc}"
        ) from exc


def _aiger_solver(expr):
    aiger_sat = _reference_backend("aiger_sat")

    solver = aiger_sat.SolverWrapper(Minisat22())
    solver.add_expr(expr)
    return solver


def _solve_aiger(formula: Formula) -> Sat | Unsat:
    positive = _aiger_solver(to_aiger(formula))
    if not positive.is_sat():
        return Unsat("sat-solver")
    model = sorted(positive.get_model().items())
    negative = _aiger_solver(to_aiger(formula, negate=True))

    def core_of(values: list[tuple[str, bool]]) -> list[tuple[str, bool]] | None:
        if negative.is_sat(dict(values)):
            return None
        return sorted(negative.get_unsat_core().items())

    return Sat(_minimize(model, core_of))
