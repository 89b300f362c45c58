"""LTL on finite traces (LTLf) as a dimension of the one engine: an end condition, not a
second solver.

A finite trace `s0; ...; s(n-1)` is the lasso `s0 & A; ...; s(n-1) & A; cycle{!A}` over one
more AP `A` ("alive", a name the formula and trace do not use), and φ holds on the finite
trace exactly when its translation `t(φ)` holds on that lasso (De Giacomo and Vardi's
reduction, Spot's `from_ltlf`): every future operator is guarded by `A`, so each subformula
is only ever evaluated at alive instants, and the dead suffix answers nothing.

    t(X f)  = X(A & t(f))          strong next: there is a next instant
    t(wX f) = X(!A | t(f))         weak next: if there is one
    t(F f)  = F(A & t(f))          t(G f) = G(!A | t(f))
    t(f U g) = t(f) U (A & t(g))   t(f R g) = t(f) R (!A | t(g))
    t(f W g) = t(g) R (!A | t(f) | t(g))    t(f M g) = t(g) U (A & t(f) & t(g))

Booleans and the past operators keep their shape: the past of an alive instant is alive.

So the one checker (`check.holds`) decides finite traces, and the one portfolio decides
finite satisfiability: φ has a finite model iff `A & G(!A -> X !A) & F !A & t(φ)` has an
infinite one (alive at first, dead from some instant on, never alive again), and the
portfolio's bounded search, k-liveness and explicit search, its rewriting and its witness
minimisation all work on that formula unchanged. The lasso witness becomes a finite trace
by cutting it at the first step that does not force `A` (`finite_part`); the result is
checked again, on the formula as written, before it is returned.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from ltlwit.logic import stage
from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import (
    Budget,
    HardLimit,
    Limit,
    OutOfBudget,
    OutOfTime,
    before_the_search,
    check_deadline,
    paced,
)
from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, And, Formula, Not, Or, ap, conjuncts, postorder, transform
from ltlwit.logic.result import Result, Sat, Unknown, Unsat, WitnessRejected
from ltlwit.logic.trace import Trace


def alive_name(*taken: tuple[str, ...]) -> str:
    """An AP name none of `taken` uses (the formula's, the trace's)."""
    used = {name for names in taken for name in names}
    name, k = "alive", 0
    while name in used:
        k += 1
        name = f"alive{k}"
    return name


def strong(formula: Formula) -> Formula:
    """`formula` with every weak next made an X: the same formula on infinite traces."""
    if not formula.weak:
        return formula
    return transform(
        formula,
        lambda node, kids: Formula("X" if node.op == WEAK_NEXT else node.op, kids, node.name) if kids else node,
        skip=lambda node: not node.weak,  # a subformula without a weak next stays as it is
    )


def translate(formula: Formula, alive: Formula) -> Formula:
    """t(φ) of the module docstring: φ on finite traces as a formula on infinite ones."""
    dead = Not(alive)

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        op = node.op
        if not kids:
            return node
        if op == "X":
            return Formula("X", (And(alive, kids[0]),))
        if op == WEAK_NEXT:
            return Formula("X", (Or(dead, kids[0]),))
        if op == "F":
            return Formula("F", (And(alive, kids[0]),))
        if op == "G":
            return Formula("G", (Or(dead, kids[0]),))
        if op == "U":
            return Formula("U", (kids[0], And(alive, kids[1])))
        if op == "R":
            return Formula("R", (kids[0], Or(dead, kids[1])))
        if op == "W":
            return Formula("R", (kids[1], Or(dead, kids[0], kids[1])))
        if op == "M":
            return Formula("U", (kids[1], And(alive, kids[0], kids[1])))
        return Formula(op, kids, node.name)

    return transform(formula, rule, skip=lambda node: not node.temporal)


#: `wX 0`: true exactly at the last instant of a finite trace.
END = Formula(WEAK_NEXT, (FALSE,))


def last_instant(formula: Formula) -> Formula:
    """`formula` with what finite traces decide at their last instant said so, before the
    translation hides it behind the alive guards: `F G f` and `G F f` both mean "f at the last
    instant", `F(END & f)` (so do `!G F f` and `!F G f`, for `!f`); the top-level conjuncts
    that speak of the last instant become one, `F(END & f & g)`, which also takes in the bodies
    of the `G` conjuncts (they hold there too). Schuppan's `O2formula` (fifty `F G` of a cycle
    of equivalences) is then one propositional contradiction at the end, and `phltl` (`G F` of
    mutually exclusive pigeons) one too, instead of a search. Linear in the formula."""

    def ends(f: Formula) -> Formula:
        return Formula("F", (Formula("&", (END, f)),))

    def twice(f: Formula) -> Formula | None:
        """f's operand when f is `F G f` or `G F f`."""
        if f.op in ("F", "G") and f.children[0].op == ("G" if f.op == "F" else "F"):
            return f.children[0].children[0]
        return None

    def rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
        if not kids:
            return node
        rebuilt = Formula(node.op, kids, node.name)
        inner = twice(rebuilt)
        if inner is not None:
            return ends(inner)
        if (
            node.op == "!"
            and kids[0].op == "F"
            and kids[0].children[0].op == "&"
            and kids[0].children[0].children[0] is END
        ):  # `!F G f`, `!G F f`, rewritten below
            return ends(Not(kids[0].children[0].children[1]))
        return rebuilt

    local = transform(formula, rule, skip=lambda node: not node.temporal)
    parts = conjuncts(local)
    last = [
        p.children[0].children[1]
        for p in parts
        if p.op == "F" and p.children[0].op == "&" and p.children[0].children[0] is END
    ]
    always = [p.children[0] for p in parts if p.op == "G"]
    if len(last) > 1 or last and always:
        rest = [p for p in parts if not (p.op == "F" and p.children[0].op == "&" and p.children[0].children[0] is END)]
        return And(*rest, ends(And(*last, *always)))
    return local


