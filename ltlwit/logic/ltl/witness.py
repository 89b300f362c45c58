"""From an accepting SCC to a small symbolic lasso.

1. The run: a shortest path (over explored states) from the initial state into the accepting
   SCC, then a cycle from the entry state through every acceptance mark (`emptiness`); other
   entries on that cycle are tried too, and the shortest simplified word is kept.
2. Spot's word simplification (`twa_word::simplify`): when the conjunction of the cycle's
   labels is satisfiable the cycle becomes that one letter; then, while the last prefix label
   is compatible with the last cycle label, the prefix is rotated into the cycle. Both keep
   the word on an accepting run of the automaton, so every matching word is still accepted.
3. Each label becomes a small cube inside it (`Labels.small_cube`): still on the run, so still
   a witness, and never an unsatisfiable step.
4. Literals the checker proves unnecessary are dropped, one at a time (three-valued pass, else
   a bounded product with the automaton of ¬φ); the checks are sound, so the trace stays a
   witness.

The caller re-checks the final trace with `holds` before returning it.
"""

from __future__ import annotations

import operator
import time
from functools import partial
from typing import Any, Callable, TypeVar

from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Limit, OutOfBudget
from ltlwit.logic.formula import TICK, Formula, transform
from ltlwit.logic.ltl.check import TIMED_PASS, Prover, cube_evaluator, cube_of, evaluator, labels_for
from ltlwit.logic.ltl.encoding.expand import Translator
from ltlwit.logic.ltl.encoding.labels import MAX_TABLE_APS, Labels, Literal
from ltlwit.logic.ltl.searches.emptiness import accepting_cycle, shortest_path
from ltlwit.logic.trace import Trace

#: A literal of a step as `_drop_chunks` takes it.
Lit = TypeVar("Lit")

#: Alternative SCC entries tried for a shorter lasso.
MAX_ENTRIES = 8
#: Literal-dropping trials per witness (each one check of the candidate trace).
MAX_DROP_TRIALS = 200
#: Product states one such check may explore before the literal is simply kept.
DROP_CHECK_STATES = 300


def best_word(tr: Translator, scc: set, explored: dict, limit: Limit | None = None) -> tuple[list[Any], list[Any]]:
    """The simplified labels of a run into `scc`: a shortest prefix to the SCC and an accepting
    cycle from its entry — and, since another entry can give a shorter lasso, the same from
    each state of that first cycle (at most `MAX_ENTRIES`); the word with fewest steps wins.
    `limit`: the solve's deadline, checked while searching paths (`OutOfTime`)."""
    L = tr.labels
    allowed = explored.__contains__
    prefix = shortest_path(tr.initial, scc.__contains__, tr.edges, allowed, limit=limit)
    entry = prefix[-1][1] if prefix else tr.initial
    cycle = accepting_cycle(entry, scc, tr.edges, tr.all_marks, limit)
    best = simplify_word(L, [e[0] for e in prefix], [e[0] for e in cycle])
    others = list(dict.fromkeys(e[1] for e in cycle if e[1] != entry))[:MAX_ENTRIES]
    for other in others:
        p2 = shortest_path(tr.initial, partial(operator.eq, other), tr.edges, allowed, limit=limit)
        c2 = accepting_cycle(other, scc, tr.edges, tr.all_marks, limit)
        word = simplify_word(L, [e[0] for e in p2], [e[0] for e in c2])
        if len(word[0]) + len(word[1]) < len(best[0]) + len(best[1]):
            best = word
    return best


def simplify_word(L: Labels, prefix: list[Any], cycle: list[Any]) -> tuple[list[Any], list[Any]]:
    """Spot's twa_word::simplify on labels (see the module docstring)."""
    prefix, cycle = list(prefix), list(cycle)
    if len(cycle) > 1:
        conj = L.true
        for label in cycle:
            conj = conj & label
        if conj != L.false:
            cycle = [conj]
    while prefix:
        both = prefix[-1] & cycle[-1]
        if both == L.false:
            break
        prefix.pop()
        cycle.pop()
        cycle.insert(0, both)
    return prefix, cycle


