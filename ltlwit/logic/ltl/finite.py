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

from ltlwit.logic import stage
from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Budget, HardLimit, Limit, OutOfBudget, before_the_search, check_deadline, paced
from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, And, Formula, Not, Or, ap, conjuncts, transform
from ltlwit.logic.result import Result, Sat, Unknown, WitnessRejected
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
        formula, lambda node, kids: Formula("X" if node.op == WEAK_NEXT else node.op, kids, node.name) if kids else node
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
    semantics), by the one checker on the lasso the trace stands for; `limit` as `check.holds`."""
    from ltlwit.logic.ltl import check

    alive = ap(alive_name(formula.aps(), trace.aps()))
    return check.holds(_translated(formula, alive), as_lasso(trace, alive), limit)


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
    trace = finite_part(result.witness, alive)  # type: ignore[arg-type]
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
