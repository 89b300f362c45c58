"""From an accepting SCC to a small symbolic lasso.

1. The run: a shortest path (over explored states) from the initial state into the accepting
   SCC, then a cycle from the entry state through every acceptance mark (`emptiness`).
2. Spot's word simplification (`twa_word::simplify`): when the conjunction of the cycle's
   labels is satisfiable the cycle becomes that one letter; then, while the last prefix label
   is compatible with the last cycle label, the prefix is rotated into the cycle. Both keep
   the word on an accepting run of the automaton, so every matching word is still accepted.
3. Each label becomes a small cube inside it (`Labels.small_cube`): still on the run, so still
   a witness, and never an unsatisfiable step.
4. Literals the three-valued evaluator proves unnecessary are dropped, one at a time; the
   evaluator is sound, so the trace stays a witness.

The caller re-checks the final trace with `holds` before returning it.
"""

from __future__ import annotations

from typing import Any

from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl.check import Evaluator
from ltlwit.logic.ltl.emptiness import accepting_cycle, shortest_path
from ltlwit.logic.ltl.expand import Translator
from ltlwit.logic.ltl.labels import Labels, Literal
from ltlwit.logic.trace import Trace

#: Literal-dropping trials per witness (each one three-valued evaluation).
MAX_DROP_TRIALS = 200


def run_labels(tr: Translator, scc: set, explored: dict) -> tuple[list[Any], list[Any]]:
    """Labels along the prefix and the accepting cycle of a run into `scc`."""
    prefix = shortest_path(tr.initial, scc.__contains__, tr.edges, explored.__contains__)
    entry = prefix[-1][1] if prefix else tr.initial
    cycle = accepting_cycle(entry, scc, tr.edges, tr.all_marks)
    return [e[0] for e in prefix], [e[0] for e in cycle]


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


def reduce_cubes(ev: Evaluator, steps: list[list[Literal]], loop: int) -> list[list[Literal]]:
    """Drop literals while the sound three-valued evaluation still proves the formula."""
    L = ev.L
    labels = [L.cube(s) for s in steps]
    trials = 0
    for i, step in enumerate(steps):
        k = 0
        while k < len(step) and trials < MAX_DROP_TRIALS:
            trials += 1
            trial = step[:k] + step[k + 1:]
            saved = labels[i]
            labels[i] = L.cube(trial)
            if ev.run(labels, loop) is True:
                step = steps[i] = trial
            else:
                labels[i] = saved
                k += 1
    return steps


def lasso(ev: Evaluator, prefix: list[Any], cycle: list[Any]) -> Trace:
    """Cubes for the labels, reduced by `reduce_cubes`, as a `Trace`."""
    L = ev.L
    steps = [list(L.small_cube(label)) for label in prefix + cycle]
    steps = reduce_cubes(ev, steps, len(prefix))
    forms = [L.to_formula(s) for s in steps]
    return Trace(tuple(forms[:len(prefix)]), tuple(forms[len(prefix):]))


def constant_collapse(f: Formula) -> Formula:
    """The propositional formula c with σ ⊨ c iff the constant word σ^ω ⊨ f (every suffix of a
    constant word is the word itself): Xa→a, Fa→a, Ga→a, a U b→b, a R b→b, a W b→a|b,
    a M b→a&b."""
    from ltlwit.logic.formula import Formula as F_

    memo: dict[Formula, Formula] = {}
    stack: list[tuple[Formula, bool]] = [(f, False)]
    while stack:
        node, ready = stack.pop()
        if node in memo:
            continue
        if not node.temporal:
            memo[node] = node
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children if c not in memo)
            continue
        kids = [memo[c] for c in node.children]
        op = node.op
        if op in ("X", "F", "G"):
            memo[node] = kids[0]
        elif op in ("U", "R"):
            memo[node] = kids[1]
        elif op == "W":
            memo[node] = F_("|", (kids[0], kids[1]))
        elif op == "M":
            memo[node] = F_("&", (kids[0], kids[1]))
        else:
            memo[node] = F_(op, tuple(kids))
    return memo[f]


def constant_word(ev: Evaluator, simplified: Formula) -> Trace | None:
    """A one-letter witness `cycle{σ}` when some constant word satisfies the formula, else None.

    A cube inside the collapse's label is tried first; when the three-valued evaluation cannot
    prove it (words matching a cube need not be constant), a full valuation is used, which is
    exact, and its literals are then reduced like any witness."""
    L = ev.L
    label = L.of(constant_collapse(simplified))
    if label == L.false:
        return None
    cube = list(L.small_cube(label))
    if ev.run([L.cube(cube)], 0) is not True:
        cube = list(L.minterm(label & L.cube(cube)))
        cube = reduce_cubes(ev, [cube], 0)[0]
    return Trace((), (L.to_formula(cube),))
