"""A second opinion on witnesses, from py-aiger circuits and a SAT solver (py-aiger-sat).

It shares nothing with the builtin checker (`ltlwit.logic.ltl.check`, its finite-trace
translation) but the parsed formula and witness, so that a bug there cannot hide here.
py-aiger and py-aiger-sat load on the first call (`pip install 'ltlwit[aiger]'`).

An assignment witnesses a propositional formula when it entails it: ¬φ's circuit under the
assignment's literals is unsatisfiable (`prop.entails`'s aiger backend).

A trace witnesses an LTL formula when every word matching it (each letter satisfies its step)
satisfies the formula. The words become a combinational circuit: one input per AP and position
of the word, each position's step a constraint on its inputs, and φ evaluated over the positions
(`_evaluate`). "Steps" alone unsatisfiable: some step is, the trace denotes no word and is never
a witness (the builtin's rule). Otherwise a model of "steps ∧ ¬φ" is a concrete counterexample
word, and there is none when the query is unsatisfiable.

* A finite trace of n steps is the finite word of n letters: past operators run forwards from
  position 0, future ones backwards from the end, where what lies beyond it is false for the
  strong operators (X, and the least fixpoints U M F) and true for the weak ones (wX, and the
  greatest fixpoints R W G). Exact.
* A lasso: the circuit's word is a prefix of s letters then a loop of L letters repeated
  forever. A least fixpoint (`a U b`: z = b | (a & X z)) is true at a loop position when b
  holds within one turn of the loop along a-positions, so a chain seeded with false beyond the
  loop's last position and run twice around the loop (the second time seeded with the first
  pass's value at the loop's start) is exact on the loop; the prefix follows backwards from
  there. Greatest fixpoints the same way from true. Past operators see a lasso position's
  genuine past only when the loop is unrolled: a subformula of past depth d repeats with the
  loop from s + d·L on (each past operator delays periodicity by at most one turn, see
  tests/ltl_reference.py's `satisfies`), so φ is evaluated on the lasso with d copies of the
  loop moved into the prefix: the positions after its end fold onto the last copy, where every
  subformula already repeats, and past operators run forwards through genuine predecessors.

Which words a query covers: a lasso's inputs give one letter per position of the circuit's
word, so a query ranges over the words of one *shape*: the trace's prefix plus `a` turns of its
cycle, then `k` turns of the cycle as the loop. A matching word may choose other letters at
each turn, and some formulas are refuted only by such words: `cycle{1}` does not witness
`!(GFa & GF!a)`, only words that alternate a and !a show it. Deciding this in general is as
hard as LTL validity (`cycle{1}` asks exactly that), so no fixed unrolling is exact. Hence three
steps, each sound:

1. The trace's own shape (a = 0, k = 1): a model is a counterexample.
2. None: a three-valued proof (`_Query.proves`). Each subformula gets two rails, "holds" and
   "fails" (`Rails`). Prefix positions keep their input letters (each stands for one instant);
   at a loop position a maximal propositional subformula holds when the step entails it, fails
   when the step entails its negation, and is unknown otherwise (two SAT calls each), and the
   temporal operators combine rails by Kleene's rules with the same fixpoints (the dual one on
   the "fails" rail). A value at a loop position is then true of every instant it stands for
   in every matching word, so "holds at 0" for every prefix (an unsatisfiable SAT query) is a
   proof. Exact when the loop's steps fix every AP of φ (the rails are each other's negation).
3. Not proved either: the larger shapes of `SHAPES` (each covers those with fewer prefix turns
   and a loop dividing its own). A counterexample there is one; without one the answer is
   "valid" up to that bound only (`Validation.exact` False). Witnesses of 300 ltl35 formulas,
   the engine's and Spot's: 591 of 600 proved in step 2, 9 bounded.
"""

from __future__ import annotations

from itertools import chain
from types import ModuleType
from typing import Any, Callable

from ltlwit.logic import SEMANTICS
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.budget import Watchdog, check_deadline, scope_limit
from ltlwit.logic.formula import PAST, WEAK_NEXT, Formula, postorder
from ltlwit.logic.trace import Trace
from ltlwit.logic.validators import Validation
from ltlwit.logic.witness import Witness

