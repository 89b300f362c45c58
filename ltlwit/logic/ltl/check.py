"""Checking symbolic lasso traces against LTL formulas, universal semantics.

`holds(φ, trace)` is true iff every infinite word whose letters satisfy the trace's steps
satisfies φ (DeepLTL's `spot.contains(aut(φ), word)`), and false for a trace with an
unsatisfiable step (such a trace denotes no word; accepting it would make `0` "hold").

Three stages, cheapest first; the pipeline calls this thousands of times per second:
1. Step labels: unsatisfiable step -> False.
2. A sound three-valued evaluation over the lasso positions (`Evaluator`): each subformula gets
   the positions where it is *definitely* true / false for every matching word (least and
   greatest fixpoints over position bit masks). When every step fixes all of φ's APs this is
   exactly the classical linear lasso evaluation, so that case never goes further.
3. Otherwise the on-the-fly product of the lasso with the automaton of ¬φ, and emptiness:
   an accepting cycle is a matching word violating φ. The full automaton of ¬φ is never built.
   Past operators first leave φ (`eliminated`): each past subformula becomes a fresh
   proposition, a monitor, whose value future-only definitions fix from the word, and the
   product is that of the automaton of ¬φ' and the definitions, the monitors free in every step;
   before it, a few concrete completions of the steps, each decided by the linear pass
   (`completion`), since the monitors multiply the product's states.
   The checker asks no solver: the solvers' witnesses are what it checks.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ltlwit.logic.budget import Budget, HardLimit, Limit, OutOfBudget, check_deadline, paced
from ltlwit.logic.formula import PAST, TRUE, And, Formula, Not, Or, ap, conjuncts, postorder, transform
from ltlwit.logic.ltl.encoding.expand import Translator
from ltlwit.logic.ltl.encoding.labels import Labels, make_labels
from ltlwit.logic.ltl.encoding.rewrite import negate, simplify
from ltlwit.logic.ltl.searches.emptiness import accepting_scc
from ltlwit.logic.trace import Trace

if TYPE_CHECKING:
    from random import Random

    from ltlwit.logic.theory.abstraction import Abstraction

_LABELS: "OrderedDict[tuple[str, ...], Labels]" = OrderedDict()
_EVALUATORS: "OrderedDict[tuple[Formula, int], Evaluator]" = OrderedDict()
_TRANSLATORS: "OrderedDict[tuple[Formula, int], Translator]" = OrderedDict()
# Keys use id(labels): safe, since every cached evaluator/translator keeps its labels alive.
#: Entries each keeps: more than a requirement set's specs, which `check` judges in turn, each
#: against many witnesses (64 made every judgment of a 97-requirement FRET export a miss).
_CACHE_SIZE = 256
#: A label universe's formula memo is reset past this size (long streams of candidates).
_LABEL_MEMO_LIMIT = 50_000


def labels_for(names: Sequence[str]) -> Labels:
    """A shared label manager per AP universe, so repeated checks reuse labels and caches."""
    key = tuple(names)
    L = _LABELS.get(key)
    if L is None:
        L = _LABELS[key] = make_labels(key)
        if len(_LABELS) > _CACHE_SIZE:
            _LABELS.popitem(last=False)
    else:
        _LABELS.move_to_end(key)
        if len(L._memo) > _LABEL_MEMO_LIMIT:
            L._memo.clear()
    return L


def _cached(table: OrderedDict, key: tuple, make: Any) -> Any:
    hit = table.get(key)
    if hit is None:
        hit = table[key] = make()
        if len(table) > _CACHE_SIZE:
            table.popitem(last=False)
    else:
        table.move_to_end(key)
    return hit


def holds(formula: Formula, trace: Trace, limit: Limit | None = None) -> bool:
    """Whether every word matching `trace` satisfies `formula` (False for an unsatisfiable step).
    `limit`: a solve's deadline for the product stage (`OutOfTime` past it; the shared
    automaton of ¬φ then keeps only what it had completed)."""
    verdict = passes(formula, trace, limit)
    if verdict is not None:
        return verdict
    if formula.past and completion(formula, trace, limit) is not None:
        return False
    return not violated(formula, trace, limit)


def passes(formula: Formula, trace: Trace, limit: Limit | None = None) -> bool | None:
    """`holds`' linear passes alone (three-valued, over the steps' cubes, then their labels):
    its verdict, or None where the values the steps leave free decide it."""
    loop = len(trace.prefix)
    cubes = _cubes(trace.steps)
    if cubes is not None:  # the linear pass first (see `CubeEvaluator`)
        verdict = cube_evaluator(formula, limit).run(cubes, loop, limit)
        if verdict is not None:
            return verdict
    L, steps = _labelled(formula, trace, cubes)
    if any(s == L.false for s in steps):
        return False
    return evaluator(formula, L).run(steps, loop)


def violations(abstraction: "Abstraction", trace: Trace, limit: Limit | None = None) -> list[int]:
    """The instants of a finite data trace (a log) where the formula `abstraction` abstracts
    does not hold, each instant's value read on the whole trace (finite semantics): where a
    requirement that must hold at every instant is violated (`G(p)` of FRET's past-time
    requirements, whose value at an instant depends on the log up to it only). `limit`: as
    `holds_data`'s; the passes over the instants read an enclosing `deadline_scope` too."""
    from ltlwit.logic.formula import ap
    from ltlwit.logic.ltl.finite import alive_name, as_lasso, translate
    from ltlwit.logic.theory.evaluate import boolean_trace

    steps = boolean_trace(trace, abstraction.names, abstraction.signature)
    alive = ap(alive_name(abstraction.plain.aps(), steps.aps()))
    lasso = as_lasso(steps, alive)
    cubes = []
    for s in paced(lasso.steps, check_deadline, CUBES_EVERY):
        cube = cube_of(s)
        if cube is None:
            raise ValueError("a log must give every variable a value at every instant")
        cubes.append(cube)
    evaluator = CubeEvaluator(translate(abstraction.plain, alive), limit)
    t, _ = evaluator.masks(cubes, len(lasso.prefix), limit)
    return [i for i in range(len(trace.steps)) if not t >> i & 1]


