"""The two classical halves of the pipeline: validating a candidate, and the engine fallback.

Validation is the invariant's gate: a candidate is renamed back to the user's APs and checked
against the formula the user wrote (not the core rewrite the model saw) — a lasso trace with
the LTL checker (`holds`: every word of it satisfies the formula), an assignment with SAT
entailment. Anything else (a malformed output, an AP the renaming does not cover, the wrong
kind of witness, a checker error) is a failed candidate. A propositional model answer is then
shrunk to a subset-minimal assignment, the promise the SAT path keeps, each step re-checked.
"""

from __future__ import annotations

from ltlwit.eval.predictor import Invalid, Prediction, invert
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.result import Result, Sat, Unknown
from ltlwit.logic.trace import Trace
from ltlwit.solve import SolveOptions


def validate(formula: Formula, logic: str, renaming: Renaming, prediction: Prediction,
             engine: str) -> Trace | Assignment | None:
    """The candidate in the user's names if it is a witness of `formula`, else None."""
    witness = invert(renaming, prediction)
    if isinstance(witness, Invalid):
        return None
    try:
        if logic == "ltl":
            from ltlwit.logic import ltl

            return witness if isinstance(witness, Trace) and ltl.holds(formula, witness, engine=engine) else None
        if isinstance(witness, Assignment) and _entails(witness, formula):
            return minimise(witness, formula)
    except ValueError:  # too deep for the checker, an AP the formula lacks: not a witness
        return None
    return None


def _entails(assignment: Assignment, formula: Formula) -> bool:
    from ltlwit.logic.prop import entails

    return entails(assignment, formula)


def minimise(assignment: Assignment, formula: Formula) -> Assignment:
    """Drop literals (last first) while the rest still entails `formula`: subset-minimal,
    like the SAT path's answers. `assignment` must entail `formula`."""
    values = list(assignment.values)
    for i in range(len(values) - 1, -1, -1):
        smaller = values[:i] + values[i + 1:]
        if _entails(Assignment(tuple(smaller)), formula):
            values = smaller
    return Assignment(tuple(values))


def engine_answer(formula: Formula, logic: str, options: SolveOptions) -> tuple[Result, str]:
    """The classical answer and its source (`sat-solver`, `engine`, `spot`). Every witness has
    passed the checker: the SAT path's is re-checked here, the built-in engine checks its own
    with the same `holds` before returning, and Spot's is checked here by ltlwit's checker."""
    if logic == "prop":
        from ltlwit.logic.prop import solve_prop

        result = solve_prop(formula)
        if isinstance(result, Sat) and not _entails(result.witness, formula):  # type: ignore[arg-type]
            raise ValueError("internal error: the SAT path produced an assignment that does not entail the formula")
        return result, "sat-solver"
    from ltlwit.logic import ltl

    result = ltl.solve(formula, ltl.Budget(seconds=options.timeout), engine=options.engine)
    if options.engine != "spot":
        return result, "engine"
    if isinstance(result, Sat) and not ltl.holds(formula, result.witness, engine="builtin"):  # type: ignore[arg-type]
        return Unknown("Spot's witness failed ltlwit's check; not printed"), "spot"
    return result, "spot"