#: (extra prefix turns of the cycle, turns of the cycle in the loop) of the words each query
#: covers, in order: the trace's own shape, then loops of 2 and 12 turns (every period of 1, 2,
#: 3, 4, 6 or 12 turns, after up to 2 turns).
SHAPES = ((0, 1), (1, 2), (2, 12))

#: A py-aiger AIG node (the package loads lazily).
Node = Any
#: A subformula's value at a position as two nodes: (holds, fails). On a word of input letters
#: they are each other's negation; the three-valued evaluation of `_Query.proves` has positions
#: where neither is true (unknown).
Rails = tuple[Node, Node]

#: Fixpoint operators: (disjunctive, least). Disjunctive: z = b | (a & next z), otherwise
#: z = b & (a | next z), `next` the successor for future operators and the predecessor for past
#: ones; least: false beyond the word's ends (a loop has none), greatest: true.
_FIXPOINTS = {
    "U": (True, True),
    "F": (True, True),
    "S": (True, True),
    "O": (True, True),
    "R": (False, False),
    "G": (False, False),
    "T": (False, False),
    "H": (False, False),
    "W": (True, False),
    "M": (False, True),
}


def holds(formula: Formula, witness: Witness, semantics: str = "infinite") -> Validation:
    """Whether `witness` witnesses `formula`, with a counterexample word when it does not.

    The rules of `ltlwit.logic.witness.holds` (ValueError for a trace of the other kind than
    `semantics`, an assignment for a temporal formula or naming an AP the formula lacks);
    ImportError naming the extra to install when py-aiger or py-aiger-sat is missing."""
    if semantics not in SEMANTICS:
        raise ValueError(f"unknown semantics {semantics!r} (choose from {', '.join(SEMANTICS)})")
    _modules()  # this module's ImportError, before `prop`'s
    if isinstance(witness, Assignment):
        from ltlwit.logic.prop import entails

        if entails(witness, formula, backend="aiger"):
            return Validation(True)
        # the completions of the assignment: the words of a one-step finite trace
        word = _Query(formula, Trace((witness.to_formula(),), ()), SHAPES[0]).counterexample()
        assert word is not None, "the two aiger encodings disagree on an entailment"
        return Validation(False, word)
    if isinstance(witness, Trace):
        if witness.finite != (semantics == "finite"):
            raise ValueError(f"a {'finite' if witness.finite else 'lasso'} trace, but the semantics is {semantics}")
        return _validate_trace(formula, witness)
    raise TypeError(f"a witness is a Trace or an Assignment, not {type(witness).__name__}")


def _modules() -> tuple[ModuleType, ModuleType]:
    """py-aiger and py-aiger-sat, or an ImportError that says how to get them."""
    try:
        import aiger
        import aiger_sat
    except ImportError as exc:
        raise ImportError(
            f"the aiger validator needs py-aiger and py-aiger-sat: pip install 'ltlwit[aiger]' ({exc})"
        ) from exc
    return aiger, aiger_sat


def _validate_trace(formula: Formula, trace: Trace) -> Validation:
    first = _Query(formula, trace, SHAPES[0])
    if not first.has_words():
        return Validation(False)
    for query in chain([first], (_Query(formula, trace, shape) for shape in SHAPES[1:])):
        word = query.counterexample()
        if word is not None:
            return Validation(False, word, query.loop)
        if query is first and (trace.finite or first.proves()):
            return Validation(True)
    return Validation(True, exact=False)