def holds_data(abstraction: "Abstraction", trace: Trace, limit: Limit | None = None) -> bool:
    """Whether a data trace (values in its steps: `theory.evaluate`) satisfies the formula
    over data that `abstraction` abstracts: each atom decided at each instant by the exact
    evaluator, no SMT solver, then the formula as written decided on the result by `holds`
    (on finite traces through the finite-trace translation). TraceError (a ValueError) for a
    trace that cannot be judged: a variable without a value, a value of the wrong sort."""
    from ltlwit.logic.theory.evaluate import boolean_trace

    if trace.finite != abstraction.finite:
        raise ValueError("a finite trace needs finite semantics, a lasso infinite ones")
    steps = boolean_trace(trace, abstraction.names, abstraction.signature)
    if abstraction.finite:
        from ltlwit.logic.ltl.finite import holds as finite_holds

        return finite_holds(abstraction.plain, steps, limit)
    from ltlwit.logic.ltl.finite import strong

    return holds(strong(abstraction.plain), steps, limit)


#: Steps made cubes between two reads of a `deadline_scope`'s limits (a log's trace has
#: hundreds of thousands).
CUBES_EVERY = 256


@lru_cache(maxsize=16)
def _cubes(steps: tuple[Formula, ...]) -> list[dict[str, bool]] | None:
    """The steps as cubes (`cube_of`), None where one is none, for the few traces checked
    against many formulas in a row: `check --vacuity` checks each witness against every spec
    (3,400 checks on the 12-client arbiter, 80% of them reading the same lassos' steps again).
    Read only."""
    cubes = [cube_of(s) for s in paced(steps, check_deadline, CUBES_EVERY)]
    known = [c for c in cubes if c is not None]
    return known if len(known) == len(cubes) else None


def evaluator(formula: Formula, L: Labels) -> "Evaluator":
    return _cached(_EVALUATORS, (formula, id(L)), lambda: Evaluator(formula, L))


def cube_evaluator(formula: Formula, limit: Limit | None = None) -> "CubeEvaluator":
    """The formula's `CubeEvaluator`, built with `limit`'s deadline read (a multi-MB formula's
    takes most of a second) and kept."""
    return _cached(_EVALUATORS, (formula, None), lambda: CubeEvaluator(formula, limit))


#: Completions with each free value drawn at random (seeded: a verdict never depends on the
#: run) that `completion` tries after its three fixed ones.
RANDOM_COMPLETIONS = 16


