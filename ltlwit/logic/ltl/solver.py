"""The built-in satisfiability procedure: prepare, try a constant word, search on the fly,
extract and verify a witness.

Order of work, cheapest first:
1. `simplify` (NNF + basic rewrites): `0` is unsat at once.
2. Propositional formulas (after rewriting) go to the propositional SAT solver
   (`ltlwit.logic.prop`): its subset-minimal assignment σ gives the witness `cycle{σ}`.
3. The constant-word shortcut (`witness.constant_word`): most satisfiable formulas have a
   one-letter witness `cycle{σ}`, found from one label, no automaton.
4. The on-the-fly automaton and Couvreur's emptiness check; a run into the first accepting SCC
   becomes a small lasso (`witness`).
Every witness is re-checked with `holds` before it is returned; a budget gives `Unknown`: the
state budget bounds step 4's search, the deadline every step from 3 on (constant word, search,
witness minimisation, the final check).
"""

from __future__ import annotations

from ltlwit.logic.formula import FALSE, Formula
from ltlwit.logic.ltl.check import Prover, holds, labels_for
from ltlwit.logic.ltl.emptiness import Budget, Limit, OutOfBudget, accepting_scc
from ltlwit.logic.ltl.expand import Translator
from ltlwit.logic.ltl.rewrite import simplify
from ltlwit.logic.ltl.witness import best_word, constant_word, lasso
from ltlwit.logic.result import Result, Sat, Unknown, Unsat
from ltlwit.logic.trace import Trace


def solve_builtin(formula: Formula, budget: Budget | None = None) -> Result:
    limit = Limit(budget)
    prepared = simplify(formula)
    if prepared is FALSE:
        return Unsat("rewriting")
    if not prepared.temporal:
        return _propositional(formula, prepared)
    L = labels_for(formula.aps())
    try:
        prover = Prover(formula, L, limit)
        trace = constant_word(prover, prepared)
        if trace is None:
            tr = Translator(prepared, L, limit=limit)
            scc, explored = accepting_scc(tr.initial, tr.edges, tr.all_marks, limit)
            if scc is None:
                return Unsat("emptiness")
            prefix, cycle = best_word(tr, scc, explored, limit)
            trace = lasso(prover, prefix, cycle)
        return _verified(formula, trace, limit.with_states(None))  # the deadline, not the state budget
    except OutOfBudget as e:
        # the state budget bounds the search only; any stage may run out of time (constant
        # word, search, witness minimisation, the final check): never a verdict, only Unknown
        return Unknown(str(e))


def _propositional(formula: Formula, prepared: Formula) -> Result:
    """The SAT solver's subset-minimal assignment as `cycle{cube}` (Spot's simplified word for a
    propositional formula has this shape too)."""
    from ltlwit.logic.formula import And, Not, ap
    from ltlwit.logic.prop import solve_prop

    result = solve_prop(prepared)
    if not isinstance(result, Sat):
        return result
    lits = [ap(n) if v else Not(ap(n)) for n, v in result.witness.values]
    return _verified(formula, Trace((), (And(*lits),)))


def _verified(formula: Formula, trace: Trace, limit: Limit | None = None) -> Result:
    """The last line of defence: a witness is returned only when the checker accepts it."""
    if holds(formula, trace, limit):
        return Sat(trace)
    return Unknown(f"internal error: candidate witness {trace.prefix}/{trace.cycle} failed its check")
