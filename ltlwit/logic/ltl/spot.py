"""Optional backend: Spot's Python bindings (`import spot`), for `engine="spot"`.

Spot cannot be installed from the registries these machines reach, so this module is only
used where a user has Spot; its tests run only where `import spot` works. Formulas and traces
cross the boundary as text in Spot's own syntax (our printers round-trip with Spot's parser).

solve: `spot.translate` + `accepting_run`, the run as a `twa_word`, `simplify()`d — exactly how
the data sets were labelled. holds: DeepLTL's `spot.contains(aut(φ), word automaton)`, with
ltlwit's rule that a trace with an unsatisfiable step is never a witness. Spot's C++ code
cannot be interrupted, so a `Budget` is not honoured here (the result is never Unknown).
"""

from __future__ import annotations

from typing import Any

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import Formula
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.trace import Trace


def available() -> bool:
    try:
        import spot  # noqa: F401
    except ImportError:
        return False
    return True


def _spot() -> Any:
    try:
        import spot
    except ImportError:
        raise ValueError("the spot engine needs Spot's Python bindings (import spot failed)") from None
    return spot


def _future_only(formula: Formula) -> None:
    """Spot reads no past operators: printed in its syntax, `O b` would come back as an AP `Ob`
    and the verdict would be about another formula."""
    if formula.past:
        raise ValueError(
            "the spot engine has no past operators (Y, Z, S, T, O, H); "
            "the built-in engine (--engine builtin) decides them"
        )


def solve(formula: Formula, budget: Budget | None = None) -> Result:
    """Spot's verdict and simplified accepting word; `budget` is ignored (see module doc)."""
    from ltlwit.logic.syntax import parse_trace, print_formula

    _future_only(formula)
    spot = _spot()
    aut = spot.translate(spot.formula(print_formula(formula, "spot")))
    aut.merge_edges()
    run = aut.accepting_run()
    if run is None:
        return Unsat("spot emptiness")
    word = spot.twa_word(run)
    word.simplify()
    return Sat(parse_trace(str(word), "spot"))


def holds(formula: Formula, trace: Trace) -> bool:
    """Every word of the trace satisfies φ (Spot's containment); False for an unsatisfiable step."""
    from ltlwit.logic.ltl.check import labels_for
    from ltlwit.logic.syntax import print_formula, print_trace

    _future_only(formula)
    L = labels_for(tuple(dict.fromkeys(trace.aps())))
    if any(L.of(step) == L.false for step in trace.steps):
        return False
    spot = _spot()
    aut = spot.translate(spot.formula(print_formula(formula, "spot")))
    word = spot.parse_word(print_trace(trace, "spot"), aut.get_dict())
    return bool(spot.contains(aut, word.as_automaton()))