def completion(
    formula: Formula, trace: Trace, limit: Limit | None = None
) -> tuple[list[dict[str, bool]], list[dict[str, bool]]] | None:
    """A violating word among a few concrete completions of the trace's steps (each step's
    first letter, its letter with the values it leaves free all false, all true, then
    `RANDOM_COMPLETIONS` drawn at random; equal steps get equal letters), each decided exactly
    by the linear pass (exact on full valuations), or None. Before a past formula's product:
    its monitors multiply the automaton's states (a 100-node formula of 23 past operators on a
    one-step lasso over 4 free values: 20,000 states, 3.5 s, before an accepting cycle closes;
    BLACK's random formulas of 2,000-5,000 nodes, 1,000 monitors, past 20 s on one state's
    edges), where a violation is often one of these words (among the first six random ones
    on three of four such formulas). Steps must be satisfiable (`passes` has said so). `limit`: its deadline
    is read before each pass (`OutOfTime`)."""
    L, steps = _labelled(formula, trace)
    loop = len(trace.prefix)
    ev = evaluator(formula, L)
    import random  # here: a cold solve whose witness the linear pass decides never needs it

    rng = random.Random(0)
    fixed: list[bool | None] = [None, False, True]
    for k in range(len(fixed) + RANDOM_COMPLETIONS):
        if limit is not None:
            limit.check_time()
        letters: dict[Any, Any] = {}  # per distinct step: a counter's lasso has 100,000s
        for s in steps:
            if s not in letters:
                letters[s] = _letter(L, s, fixed[k] if k < len(fixed) else rng)
        word = [letters[s] for s in steps]
        if ev.run(word, loop) is False:
            values = [{L.names[i]: v for i, v in L.minterm(x)} for x in word]
            return values[:loop], values[loop:]
    return None


def _letter(L: Labels, label: Any, prefer: bool | Random | None) -> Any:
    """One letter of the non-empty `label`, as a label: its `minterm`, or each AP in turn set
    to `prefer` (or a value `prefer` draws) where the letters left allow it."""
    if prefer is not None:
        for i in range(len(L.names)):
            value = prefer if isinstance(prefer, bool) else prefer.random() < 0.5
            narrower = label & L.var(i, value)
            if narrower != L.false:
                label = narrower
    return L.cube(L.minterm(label))


def violated(formula: Formula, trace: Trace, limit: Limit | None = None) -> bool:
    """The product stage alone: whether some word matching the trace (whose steps are
    satisfiable) violates `formula`, by emptiness of the product of the lasso with the
    on-the-fly automaton of ¬formula (`_question`)."""
    tr, _, steps = _question(formula, trace, limit, project=True)
    return _product(tr, steps, len(trace.prefix), limit)[0] is not None


class Prover:
    """Bounded exact checks of many candidate traces of one formula (the witness minimiser asks
    one per literal it tries to drop). It owns its automaton of ¬φ instead of the shared cache,
    so which literals a state budget lets it drop never depends on what the process checked
    before: a formula always gets the same witness.

    `limit`: the solve's running budget; only its deadline applies here, and running past it
    raises `HardLimit` (it is not "unproven": the solve answers Unknown)."""

    def __init__(self, formula: Formula, L: Labels, limit: Limit | None = None) -> None:
        self.formula = formula
        self.L = L
        self.evaluator = evaluator(formula, L)
        self.limit = limit
        self._tr: Translator | None = None

    def proves(self, steps: list[Any], loop: int, max_states: int) -> bool | None:
        """True/False when every / not every word of the (satisfiable) steps satisfies φ:
        the three-valued pass, then the product within `max_states` states (None past it)."""
        verdict = self.evaluator.run(steps, loop)
        if verdict is not None:
            return verdict
        if self._tr is None:
            self._tr = Translator(negate(self.formula), self.L)
        bound = Limit(Budget(states=max_states)) if self.limit is None else self.limit.with_states(max_states)
        try:
            return _product(self._tr, steps, loop, bound)[0] is None
        except HardLimit:
            raise
        except OutOfBudget:
            return None


def _negation(formula: Formula, L: Labels) -> Translator:
    return _cached(_TRANSLATORS, (formula, id(L)), lambda: Translator(negate(formula), L))


def _product(tr: Translator, steps: list[Any], loop: int, limit: Limit | None = None) -> tuple:
    n = len(steps)
    memo: dict[tuple[int, int], list] = {}
    timer = limit if limit is not None and limit.deadline is not None else None

    def successors(state: tuple[int, int]) -> list:
        out = memo.get(state)
        if out is None:
            pos, s = state
            step = steps[pos]
            nxt = pos + 1 if pos + 1 < n else loop
            edges = tr.edges_within(s, step, timer)
            out = memo[state] = [(label, (nxt, d), marks) for label, d, marks in edges]
        return out

    initial = (0, tr.initial)
    scc, explored = accepting_scc(initial, successors, tr.all_marks, limit)
    return scc, explored, initial, successors, tr.all_marks