def reduce_cubes(prover: Prover, steps: list[list[Literal]], loop: int) -> list[list[Literal]]:
    """Drop literals while the checker still proves the formula on the trace (three-valued
    pass, else a product of at most `DROP_CHECK_STATES` states; unproven means kept)."""
    L = prover.L
    labels = [L.cube(s) for s in steps]
    trials = 0
    for i, step in enumerate(steps):
        k = 0
        while k < len(step) and trials < MAX_DROP_TRIALS:
            trials += 1
            trial = step[:k] + step[k + 1 :]
            saved = labels[i]
            labels[i] = L.cube(trial)
            if prover.proves(labels, loop, DROP_CHECK_STATES) is True:
                step = steps[i] = trial
            else:
                labels[i] = saved
                k += 1
    return steps


def lasso(prover: Prover, prefix: list[Any], cycle: list[Any]) -> Trace:
    """Cubes for the labels, reduced by `reduce_cubes`, then rotated further where the reduced
    cubes allow it and the checker proves the rotated trace; as a `Trace`."""
    L = prover.L
    steps = [list(L.small_cube(label)) for label in prefix + cycle]
    steps = reduce_cubes(prover, steps, len(prefix))
    k = len(prefix)
    while k:
        last, end = L.cube(steps[k - 1]), L.cube(steps[-1])
        both = last & end
        if both == L.false:
            break
        rotated = steps[: k - 1] + [sorted(set(steps[k - 1]) | set(steps[-1]))] + steps[k:-1]
        if prover.proves([L.cube(s) for s in rotated], k - 1, DROP_CHECK_STATES) is not True:
            break
        steps, k = rotated, k - 1
    forms = [L.to_formula(s) for s in steps]
    return Trace(tuple(forms[:k]), tuple(forms[k:]))


def constant_collapse(f: Formula) -> Formula:
    """The propositional formula c with σ ⊨ c iff the constant word σ^ω ⊨ f (every suffix of a
    constant word is the word itself): Xa→a, Fa→a, Ga→a, a U b→b, a R b→b, a W b→a|b,
    a M b→a&b."""

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        op = node.op
        if op in ("X", "F", "G"):
            return kids[0]
        if op in ("U", "R"):
            return kids[1]
        if op == "W":
            return Formula("|", kids)
        if op == "M":
            return Formula("&", kids)
        return Formula(op, kids) if kids else node

    return transform(f, rule, skip=lambda node: not node.temporal)


def constant_word(prover: Prover, simplified: Formula) -> Trace | None:
    """A one-letter witness `cycle{σ}` when some constant word satisfies the formula, else None.

    Small cubes inside the collapse's label are tried first, smallest first; when the checker
    cannot prove any (words matching a cube need not be constant), a full valuation is used,
    which is exact, and its literals are then reduced like any witness's."""
    L = prover.L
    label = L.of(constant_collapse(simplified))
    if label == L.false:
        return None
    for prime in L.primes(label):
        if prover.proves([L.cube(prime)], 0, DROP_CHECK_STATES) is True:
            return Trace((), (L.to_formula(prime),))
    cube = reduce_cubes(prover, [list(L.minterm(label))], 0)[0]
    return Trace((), (L.to_formula(cube),))


#: Share of the time left that minimising a search witness may use, and its cap in seconds.
MINIMISE_SHARE = 0.25
MINIMISE_SECONDS = 2.0
#: Passes a step that the budget must afford before literals are dropped at all.
DROP_TRIALS = 4


