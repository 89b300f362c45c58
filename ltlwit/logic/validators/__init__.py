"""Validators: independent judges of whether a witness witnesses a formula, by name.

Every validator has one signature, `(formula, witness, semantics="infinite") -> Validation`, and
the rules of `ltlwit.logic.witness.holds` (which errors it raises, and that a trace with an
unsatisfiable step witnesses nothing). They differ in who decides: `builtin` is the checker
every answer of ltlwit already passed; `aiger` (py-aiger circuits and a SAT solver, an optional
extra) shares no code with it, so a disagreement points at a bug in one of them; `spot` will
follow. A validator that rejects a witness shows why with a counterexample word where it can.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness


@dataclass(frozen=True)
class Validation:
    """A validator's answer for one formula and witness."""

    valid: bool
    #: When not valid, a counterexample: the letters (every AP of the formula and the witness)
    #: of a word the witness allows that falsifies the formula: a completion of an assignment
    #: (one letter), a finite word, or a lasso word. None when valid, when the witness allows no
    #: word (an unsatisfiable step), or when the validator has none to give.
    word: tuple[dict[str, bool], ...] | None = None
    #: Where a lasso counterexample's loop starts (`word[loop:]` repeats forever); None for a
    #: finite word.
    loop: int | None = None
    #: False when `valid` rests on a bounded search that cannot rule out every counterexample
    #: (the aiger validator on a lasso whose loop leaves some AP free: see its module).
    exact: bool = True


#: A validator: (formula, witness, semantics) -> Validation.
Validator = Callable[[Formula, Witness, str], Validation]


def builtin(formula: Formula, witness: Witness, semantics: str = "infinite") -> Validation:
    """`ltlwit.logic.witness.holds`, with the builtin checker's counterexample for a rejected
    lasso (it has none for finite traces and assignments)."""
    from ltlwit.logic.witness import holds

    if holds(formula, witness, semantics=semantics):
        return Validation(True)
    if isinstance(witness, Trace) and not witness.finite:
        from ltlwit.logic.ltl.check import counterexample
        from ltlwit.logic.ltl.finite import strong

        found = counterexample(strong(formula), witness)
        if found is not None:
            prefix, cycle = found
            return Validation(False, tuple(prefix + cycle), len(prefix))
    return Validation(False)


def _aiger(formula: Formula, witness: Witness, semantics: str = "infinite") -> Validation:
    """`ltlwit.logic.validators.aiger.holds`, imported when first asked for."""
    from ltlwit.logic.validators.aiger import holds

    return holds(formula, witness, semantics)


#: Validators by name ("spot" joins later).
VALIDATORS: dict[str, Validator] = {"builtin": builtin, "aiger": _aiger}