class _Query:
    """The words of one shape matching a trace: a SAT solver that holds "every step holds",
    asked questions about φ on them. Each question is asserted behind a guard input of its own
    and solved assuming it, so that the next question finds the solver as it was."""

    def __init__(self, formula: Formula, trace: Trace, shape: tuple[int, int]) -> None:
        aiger, aiger_sat = _modules()
        from pysat.solvers import Minisat22

        self._aiger = aiger
        self.formula = formula
        names = dict.fromkeys(formula.aps() + trace.aps())
        p, c = len(trace.prefix), len(trace.cycle)
        extra, turns = shape
        #: where the word's loop starts (None: a finite word)
        self.loop = None if trace.finite else p + extra * c
        width = p if trace.finite else p + (extra + turns) * c
        self._fold = [j if j < p else p + (j - p) % c for j in range(width)]
        self._prefix = p
        self.circuit = _Circuit()
        # inputs are named by AP index and position: AP names may contain anything
        self._letters = [{name: self.circuit.input(f"{i}@{j}") for i, name in enumerate(names)} for j in range(width)]
        self._gates: dict[tuple[Formula, int], Node] = {}
        steps = self.circuit.true
        for j in range(width):
            check_deadline()
            steps = self.circuit.conj(steps, self._gate(trace.steps[self._fold[j]], j))
        self.solver = aiger_sat.SolverWrapper(Minisat22())
        self._assert(steps)

    def _assert(self, node: Node) -> None:
        """Add `node` as a constraint (py-aiger-sat's encoding keeps one variable per input)."""
        circuit = self._aiger.aig.AIG(inputs=frozenset(self.circuit.inputs), node_map={"out": node})
        self.solver.add_expr(self._aiger.BoolExpr(circuit))

    def _satisfiable(self, node: Node) -> bool:
        """Whether `node` can be true (with the steps), asked behind a fresh guard."""
        guard = self.circuit.input(f"guard{len(self.circuit.inputs)}")
        self._assert(self.circuit.disj(self.circuit.neg(guard), node))
        return self._is_sat({guard.name: True})

    def _is_sat(self, assumptions: dict[str, bool] | None = None) -> bool:
        """py-aiger-sat's `is_sat`, stopped by the enclosing `deadline_scope` (a `Watchdog`
        interrupts the SAT solver, which py-aiger-sat's own call cannot be)."""
        check_deadline()
        limit = scope_limit()
        if limit is None:
            return bool(self.solver.is_sat(assumptions))
        lits = [(1 if value else -1) * self.solver.sym_table[name] for name, value in (assumptions or {}).items()]
        self.solver.unsolved = False  # what `is_sat` records, for `get_model`
        with Watchdog(limit, self.solver.solver.interrupt):
            result = self.solver.solver.solve_limited(assumptions=lits, expect_interrupt=True)
        if result is None:
            limit.check_time()  # the watchdog's reason
        return bool(result)

    def _gate(self, formula: Formula, j: int) -> Node:
        """A propositional formula's value on the word's letter at position j."""
        node = self._gates.get((formula, j))
        if node is None:
            node = self._gates[formula, j] = _gate(formula, self.circuit, self._letters[j])
        return node

    def _concrete(self, formula: Formula, j: int) -> Rails:
        value = self._gate(formula, j)
        return value, self.circuit.neg(value)

    def has_words(self) -> bool:
        return self._is_sat()

    def _root(self, leaf: Callable[[Formula, int], Rails]) -> Rails:
        """φ's rails at position 0, given its leaves' at every position of the evaluation: the
        word, with a lasso's loop unrolled by the past depth (module docstring)."""
        positions, loop = list(range(len(self._fold))), self.loop
        if loop is not None:
            period = len(positions) - loop
            depth = _past_depth(self.formula)
            positions += [loop + e % period for e in range(depth * period)]
            loop += depth * period
        return _evaluate(self.formula, self.circuit, lambda f, e: leaf(f, positions[e]), len(positions), loop)[0]

    def counterexample(self) -> tuple[dict[str, bool], ...] | None:
        """A word of this shape matching the trace and falsifying φ, or None."""
        if not self._satisfiable(self.circuit.neg(self._root(self._concrete)[0])):
            return None
        model = self.solver.get_model()  # inputs no clause mentions are free: False
        return tuple({name: model.get(node.name, False) for name, node in letter.items()} for letter in self._letters)

    def proves(self) -> bool:
        """Whether φ holds on every word matching the trace, shown by the three-valued
        evaluation of the module docstring (False: not shown)."""
        leaves = [f for f in postorder(self.formula, descend=lambda g: g.temporal) if not f.temporal]
        loop = range(self._prefix, len(self._fold))
        equal = self.circuit.true
        for k, f in enumerate(leaves):
            for j in loop:
                equal = self.circuit.conj(
                    equal, self.circuit.boolean("<->", self.circuit.input(f"leaf{k}@{j}"), self._gate(f, j))
                )
        self._assert(equal)
        circuit = self.circuit
        constant = {
            (f, j): (
                circuit.false if self._is_sat({f"leaf{k}@{j}": False}) else circuit.true,
                circuit.false if self._is_sat({f"leaf{k}@{j}": True}) else circuit.true,
            )
            for k, f in enumerate(leaves)
            for j in loop
        }

        def leaf(f: Formula, j: int) -> Rails:
            return constant[f, j] if j >= self._prefix else self._concrete(f, j)

        return not self._satisfiable(self.circuit.neg(self._root(leaf)[0]))