def minimise(formula: Formula, trace: Trace, limit: Limit, seconds: float = MINIMISE_SECONDS) -> Trace:
    """Fewer literals in a witness of the SAT-based searches, on a budget of its own.

    The searches' steps are cubes fixing the APs that each state's expansion mentions; when the
    three-valued pass cannot prove φ on them, every step is completed to a full valuation (any
    completion works: each edge is sound for all of them), on which that pass is exact, so the
    final `holds` never needs the product with the automaton of ¬φ, costly on big formulas.
    Then literals are dropped in halving chunks while the three-valued pass still proves φ
    (sound: it only proves what holds on every matching word). Over more APs than truth tables
    serve, the pass is the label-free `CubeEvaluator` (linear; labels over thousands of APs
    are not). Running out of this budget only stops the dropping: the trace is a witness at
    every step; a budget that would not give each step `DROP_TRIALS` passes does not begin it.
    `seconds`: a cap besides `MINIMISE_SECONDS` (the search gives a share of the time it took
    itself, `solver.MINIMISE_OF_SEARCH`)."""
    # a multi-MB formula's APs from its cube evaluator's plan, the walk the final check needs
    # anyway (0.3-0.5 s for a 2.7 MB formula's own walk, and the deadline read), in `aps()`'s order
    built = 0.0  # seconds to build that evaluator here (0: it was kept from an earlier check)
    cev = None
    if formula.size > TIMED_PASS:
        began = time.perf_counter()
        cev = cube_evaluator(formula, limit)
        built = time.perf_counter() - began
        formula_aps = cev.names
    else:
        formula_aps = formula.aps()
    names = tuple(dict.fromkeys(formula_aps + trace.aps()))
    loop = len(trace.prefix)
    steps: list[dict[str, bool]] = [cube_of(s) or {} for s in trace.steps]
    if len(names) <= MAX_TABLE_APS:
        L = labels_for(names)
        ev = evaluator(formula, L)

        def check(cubes: list[dict[str, bool]], within: Limit) -> bool | None:
            return ev.run([L.cube((L.index[n], v) for n, v in c.items()) for c in cubes], loop)
    else:
        cev = cev or cube_evaluator(formula, limit)

        def check(cubes: list[dict[str, bool]], within: Limit) -> bool | None:
            return cev.run(cubes, loop, within)

    budget = limit.sub(min(MINIMISE_SECONDS, seconds, MINIMISE_SHARE * limit.remaining()))
    if built and all(len(c) == len(names) for c in steps) and budget.remaining() < built * len(steps) * DROP_TRIALS:
        # a pass is a walk of the formula like the evaluator's build just timed: no dropping is
        # affordable, and on full valuations the final check's pass is exact, so a pass here
        # would only repeat it (half a second on a multi-MB specification's constant word)
        return _in_order(steps, names, loop, limit)
    proven = False
    cost = 0.0  # the last pass's seconds: one is not begun with less than that left

    def proves_all(cubes: list[dict[str, bool]], within: Limit) -> bool:
        nonlocal cost
        within.check_time()
        if within.remaining() < cost:  # a pass over a lasso of thousands of steps takes seconds
            raise OutOfBudget("minimising")
        began = time.perf_counter()
        verdict = check(cubes, within) is True
        cost = time.perf_counter() - began
        return verdict

    try:  # the first passes within the solve's time (they spare the final check the product)
        if not proves_all(steps, limit):
            complete = [{n: c.get(n, False) for n in names} for c in steps]
            if not proves_all(complete, limit):
                return trace  # not provable here: the final check decides
            steps = complete
        proven = True  # from here every change to `steps` is one that a pass proved
        if budget.remaining() < cost * len(steps) * DROP_TRIALS:
            # not a few trials a step: a few steps dropped at the front of a 431-step lasso (the
            # 100-client arbiter, 0.14 s a pass) are 2 s spent on nothing a reader would see,
            # and one trial on a multi-MB specification's constant word of 30,000 literals (half
            # of them dropped, which fails) half a second
            raise OutOfBudget("minimising")
        for i in range(len(steps)):

            def proves(lits: list[tuple[str, bool]], i: int = i) -> bool:
                return proves_all(steps[:i] + [dict(lits)] + steps[i + 1 :], budget)

            steps[i] = dict(_drop_chunks(sorted(steps[i].items()), proves))
    except OutOfBudget:
        if not proven:
            return trace
    return _in_order(steps, names, loop, limit)


def _in_order(steps: list[dict[str, bool]], names: tuple[str, ...], loop: int, limit: Limit) -> Trace:
    """The lasso of `steps`, literals in the formula's AP order, as `Labels.to_formula` writes
    them (the deadline read: a counter's witness has 100,000 steps)."""
    forms = []
    for i, s in enumerate(steps):
        if not i % TICK:
            limit.check_time()
        forms.append(cube((n, s[n]) for n in names if n in s))
    return Trace(tuple(forms[:loop]), tuple(forms[loop:]))


def _drop_chunks(lits: list[Lit], proves: Callable[[list[Lit]], bool]) -> list[Lit]:
    """Delete literals in chunks of halving size while `proves(remaining)` holds."""
    chunk = max(1, len(lits) // 2)
    while lits:
        k = 0
        while k < len(lits):
            trial = lits[:k] + lits[k + chunk :]
            if proves(trial):
                lits = trial
            else:
                k += chunk
        if chunk == 1:
            break
        chunk //= 2
    return lits