def as_lasso(trace: Trace, alive: Formula) -> Trace:
    """The lasso a finite trace stands for: its steps alive, then dead forever."""
    steps = paced(trace.prefix, check_deadline)  # (a log's instants: a `deadline_scope` may hold them)
    return Trace(tuple(And(step, alive) if step is not TRUE else alive for step in steps), (Not(alive),))


def holds(formula: Formula, trace: Trace, limit: Limit | None = None) -> bool:
    """Whether every finite word matching the finite `trace` satisfies `formula` (finite
    semantics), by the one checker on the lasso the trace stands for; `limit` as `check.holds`.
    Where the checker's linear passes cannot tell (values the steps leave free decide it) and
    the formula looks back, the words are finite: the formula spelled out instant by instant
    over them is a propositional question (`unrolled`) for a SAT solver, where the lasso's
    checker builds the product with its past monitors' automaton (`check.eliminated`)."""
    from ltlwit.logic.ltl import check

    alive = ap(alive_name(formula.aps(), trace.aps()))
    translated, lasso = _translated(formula, alive), as_lasso(trace, alive)
    if not formula.past or not trace.prefix:
        return check.holds(translated, lasso, limit)
    verdict = check.passes(translated, lasso, limit)
    return verdict if verdict is not None else _every_word(formula, trace, limit)


def _every_word(formula: Formula, trace: Trace, limit: Limit | None) -> bool:
    """Whether every word matching the finite `trace` satisfies `formula`: no assignment to
    the values its steps leave free satisfies the steps and not the formula (SAT), within
    `limit` (`OutOfTime` past it)."""
    from ltlwit.logic.prop import solve_prop

    n = len(trace.prefix)
    tick = limit.check_time if limit is not None else check_deadline
    steps = [_at(step, i) for i, step in enumerate(trace.prefix)]
    question = And(*steps, Not(unrolled(formula, n, tick)[0]))
    return not isinstance(deciding(lambda budget: solve_prop(question, budget), limit), Sat)


def deciding(ask: Callable[[Budget | None], Result], limit: Limit | None) -> Sat | Unsat:
    """The answer to a question put to a solver (whether a word matching the trace violates
    the formula), given the time `limit` leaves; `OutOfTime` where it runs out."""
    result = ask(None if limit is None or limit.deadline is None else Budget(seconds=limit.remaining()))
    if isinstance(result, Unknown):
        raise OutOfTime(f"deciding the trace: {result.reason}")
    return result