def _labelled(formula: Formula, trace: Trace, cubes: list[dict[str, bool]] | None = None) -> tuple[Any, list[Any]]:
    """The labels over the formula's and the trace's APs, and each step's label (a step whose
    cube is unsatisfiable is `false`). Given the steps' `cubes` (`_cubes`), over the formula's
    APs alone: a cube's literals over other names say nothing of the formula, and labels over
    a witness of a thousand specs (hundreds of names) cost most of a spec file's checks."""
    if cubes is not None:
        mine = formula.aps()
        L = labels_for(mine)
        return L, [L.of(And(*(ap(n) if c[n] else Not(ap(n)) for n in mine if n in c))) for c in cubes]
    names = dict.fromkeys(formula.aps())
    names.update(dict.fromkeys(trace.aps()))
    L = labels_for(tuple(names))
    return L, [L.of(s) for s in trace.steps]


def counterexample(formula: Formula, trace: Trace) -> tuple[list[dict[str, bool]], list[dict[str, bool]]] | None:
    """A concrete lasso word (full valuations of the formula's and trace's APs) matching `trace`
    and violating `formula`, or None when `holds(formula, trace)` (or a step is unsatisfiable).
    The word's cycle may be a multiple of the trace's cycle."""
    from ltlwit.logic.ltl.searches.emptiness import accepting_cycle, shortest_path

    L, steps = _labelled(formula, trace)
    if any(s == L.false for s in steps):
        return None
    loop = len(trace.prefix)
    if evaluator(formula, L).run(steps, loop) is True:
        return None
    word = completion(formula, trace) if formula.past else None
    if word is not None:
        return word
    tr, M, steps = _question(formula, trace)
    scc, explored, initial, successors, marks = _product(tr, steps, loop)
    if scc is None:
        return None
    prefix = shortest_path(initial, scc.__contains__, successors, explored.__contains__)
    entry = prefix[-1][1] if prefix else initial
    cycle = accepting_cycle(entry, scc, successors, marks)
    names = L.names  # the formula's and the trace's: a past formula's question has more

    def letter(label: Any) -> dict[str, bool]:
        values = dict(M.minterm(label))
        return {name: values[M.index[name]] for name in names}

    return [letter(e[0]) for e in prefix], [letter(e[0]) for e in cycle]


def _question(
    formula: Formula, trace: Trace, limit: Limit | None = None, project: bool = False
) -> tuple[Translator, Labels, list[Any]]:
    """The automaton whose accepting runs along the trace's steps are the words matching the
    trace and violating `formula`, its labels, and each step's label in them: that of ¬φ for a
    future formula; for one with past operators, that of ¬φ' ∧ the definitions of its monitors
    (`eliminated`, within `limit`'s deadline), whose APs the steps leave free. `project`: over
    the formula's APs alone where the steps are cubes (`_labelled`), the trace's others not
    wanted (a word is not asked for)."""
    if not formula.past:
        L, steps = _labelled(formula, trace, _cubes(trace.steps) if project else None)
        return _negation(formula, L), L, steps
    names = dict.fromkeys(formula.aps())
    names.update(dict.fromkeys(trace.aps()))
    stem = MONITOR
    while any(name.startswith(stem) for name in names):
        stem = "_" + stem
    root, monitors = _cached(_ELIMINATED, (formula, stem), lambda: eliminated(formula, stem, limit))
    L = labels_for((*names, *monitors))
    tr = _cached(_TRANSLATORS, (root, id(L), "monitored"), lambda: Translator(root, L))
    return tr, L, [L.of(s) for s in trace.steps]


#: The stem of the monitors' AP names (`_past0`, `_past1`, ...), lengthened by underscores until
#: no AP of the formula or the trace begins with it.
MONITOR = "_past"
_ELIMINATED: "OrderedDict[tuple[Formula, str], tuple[Formula, tuple[str, ...]]]" = OrderedDict()