def _gate(formula: Formula, circuit: "_Circuit", letter: dict[str, Node]) -> Node:
    """A propositional formula's value on a letter (AP -> input node)."""
    values: dict[Formula, Node] = {}
    for node in postorder(formula):
        op = node.op
        if node.name is not None:  # an AP
            values[node] = letter[node.name]
        elif op == "1" or op == "0":
            values[node] = circuit.true if op == "1" else circuit.false
        elif op == "!":
            values[node] = circuit.neg(values[node.children[0]])
        else:
            values[node] = circuit.boolean(op, values[node.children[0]], values[node.children[1]])
    return values[formula]


def _evaluate(
    formula: Formula, circuit: "_Circuit", leaf: Callable[[Formula, int], Rails], n: int, loop: int | None
) -> list[Rails]:
    """φ's rails at every position 0..n-1 of a finite word (`loop` None) or of a lasso looping
    back to `loop`, from `leaf(f, position)`, the rails of φ's maximal propositional
    subformulas (module docstring)."""
    true, false = circuit.true, circuit.false
    values: dict[Formula, list[Rails]] = {}
    for node in postorder(formula, descend=lambda g: g.temporal):
        check_deadline()  # n nodes per operator: a deep past formula's unrolling is quadratic
        if not node.temporal:
            values[node] = [leaf(node, e) for e in range(n)]
            continue
        op = node.op
        kids = [values[k] for k in node.children]
        if op == "!":
            v = [(f, t) for t, f in kids[0]]
        elif op == "X" or op == WEAK_NEXT:
            x = kids[0]
            v = x[1:] + [x[loop] if loop is not None else (true, false) if op == WEAK_NEXT else (false, true)]
        elif op == "Y" or op == "Z":
            v = [(false, true) if op == "Y" else (true, false)] + kids[0][:-1]
        elif op in _FIXPOINTS:
            disjunctive, least = _FIXPOINTS[op]
            a, b = kids if len(kids) == 2 else ([(true, false) if op in ("F", "O") else (false, true)] * n, kids[0])
            past = op in PAST
            holds_ = _fixpoint(circuit, [x[0] for x in a], [x[0] for x in b], disjunctive, least, past, loop)
            fails = _fixpoint(circuit, [x[1] for x in a], [x[1] for x in b], not disjunctive, not least, past, loop)
            v = list(zip(holds_, fails))
        else:
            v = [_kleene(circuit, op, x, y) for x, y in zip(*kids)]
        values[node] = v
    return values[formula]


def _kleene(circuit: "_Circuit", op: str, a: Rails, b: Rails) -> Rails:
    """Kleene's `a op b` on rails."""
    (at, af), (bt, bf) = a, b
    if op == "&":
        return circuit.conj(at, bt), circuit.disj(af, bf)
    if op == "|":
        return circuit.disj(at, bt), circuit.conj(af, bf)
    if op == "->":
        return circuit.disj(af, bt), circuit.conj(at, bf)
    same = circuit.disj(circuit.conj(at, bt), circuit.conj(af, bf))
    differ = circuit.disj(circuit.conj(at, bf), circuit.conj(af, bt))
    return (same, differ) if op == "<->" else (differ, same)