def _at(step: Formula, i: int) -> Formula:
    """A step's propositional formula over the values at instant i (`unrolled`'s names)."""
    return transform(
        step,
        lambda node, kids: _at_instant(node, i) if node.op == "ap" else node if not kids else Formula(node.op, kids),
    )


def _at_instant(p: Formula, i: int) -> Formula:
    """The proposition for AP `p`'s value at instant i: `I:p` (the first colon ends I)."""
    return ap(f"{i}:{p.name}")


def unrolled(formula: Formula, n: int, tick: Callable[[], None] = check_deadline) -> list[Formula]:
    """`formula`'s value at each of the n instants of a finite word, as propositional formulas
    over `I:p` (p's value at instant I): each operator's finite semantics spelled out instant by
    instant (a strong `X` is false at the last instant, a weak one true; `Y` false at the first,
    `Z` true), each subformula at each instant made once, so the size is the formula's DAG
    times n. The direct decision where a finite trace leaves values free."""
    values: dict[Formula, list[Formula]] = {}
    for node in postorder(formula, tick=tick):
        op, kids = node.op, [values[c] for c in node.children]
        if op == "ap":
            out = [_at_instant(node, i) for i in range(n)]
        elif op in ("1", "0"):
            out = [node] * n
        elif op == "!":
            out = [_not(a) for a in kids[0]]
        elif op in ("&", "|", "->", "<->", "xor"):
            out = [_BOOLEAN[op](a, b) for a, b in zip(kids[0], kids[1])]
        elif op in _FUTURE or op in _PAST:
            out = _temporal(op, kids, n)
        else:
            raise ValueError(f"no finite semantics for {op!r} here")
        values[node] = out
        if len(values) & 1023 == 0:
            tick()
    return values[formula]


def _temporal(op: str, kids: list[list[Formula]], n: int) -> list[Formula]:
    """A temporal operator's value at each instant from its operands': the future ones from the
    last instant back, the past ones from the first on, each by its one-step expansion."""
    a = kids[0]
    b = kids[1] if len(kids) > 1 else a
    out: list[Formula] = [FALSE] * n
    if op in _FUTURE:
        end, step = _FUTURE[op]
        after = end  # the value past the last instant
        for i in range(n - 1, -1, -1):
            after = out[i] = step(a[i], b[i], after, a[i + 1] if i + 1 < n else None)
    else:
        start, step = _PAST[op]
        before = start  # the value before the first instant
        for i in range(n):
            before = out[i] = step(a[i], b[i], before, a[i - 1] if i > 0 else None)
    return out


def _not(a: Formula) -> Formula:
    return FALSE if a is TRUE else TRUE if a is FALSE else a.children[0] if a.op == "!" else Not(a)


def _and(a: Formula, b: Formula) -> Formula:
    return FALSE if FALSE in (a, b) else b if a is TRUE else a if b is TRUE else And(a, b)


def _or(a: Formula, b: Formula) -> Formula:
    return TRUE if TRUE in (a, b) else b if a is FALSE else a if b is FALSE else Or(a, b)


_BOOLEAN: dict[str, Callable[[Formula, Formula], Formula]] = {
    "&": _and,
    "|": _or,
    "->": lambda a, b: _or(_not(a), b),
    "<->": lambda a, b: _or(_and(a, b), _and(_not(a), _not(b))),
    "xor": lambda a, b: _or(_and(a, _not(b)), _and(_not(a), b)),
}
#: Each future operator: its value past the last instant, and its value at an instant from its
#: operands' there (`a`, `b`), its own at the next instant, and its operand's at the next (X).
_FUTURE: dict[str, tuple[Formula, Callable[..., Formula]]] = {
    "X": (FALSE, lambda a, b, after, next_a: next_a if next_a is not None else FALSE),
    WEAK_NEXT: (TRUE, lambda a, b, after, next_a: next_a if next_a is not None else TRUE),
    "F": (FALSE, lambda a, b, after, next_a: _or(a, after)),
    "G": (TRUE, lambda a, b, after, next_a: _and(a, after)),
    "U": (FALSE, lambda a, b, after, next_a: _or(b, _and(a, after))),
    "W": (TRUE, lambda a, b, after, next_a: _or(b, _and(a, after))),
    "R": (TRUE, lambda a, b, after, next_a: _and(b, _or(a, after))),
    "M": (FALSE, lambda a, b, after, next_a: _and(b, _or(a, after))),
}
#: Each past operator: its value before the first instant, and its value at an instant from its
#: operands' there, its own at the previous instant, and its operand's at the previous (Y).
_PAST: dict[str, tuple[Formula, Callable[..., Formula]]] = {
    "Y": (FALSE, lambda a, b, before, last_a: last_a if last_a is not None else FALSE),
    "Z": (TRUE, lambda a, b, before, last_a: last_a if last_a is not None else TRUE),
    "O": (FALSE, lambda a, b, before, last_a: _or(a, before)),
    "H": (TRUE, lambda a, b, before, last_a: _and(a, before)),
    "S": (FALSE, lambda a, b, before, last_a: _or(b, _and(a, before))),
    "T": (TRUE, lambda a, b, before, last_a: _and(b, _or(a, before))),
}


