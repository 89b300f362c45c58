"""LTL modulo theories: formulas over data decided by the one engine with an SMT solver under
its step encoding.

A formula over data becomes its Boolean abstraction (`theory.abstraction`): one proposition per
atom, guarded at the trace's ends. Two procedures then decide it, in rounds of doubling time:

1. **The bounded search with the theory** (`smt_bounded`): the abstraction's X-normal-form step
   (`xnf`), copied step by step as the bounded lasso search copies it (`bounded`), into z3
   instead of MiniSat, each atom's proposition at step i bound to its comparison over the values
   at the instants it reads, as BLACK's encoding of LTLf modulo theories does. Bound k asks for a
   model of k instants (finite semantics) or a lasso closing after step k whose loop closes the
   values too (infinite semantics). Every satisfiable formula has a finite model of some length,
   so on finite traces this search finds one, unless z3 gives up on that length (BLACK's
   semi-decision procedure); it proves
   unsatisfiability the way BLACK does once next and previous values are compared: when no run
   reaches step k and no shorter model exists, there is no model at all.
2. **The abstraction refined** (`refinement`): the engine's own portfolio decides the
   abstraction with lemmas z3 learns from its witnesses; unsatisfiable means unsatisfiable. This
   proves what no bound can: `G(x > 0) & F(x < 0)`.

Neither guesses: UNSAT only from a proof, otherwise UNKNOWN with the reason (the logic is
undecidable), and every witness is checked by the exact evaluator (`theory.evaluate`), which
does not use z3, before it is returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ltlwit.logic import stage
from ltlwit.logic.budget import Budget, Limit, OutOfBudget, Watchdog
from ltlwit.logic.formula import FALSE, TRUE, Formula, collector_paused
from ltlwit.logic.ltl.searches.refinement import Refinement
from ltlwit.logic.ltl.searches.smt_bounded import Bounded, TheoryUnroller
from ltlwit.logic.result import Result, Unknown, Unsat
from ltlwit.logic.theory.abstraction import Abstraction
from ltlwit.logic.theory.terms import SHIFTS

if TYPE_CHECKING:
    from ltlwit.logic.theory.smt import Encoder

#: The first round's time, in seconds; each round doubles it.
FIRST_ROUND = 0.25
#: The refinement's time in a round, as a share of the bounded search's.
REFINE_SHARE = 0.25
#: Seconds a formula whose values never repeat (`never_repeats`) is given for a proof of
#: unsatisfiability (`G(x < next(x)) & G(x <= 2)` takes 0.2 s): it has no lasso to find.
NO_LASSO_TRY = 1.0
#: Seconds z3 is given for each of the small questions that classify a formula (`never_repeats`,
#: `exact`): one atom at one or two instants.
SMALL_QUESTION = 0.2
#: The exact abstraction's time when the solve has no deadline.
NO_END = 1e9
#: Seconds before the deadline at which z3 is interrupted (at most a tenth of the budget):
#: simplifying a large problem it heeds an interrupt late, 0.6-1.9 s on 256 instants of
#: BLACK's LRA counters.
Z3_LAG = 0.5


def solve(abstraction: Abstraction, budget: Budget | None = None) -> Result:
    """Decide a formula over data (module docstring), as its `abstraction` says: on finite
    traces when `abstraction.finite`."""
    moving = None
    with collector_paused():
        limit = Limit(budget)
        if limit.deadline is not None:
            limit.deadline -= min(Z3_LAG, 0.1 * limit.remaining())
        try:
            moving = never_repeats(abstraction, limit) if not abstraction.finite else None
            if moving is not None:  # no lasso to find: only a proof that no trace at all exists
                limit = limit.sub(NO_LASSO_TRY)
            result = _portfolio(abstraction, limit)
        except OutOfBudget as e:
            result = Unknown(str(e))
    if moving is not None and isinstance(result, Unknown):  # infinite models may still exist
        return Unknown(f"no lasso can repeat the values: {moving}, so a trace's values never repeat")
    hard = nonlinear(abstraction)
    if isinstance(result, Unknown) and hard:
        if result.reason.startswith("the SMT solver gave up"):
            raise ValueError(f"the SMT solver gives up on the non-linear atom {hard[0]} ({result.reason})")
        return Unknown(f"{result.reason} (the SMT solver may not decide the non-linear atom {hard[0]})")
    return result


def never_repeats(abstraction: Abstraction, limit: Limit | None = None) -> str | None:
    """Why no lasso satisfies a formula over data whose values must change the same way at
    every instant, or None: a comparison that holds everywhere (a conjunct of a top-level `G`)
    and forces a variable to grow (`next(x) = x + 1`, `next(x) > x`) or to shrink from each
    instant to the next, as z3 proves of that comparison alone (a lasso's loop returns to the
    values it left). Such a formula may still have infinite models, none of them a lasso.
    Within `limit`."""
    from ltlwit.logic.formula import conjuncts
    from ltlwit.logic.theory.smt import Encoder

    everywhere = [
        _past_escape(a) for g in conjuncts(abstraction.formula) if g.op == "G" for a in conjuncts(g.children[0])
    ]
    atoms = [abstraction.atoms[a.name] for a in everywhere if a.op == "ap" and a.name in abstraction.atoms]
    candidates = [a for a in atoms if any(n.op in ("next", "wnext", "prev", "wprev") for n in a.walk())]
    if not candidates:
        return None
    encoder = Encoder(abstraction.signature)
    numeric = [n for n, s in abstraction.signature.variables.items() if s.name in ("Int", "Real")]
    limit = limit or Limit(None)
    with _small_questions(encoder, limit) as ask:
        for a in candidates:
            held = encoder.atom(a, 5)  # far from the ends: every shift reads an instant there is
            mine = [n for n in numeric if n in a.variables()]
            for name, (before, after) in ((n, step) for n in mine for step in ((4, 5), (5, 6))):
                for grows in (True, False):
                    x, y = encoder.var(name, before), encoder.var(name, after)
                    if ask(held, x >= y if grows else x <= y) == "unsat":
                        return f"{name} {'grows' if grows else 'shrinks'} at every instant ({a})"
    limit.check_time()  # an interrupted check answers unknown: out of time, not "no proof"
    return None


@contextmanager
def _small_questions(encoder: Encoder, limit: Limit) -> Iterator[Callable[..., str]]:
    """Ask z3 small questions (a conjunction each: "sat", "unsat" or "unknown") within
    `SMALL_QUESTION` seconds each and the solve's deadline: z3 took seconds past its own timeout
    on a numeral of 73,000 digits, so the watchdog interrupts it at the deadline."""
    import z3

    def ask(*constraints: z3.ExprRef) -> str:
        limit.check_time()
        solver = z3.Solver(ctx=encoder.ctx)
        solver.set("timeout", int(SMALL_QUESTION * 1000))
        solver.add(*constraints)
        return str(solver.check())

    try:
        with Watchdog(limit, encoder.interrupt):
            yield ask
    except z3.Z3Exception:  # a call the watchdog's interrupt cut short: out of time, if it was
        limit.check_time()
        raise


def _past_escape(conjunct: Formula) -> Formula:
    """The atom of `!Y^v 1 | ... | atom` (a weak `prev` read true at the first v instants, the
    abstraction's guard): it holds at every instant from v on, which is all a lasso's loop
    needs; any other conjunct as it is."""
    if conjunct.op != "|":
        return conjunct
    rest = [c for c in conjunct.children if not _first_instants(c)]
    return rest[0] if len(rest) == 1 else conjunct


def _first_instants(f: Formula) -> bool:
    """`!Y^v 1` (v >= 1): true only at the first v instants, or `!X^w 1`: never true on infinite
    traces."""
    if f.op != "!" or f.children[0].op not in ("Y", "X"):
        return False
    chain = f.children[0]
    while chain.children[0].op == chain.op:
        chain = chain.children[0]
    return chain.children[0] == TRUE


def nonlinear(abstraction: Abstraction) -> list[str]:
    """The atoms whose arithmetic is not linear: a product of two terms with variables, a
    quotient or remainder by one. z3 decides linear arithmetic; on these it may give up."""
    out = []
    for a in abstraction.names:
        for node in a.walk():
            if (
                node.op == "*"
                and all(c.variables() for c in node.children)
                or node.op in ("/", "mod")
                and node.children[1].variables()
            ):
                out.append(str(a))
                break
    return out


def exact(abstraction: Abstraction, encoder: Encoder, limit: Limit) -> bool:
    """Whether the abstraction has exactly the formula's models: each atom reads its own
    instant only (no shift, no `pre`) and no uninterpreted function, no two atoms share a
    variable, and each is true for some values and false for others (z3, through `encoder`,
    within `limit`). Then every truth assignment to the atoms at an instant has values, and the
    engine decides the abstraction alone, without the theory in its search: FRET's
    `persisted(100, x > 50.0)` needs 101 instants, which the bounded search with the theory
    reaches in 3-9 s and the engine in under one."""
    seen: set[str] = set()
    for a in abstraction.atoms.values():
        if any(n.op in SHIFTS or n.op in ("call", "pred") for n in a.walk()):
            return False
        mine = set(a.variables())
        if not mine or mine & seen:
            return False
        seen |= mine
    import z3

    with _small_questions(encoder, limit) as ask:
        for a in abstraction.atoms.values():
            held = encoder.atom(a, 0)
            if ask(held) != "sat" or ask(z3.Not(held)) != "sat":
                return False
    return True


def _portfolio(abstraction: Abstraction, limit: Limit) -> Result:
    """The two procedures in rounds of doubling time, the bounded search first (most
    satisfiable formulas have a short model)."""
    from ltlwit.logic.ltl import finite as finite_traces
    from ltlwit.logic.ltl.encoding.rewrite import simplify
    from ltlwit.logic.ltl.encoding.xnf import step
    from ltlwit.logic.theory.smt import Encoder

    encoder = Encoder(abstraction.signature)  # the refinement's, which also asks whether it is exact
    if exact(abstraction, encoder, limit):  # the engine alone, once: no lemma is ever needed
        refinement = Refinement(abstraction, encoder)
        stage.enter("abstraction, exact")
        with Watchdog(limit, refinement.encoder.interrupt):
            result = refinement.advance(limit, min(limit.remaining(), NO_END))
        if result is None:
            limit.check_time()
            return Unknown("no values for the abstraction's witness")
        return result
    stage.enter("rewriting")
    formula, alive = abstraction.formula, None
    if abstraction.finite:
        formula, alive = finite_traces.guarded(formula)
    else:
        formula = finite_traces.strong(formula)  # a weak next is X on infinite traces
    prepared = simplify(formula, limit)
    if prepared is FALSE:
        return Unsat("rewriting")
    encoding = step(prepared, limit=limit)
    end = -encoding.aps[alive.name] if alive is not None and alive.name in encoding.aps else None
    bounded = Bounded(
        abstraction,
        TheoryUnroller(
            encoding, abstraction, Encoder(abstraction.signature), limit, end, alive.name if alive is not None else None
        ),
        limit,
    )
    refinement = Refinement(abstraction, encoder)
    seconds = FIRST_ROUND
    owed = 0.0  # what the refinement took past its shares so far (the engine's searches overrun)
    import z3

    def interrupt() -> None:
        bounded.interrupt()
        refinement.encoder.interrupt()

    try:
        with Watchdog(limit, interrupt):
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