def _fixpoint(
    circuit: "_Circuit", a: list[Node], b: list[Node], disjunctive: bool, least: bool, past: bool, loop: int | None
) -> list[Node]:
    """The fixpoint of `_FIXPOINTS` at every position: past ones forwards from position 0,
    future ones backwards, twice around a loop (module docstring)."""
    n = len(a)
    z: list[Node] = [circuit.false] * n
    edge = circuit.false if least else circuit.true
    step: Callable[[int, Node], Node]
    if disjunctive:

        def step(i: int, other: Node) -> Node:
            return circuit.disj(b[i], circuit.conj(a[i], other))
    else:

        def step(i: int, other: Node) -> Node:
            return circuit.conj(b[i], circuit.disj(a[i], other))

    if past:
        for i in range(n):
            z[i] = edge = step(i, edge)
        return z
    stop = n
    if loop is not None:
        for _ in range(2):
            for i in range(n - 1, loop - 1, -1):
                z[i] = edge = step(i, edge)
        stop = loop
    for i in range(stop - 1, -1, -1):
        z[i] = edge = step(i, edge)
    return z


def _past_depth(formula: Formula) -> int:
    """The most past operators on one path from the root to a leaf."""
    depth: dict[Formula, int] = {}
    for node in postorder(formula, descend=lambda g: g.past):
        depth[node] = max((depth.get(c, 0) for c in node.children), default=0) + (node.op in PAST)
    return depth[formula]


class _Circuit:
    """AIG nodes, each structure built once (hash-consed), with constants folded.

    py-aiger compares nodes structurally and recursively: two equal nodes built apart cost a
    walk of both DAGs whenever they meet in a dict, exponential in the depth of the fixpoint
    chains (seconds for a 20-node formula). With one object per structure every comparison is
    an identity check. Each node is hashed when built, children first, so no hash recurses."""

    def __init__(self) -> None:
        from aiger.aig import AndGate, ConstFalse, Input, Inverter

        self._and_gate, self._inverter, self._input = AndGate, Inverter, Input
        #: names of the inputs built so far
        self.inputs: list[str] = []
        self.false = ConstFalse()
        self.true = Inverter(self.false)
        # key -> (node, the nodes its key names by id, kept alive so ids stay unique)
        self._built: dict[tuple, tuple] = {}

    def _make(self, key: tuple, build: Callable[[], Node], *parts: Node) -> Node:
        hit = self._built.get(key)
        if hit is None:
            node = build()
            hash(node)
            hit = self._built[key] = (node, *parts)
        return hit[0]

    def input(self, name: str) -> Node:
        def build() -> Node:
            self.inputs.append(name)
            return self._input(name)

        return self._make(("in", name), build)

    def neg(self, x: Node) -> Node:
        if isinstance(x, self._inverter):
            return x.input
        if x is self.false:
            return self.true
        return self._make(("not", id(x)), lambda: self._inverter(x), x)

    def conj(self, x: Node, y: Node) -> Node:
        if x is self.false or y is self.false or self._opposite(x, y):
            return self.false
        if x is self.true or x is y:
            return y
        if y is self.true:
            return x
        if id(x) > id(y):
            x, y = y, x
        return self._make(("and", id(x), id(y)), lambda: self._and_gate(x, y), x, y)

    def _opposite(self, x: Node, y: Node) -> bool:
        return (isinstance(x, self._inverter) and x.input is y) or (isinstance(y, self._inverter) and y.input is x)

    def disj(self, x: Node, y: Node) -> Node:
        return self.neg(self.conj(self.neg(x), self.neg(y)))

    def boolean(self, op: str, x: Node, y: Node) -> Node:
        """`x op y` for the binary propositional operators."""
        if op == "&":
            return self.conj(x, y)
        if op == "|":
            return self.disj(x, y)
        if op == "->":
            return self.disj(self.neg(x), y)
        differ = self.disj(self.conj(x, self.neg(y)), self.conj(self.neg(x), y))
        return differ if op == "xor" else self.neg(differ)
