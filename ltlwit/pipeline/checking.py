"""The two classical halves of the pipeline: validating a candidate, and the engine fallback.

Validation is the invariant's gate: a candidate is renamed back to the user's APs and judged
by the witness seam (`ltlwit.logic.witness`) against the formula the user wrote (not the core
rewrite the model saw). Anything else (a malformed output, an AP the renaming does not cover,
the wrong kind of witness, a checker error) is a failed candidate. A propositional model answer
is then shrunk to a subset-minimal assignment, the promise the SAT path keeps.
"""

from __future__ import annotations

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.result import Result, Sat, Unknown, WitnessRejected
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Prediction, Witness, holds, invert, is_witness, minimise
from ltlwit.pipeline.options import SolveOptions


def validate(formula: Formula, logic: str, renaming: Renaming, prediction: Prediction, engine: str) -> Witness | None:
    """The candidate in the user's names if it is a witness of `formula`, else None."""
    witness = invert(renaming, prediction)
    if not isinstance(witness, Trace if logic == "ltl" else Assignment) or not is_witness(formula, witness, engine):
        return None
    return minimise(witness, formula) if isinstance(witness, Assignment) else witness


def engine_answer(
    formula: Formula, logic: str, options: SolveOptions, started: float | None = None
) -> tuple[Result, str]:
    """The classical answer and its source (`sat-solver`, `engine`, `spot`). Every witness has
    passed the checker: the SAT path's is re-checked here, the built-in engine checks its own
    with the same `holds` before returning, and Spot's is checked here by ltlwit's checker.
    `started`: when the input's clock started (`time.perf_counter()`), so that `--timeout`
    counts what was spent on it before (parsing, the models)."""
    import time

    from ltlwit.logic import ltl

    start = time.perf_counter() if started is None else started
    deadline = options.deadline(start)
    budget = ltl.Budget(
        seconds=None if deadline is None else max(0.0, deadline - start), start=start, memory=options.ceiling
    )
    if logic == "prop":
        from ltlwit.logic.prop import solve_prop

        result = solve_prop(formula, budget)
        if isinstance(result, Sat) and not holds(formula, result.witness):
            raise WitnessRejected.of(formula, result.witness)
        return result, "sat-solver"
    data = {"declarations": options.declarations} if formula.data or options.declarations is not None else {}
    result = ltl.solve(formula, budget, engine=options.engine, semantics=options.semantics, **data)
    if options.engine != "spot":
        return result, "engine"
    if isinstance(result, Sat) and not holds(formula, result.witness, engine="builtin"):
        return Unknown("Spot's witness failed ltlwit's check; not printed"), "spot"
    return result, "spot"