def eliminated(formula: Formula, stem: str, limit: Limit | None = None) -> tuple[Formula, tuple[str, ...]]:
    """¬φ without past operators, for the product: (Defs ∧ ¬φ' in negation normal form, the
    monitors' names). Each distinct past subformula π gets a fresh AP q (`stem` and a number), a
    monitor, and φ' is φ with each π replaced by its q. Defs says, with future operators only,
    what π's value is at each instant, from its operands' (their own past replaced too):

    - `Y ψ`: !q, and at each instant X q exactly when ψ (`Z ψ`: q at the start instead);
    - `ψ S χ`: q ↔ χ at the start; next, q ↔ χ ∨ ψ where q holds now, q ↔ χ where not;
    - `ψ T χ`: q ↔ χ at the start; next, q ↔ χ where q holds now, q ↔ χ ∧ ψ where not;
    - `O ψ`, `H ψ`: `1 S ψ` and `0 T ψ`'s, simplified.

    By induction over the subformulas (children first) each q's value at every instant is
    fixed by the word over the formula's APs, and equals π's there. So a word over the APs
    violates φ exactly when its one extension by the monitors satisfies Defs ∧ ¬φ': the
    violations of φ along a trace are the accepting runs of this formula's automaton along
    it with the monitors free in every step, a question for the checker's own product, not a
    solver (whose witnesses this checker checks). Each definition is its own G conjunct, and
    the value it makes the next instant's obligation (`X(q ↔ ...)`) is a propositional
    obligation of the next state: along a trace the automaton's states carry the monitors'
    values, and a state's edges stay as many as its letters tell apart (one G of all the
    definitions, as `simplify` would merge them, has 2^k terms for k monitors). `limit`: a
    solve's deadline, read while the operands are simplified."""
    monitors: dict[Formula, Formula] = {}
    defs: list[Formula] = []

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if node.op not in PAST:
            return Formula(node.op, kids, node.name) if kids else node
        q = ap(f"{stem}{len(monitors)}")
        monitors[node] = q
        defs.extend(_definition(node.op, q, [simplify(k, limit) for k in kids]))
        return q

    replaced = transform(formula, rule, skip=lambda node: not node.past)
    root = And(simplify(Not(replaced), limit), *defs)
    return root, tuple(str(q.name) for q in monitors.values())


def _definition(op: str, q: Formula, operands: list[Formula]) -> list[Formula]:
    """The conjuncts (negation normal form) fixing the monitor `q` of the past operator `op` on
    its NNF operands: its value at the first instant, and a G of how each next value follows."""
    nq = Not(q)

    def X(f: Formula) -> Formula:  # noqa: N802
        return Formula("X", (f,))

    def iff(a: Formula, b: Formula) -> Formula:
        return Formula("<->", (a, b))

    def step(if_true: Formula, if_false: Formula) -> Formula:  # G((q & X t) | (!q & X f))
        return Formula("G", (Or(And(q, X(if_true)), And(nq, X(if_false))),))

    if op in ("Y", "Z"):
        (a,) = operands
        return [q if op == "Z" else nq, Formula("G", (Or(And(a, X(q)), And(negate(a), X(nq))),))]
    if op == "O":
        (a,) = operands
        return [iff(q, a), step(q, iff(q, a))]
    if op == "H":
        (a,) = operands
        return [iff(q, a), step(iff(q, a), nq)]
    a, b = operands
    if op == "S":
        return [iff(q, b), step(iff(q, Or(b, a)), iff(q, b))]
    assert op == "T"
    return [iff(q, b), step(iff(q, b), iff(q, And(b, a)))]


class Evaluator:
    """Sound three-valued evaluation of one formula over lasso traces (see module docstring).

    The formula's nodes are listed once in post-order, its maximal propositional subformulas
    turned into labels once; `run` then costs a few big-integer operations per node."""

    def __init__(self, formula: Formula, L: Labels) -> None:
        self.L = L
        # (node, op, its children's indices) in post-order, leaves (maximal propositional
        # subformulas) with op "prop"; their indices, labels and negated labels
        self.plan = _indexed(postorder(formula, descend=lambda node: node.temporal), lambda f: not f.temporal)
        self.depth = past_depth(formula)
        self.labels = [(i, L.of(f), L.neg(L.of(f))) for i, (f, op, _) in enumerate(self.plan) if op == "prop"]

    def run(self, steps: list[Any], loop: int) -> bool | None:
        """True/False when every matching word agrees at position 0, None when unsure."""
        steps, loop = unrolled(steps, loop, self.depth)
        false = self.L.false
        val: list[Any] = [None] * len(self.plan)
        for at, label, nlabel in self.labels:
            t = fm = 0
            for i, s in enumerate(steps):
                if s & nlabel == false:
                    t |= 1 << i
                elif s & label == false:
                    fm |= 1 << i
            val[at] = (t, fm)
        return _verdict(_temporal_pass(self.plan, val, len(steps), loop))