@lru_cache(maxsize=256)
def _translated(formula: Formula, alive: Formula) -> Formula:
    """`translate`, remembered for `holds`: `check` judges witnesses against each of a FRET
    export's requirements again and again (70,000 checks for `--vacuity --redundancy` on 97
    requirements), and translating took a fifth of it."""
    return translate(formula, alive)


def guarded(formula: Formula) -> tuple[Formula, Formula]:
    """The infinite-trace formula with the same models as `formula` on finite traces (module
    docstring), and its alive proposition."""
    alive = ap(alive_name(formula.aps()))
    dead = Not(alive)
    return And(
        alive,
        Formula("G", (Or(alive, Formula("X", (dead,))),)),
        Formula("F", (dead,)),
        translate(last_instant(formula), alive),
    ), alive


def solve(formula: Formula, budget: Budget | None = None) -> Result:
    """Finite satisfiability with a verified finite witness, by the portfolio on the
    alive-guarded formula (module docstring)."""
    from ltlwit.logic.ltl.solver import solve_builtin

    try:  # a rewrite of every node: under the deadline before the search has its own
        with before_the_search(budget, "rewriting for finite traces"):
            infinite, alive = guarded(formula)
    except HardLimit as exc:
        return Unknown(str(exc))
    result = solve_builtin(infinite, budget, end=alive.name)
    if not isinstance(result, Sat):
        return result
    lasso = result.witness  # the guarded formula is temporal: its witness is a lasso
    trace = finite_part(lasso, alive) if isinstance(lasso, Trace) else None
    stage.enter("checking the finite witness")
    try:
        verified = trace is not None and holds(formula, trace, Limit(budget))
    except OutOfBudget as e:
        return Unknown(str(e))
    if trace is None or not verified:
        raise WitnessRejected.of(formula, trace if trace is not None else f"cut from {result.witness}")
    return Sat(trace)


def finite_part(lasso: Trace, alive: Formula) -> Trace | None:
    """The finite trace a witness of the guarded formula gives: its steps up to the first one
    that does not force `alive` (some letter of it has `alive` false), with `alive` set true
    in them. Every word of that finite trace extends (dead from there on) to a word of the
    lasso, so it satisfies φ. None when no step ends it (not a witness of the guarded
    formula)."""
    from ltlwit.logic.ltl.check import cube_of
    from ltlwit.logic.ltl.encoding.rewrite import simplify
    from ltlwit.logic.prop import solve_prop

    steps: list[Formula] = []
    awake = str(alive.name)
    for step in lasso.steps:
        literals = cube_of(step)
        if literals is not None:
            if literals.get(awake) is not True:
                break
            steps.append(cube((n, v) for n, v in literals.items() if n != awake))
        else:
            if isinstance(solve_prop(_with(step, alive, FALSE)), Sat):
                break
            steps.append(simplify(_with(step, alive, TRUE)))
    else:
        return None
    return Trace(tuple(steps), ()) if steps else None


def _with(step: Formula, alive: Formula, value: Formula) -> Formula:
    """The step with the constant `value` in place of `alive`."""
    return transform(
        step, lambda node, kids: value if node is alive else Formula(node.op, kids, node.name) if kids else node
    )