#: A formula of more nodes than this has its linear pass read the deadline, every this many nodes.
TIMED_PASS = 10_000


class CubeEvaluator:
    """The same evaluation for traces whose steps are cubes (conjunctions of literals, as every
    witness of the engine), without labels: every node, propositional ones too, gets its
    (definitely true, definitely false) position masks, an AP's from the cubes that fix it, so
    the propositional nodes take Kleene's three-valued value at all positions at once. One pass
    of big-integer operations over the formula, where labels over thousands of APs cost far
    more, and where a walk of the propositional nodes per step took seconds on a 400-step lasso
    of the 100-client arbiter (5,000 mutex clauses). Exact when every step fixes every AP of the
    formula, otherwise sound but weaker than labels (`a | !a` stays unknown under an empty
    cube)."""

    def __init__(self, formula: Formula, limit: Limit | None = None) -> None:
        self.depth = past_depth(formula)
        # every node, children first: APs and constants as the pass's leaves
        tick = limit.check_time if limit is not None and formula.size > TIMED_PASS else None
        self.plan = _indexed(postorder(formula, tick=tick), lambda f: not f.children)
        self.aps = [(i, str(f.name)) for i, (f, _, _) in enumerate(self.plan) if f.op == "ap"]
        #: the formula's APs in `Formula.aps()`'s order (its leaves come left to right in either walk)
        self.names: tuple[str, ...] = tuple(name for _, name in self.aps)
        self.constants = [(i, f is TRUE) for i, (f, _, _) in enumerate(self.plan) if f.op in ("1", "0")]

    def run(self, cubes: list[dict[str, bool]], loop: int, limit: Limit | None = None) -> bool | None:
        """`limit`: a solve's deadline, read every `TIMED_PASS` nodes of a formula of more
        (`OutOfTime` past it): on a 2 MB specification the pass takes a noticeable time, and
        the final check of a witness found just before the deadline must not answer after it.
        (A small formula's pass takes microseconds: its witness is checked even on a spent
        budget.)"""
        t, f = self.masks(cubes, loop, limit)
        return True if t & 1 else False if f & 1 else None

    def masks(self, cubes: list[dict[str, bool]], loop: int, limit: Limit | None = None) -> tuple[int, int]:
        """The formula's (definitely true, definitely false) positions over the trace (its loop
        unrolled as `unrolled` does), bit i for position i: where a requirement holds along a
        log, not only at its first instant (`violations`)."""
        cubes, loop = unrolled(cubes, loop, self.depth)
        n = len(cubes)
        full = (1 << n) - 1
        # a node's masks cost a machine word per 64 positions: a 111-node counter formula over
        # the 106,496 steps of its witness is as long a pass as a multi-MB formula's
        words = 1 + n // 64
        timed = limit if limit is not None and len(self.plan) * words > TIMED_PASS else None
        true: dict[str, int] = {}
        false: dict[str, int] = {}
        for i, cube in enumerate(cubes):
            if timed is not None:
                timed.check_time()
            bit = 1 << i
            for name, v in cube.items():
                side = true if v else false
                side[name] = side.get(name, 0) | bit
        val: list[Any] = [None] * len(self.plan)
        for at, name in self.aps:
            val[at] = (true.get(name, 0), false.get(name, 0))
        for at, value in self.constants:
            val[at] = (full, 0) if value else (0, full)
        return _temporal_pass(self.plan, val, n, loop, timed, max(1, TIMED_PASS // words))


def cube_of(step: Formula) -> dict[str, bool] | None:
    """The step as a partial assignment when it is a conjunction of literals (`1` for none);
    None otherwise, and for a step that says both `a` and `!a` (it denotes no letter)."""
    cube: dict[str, bool] = {}
    for g in conjuncts(step):
        value = g.op != "!"
        name = (g if value else g.children[0]).name
        if name is None:  # no literal
            return None
        if cube.setdefault(name, value) != value:
            return None
    return cube


def past_depth(formula: Formula) -> int:
    """The most past operators on one path from the root: a subformula's values along a lasso
    word are periodic, with the loop's period, from the loop's start plus this many loops on
    (each past operator can delay periodicity by one loop, a future one by none)."""
    if not formula.past:
        return 0
    depth: dict[Formula, int] = {}
    for node in postorder(formula, descend=lambda g: g.past):
        below = max((depth.get(c, 0) for c in node.children), default=0)
        depth[node] = below + (node.op in PAST)
    return depth[formula]


def unrolled(steps: list[Any], loop: int, depth: int) -> tuple[list[Any], int]:
    """The same lasso with its loop unrolled `depth` times into the prefix, so that past
    operators, evaluated from position 0 forwards, see the loop's later passes: from there on
    every value of a formula of past depth `depth` repeats with the loop (`past_depth`), and the
    last copy of the loop stands for all later ones. Kleene's three-valued semantics on the
    word of steps (what the evaluators compute) is periodic the same way, so the pass stays
    sound for symbolic steps and exact for full valuations."""
    if not depth:
        return steps, loop
    cycle = steps[loop:]
    return list(steps) + cycle * depth, loop + depth * len(cycle)


def _indexed(nodes: list[Formula], leaf: Callable[[Formula], bool]) -> list[tuple[Formula, str, tuple[int, ...]]]:
    """The pass's plan over `nodes` (children first): (node, op, its children's indices), op
    "prop" where `leaf`. Indices, not nodes: the pass then reads its operands from a list, with
    no formula hashed (three dictionary reads a node, a third of a 2.7 MB formula's pass)."""
    at = {f: i for i, f in enumerate(nodes)}
    plan: list[tuple[Formula, str, tuple[int, ...]]] = []
    for f in nodes:  # explicit arities: a generator per node cost a third of this walk
        kids = f.children
        if leaf(f):
            plan.append((f, "prop", ()))
        elif len(kids) == 1:
            plan.append((f, f.op, (at[kids[0]],)))
        else:
            plan.append((f, f.op, (at[kids[0]], at[kids[1]])))
    return plan


def _verdict(masks: tuple[int, int]) -> bool | None:
    t, f = masks
    return True if t & 1 else False if f & 1 else None


def _temporal_pass(
    plan: list, val: list[Any], n: int, loop: int, timed: Limit | None = None, every: int = TIMED_PASS
) -> tuple[int, int]:
    """The temporal part of the three-valued evaluation: (definitely true, definitely false)
    position masks for every node (`val`, by the plan's indices: the leaves' given) by
    least/greatest fixpoints; the verdict is the last node's, the root's. `timed`: a deadline
    read every `every` nodes."""
    full = (1 << n) - 1
    last = n - 1

    def nxt(m: int) -> int:
        return (m >> 1) | (((m >> loop) & 1) << last)

    def prv(m: int) -> int:  # position i gets i-1's bit; position 0, which has none, 0
        return (m << 1) & full

    lasso = (n, loop, full)

    for index, (_, op, kids) in enumerate(plan):
        if timed is not None and not index % every:
            timed.check_time()
        if op == "prop":
            continue
        if op == "!":
            t, fm = val[kids[0]]
            val[index] = (fm, t)
            continue
        a = val[kids[0]]
        if op == "X":
            val[index] = (nxt(a[0]), nxt(a[1]))
            continue
        if op == "F":
            val[index] = (_lfp(a[0], full, *lasso), _gfp(a[1], 0, *lasso))
            continue
        if op == "G":
            val[index] = (_gfp(a[0], 0, *lasso), _lfp(a[1], full, *lasso))
            continue
        if op in PAST:  # forwards from position 0: no loop, so each has one fixpoint
            val[index] = _past(op, a, val[kids[1]] if len(kids) == 2 else None, full, prv)
            continue
        b = val[kids[1]]
        if op == "&":
            val[index] = (a[0] & b[0], a[1] | b[1])
        elif op == "|":
            val[index] = (a[0] | b[0], a[1] & b[1])
        elif op == "->":
            val[index] = (a[1] | b[0], a[0] & b[1])
        elif op == "<->":
            val[index] = ((a[0] & b[0]) | (a[1] & b[1]), (a[0] & b[1]) | (a[1] & b[0]))
        elif op == "xor":
            val[index] = ((a[0] & b[1]) | (a[1] & b[0]), (a[0] & b[0]) | (a[1] & b[1]))
        elif op == "U":  # t: lfp b | (a & X.); f: gfp !b & (!a | X.)
            val[index] = (_lfp(b[0], a[0], *lasso), _gfp(b[1], a[1], *lasso))
        elif op == "R":  # t: gfp b & (a | X.); f: lfp !b | (!a & X.)
            val[index] = (_gfp(b[0], a[0], *lasso), _lfp(b[1], a[1], *lasso))
        elif op == "W":  # t: gfp b | (a & X.); f: lfp !b & (!a | X.)
            val[index] = (_gfp_or(b[0], a[0], *lasso), _lfp_and(b[1], a[1], *lasso))
        elif op == "M":  # t: lfp b & (a | X.); f: gfp !b | (!a & X.)
            val[index] = (_lfp_and(b[0], a[0], *lasso), _gfp_or(b[1], a[1], *lasso))
        else:
            raise ValueError(f"unknown operator {op}")
    return val[-1]


def _past(op: str, a: tuple[int, int], b: tuple[int, int] | None, full: int, prv: Any) -> tuple[int, int]:
    """(definitely true, definitely false) masks of a past operator from its operands', by the
    recursions `Y a = prev a`, `a S b = b | (a & Y(a S b))` and their duals (`Z`: true at
    position 0; `T`: `b & (a | Z(a T b))`; `O b = 1 S b`, `H a = 0 T a`)."""
    first = 1  # position 0's bit
    if op == "Y":
        return prv(a[0]), prv(a[1]) | first
    if op == "Z":
        return prv(a[0]) | first, prv(a[1])
    if op == "O":
        return _fill_up(a[0], full, full), _fill_up_and(a[1], first, full)
    if op == "H":
        return _fill_up_and(a[0], first, full), _fill_up(a[1], full, full)
    assert b is not None
    if op == "S":
        return _fill_up(b[0], a[0], full), _fill_up_and(b[1], a[1] | first, full)
    # T
    return _fill_up_and(b[0], a[0] | first, full), _fill_up(b[1], a[1], full)


def _fill_up(base: int, through: int, full: int) -> int:
    """Least Z with Z = base | (through & prev Z) (prev: bits move up one position, none into
    position 0): every position reached from a base position by steps up through `through`.
    Kogge-Stone's occluded fill, log(n) big-integer steps rather than n."""
    gen, pro, shift = base, through & full, 1
    while pro and shift <= full.bit_length():
        gen |= pro & (gen << shift)
        pro &= pro << shift
        shift <<= 1
    return gen & full


def _fill_up_and(base: int, through: int, full: int) -> int:
    """The Z with Z = base & (through | prev Z), position 0 seeing false: the complement of
    `_fill_up` over the complements (¬Z = ¬base | (¬through & prev ¬Z), position 0 seeing
    true, which `through`'s bit 0 must hold for the result's bit 0 to need only `base`)."""
    seed = (full & ~base) | (full & ~through & 1)
    return full & ~_fill_up(seed, full & ~through, full)


def _fill_down(base: int, through: int, n: int, loop: int) -> int:
    """Least Z with Z = base | (through & next Z) on the lasso of n positions looping to `loop`:
    every position from which steps forwards through `through` reach a base position. The
    loop is filled as two copies of itself (a position of the first copy sees every position of
    the loop ahead of it), then the prefix linearly, each by Kogge-Stone's occluded fill."""
    m = n - loop
    mask = (1 << m) - 1
    cycle_base, cycle_through = base >> loop, through >> loop
    doubled = _fill_down_linear(cycle_base | (cycle_base << m), cycle_through | (cycle_through << m), 2 * m)
    cycle = doubled & mask
    if not loop:
        return cycle
    return _fill_down_linear((base & ((1 << loop) - 1)) | (cycle << loop), through, n)


def _fill_down_linear(gen: int, pro: int, n: int) -> int:
    """`gen` and every position from which steps up the positions (no loop) through `pro`
    reach it."""
    shift = 1
    while pro and shift < n:
        gen |= pro & (gen >> shift)
        pro &= pro >> shift
        shift <<= 1
    return gen


def _lfp(base: int, through: int, n: int, loop: int, full: int) -> int:
    """Least Z with Z = base | (through & X Z)."""
    return _fill_down(base, through, n, loop)


def _gfp(base: int, through: int, n: int, loop: int, full: int) -> int:
    """Greatest Z with Z = base & (through | X Z): the complement of the least fixpoint of the
    dual equation over the complements."""
    return full & ~_fill_down(full & ~base, full & ~through, n, loop)


def _gfp_or(base: int, through: int, n: int, loop: int, full: int) -> int:
    """Greatest Z with Z = base | (through & X Z)."""
    return full & ~_lfp_and(full & ~base, full & ~through, n, loop, full)


def _lfp_and(base: int, through: int, n: int, loop: int, full: int) -> int:
    """Least Z with Z = base & (through | X Z) = (base & through) | (base & X Z)."""
    return _fill_down(base & through, base, n, loop)
