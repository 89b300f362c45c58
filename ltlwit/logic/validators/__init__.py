"""Validators: independent judges of whether a witness witnesses a formula, by name.

Every validator has one signature, `(formula, witness, semantics="infinite") -> Validation`, and
the rules of `ltlwit.logic.witness.holds` (which errors it raises, and that a trace with an
unsatisfiable step witnesses nothing). They differ in who decides: `builtin` is the checker
every answer of ltlwit already passed; `aiger` (py-aiger circuits and a SAT solver, an optional
extra) shares no code with it, so a disagreement points at a bug in one of them; `spot`
(language inclusion of the lasso's words in the formula, by Spot's automata: the check the
golden files were labelled with) where `import spot` works. A validator that rejects a witness
shows why with a counterexample word where it can. `judge` asks several and `disagreement`
says, for a bug report, where they differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ltlwit.logic.budget import HardLimit
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


def _spot(formula: Formula, witness: Witness, semantics: str = "infinite") -> Validation:
    """Spot's language inclusion, through the engine seam (`ltl.holds(..., engine="spot")`,
    which spells BLACK's weak next the way Spot reads it): lassos only; an assignment is judged
    as the lasso `cycle{cube}` (a propositional formula speaks of the first letter)."""
    from ltlwit.logic import ltl
    from ltlwit.logic.assignment import Assignment

    if isinstance(witness, Assignment):
        from ltlwit.logic.witness import holds

        holds(formula, witness)  # the same errors as the other validators (an AP the formula lacks)
        witness = Trace((), (witness.to_formula(),))
    elif semantics == "finite" or witness.finite:
        raise ValueError("the spot validator checks lassos only (infinite semantics)")
    return Validation(ltl.holds(formula, witness, engine="spot"))


#: Validators by name.
VALIDATORS: dict[str, Validator] = {"builtin": builtin, "aiger": _aiger, "spot": _spot}


def validator_problem(names: Sequence[str]) -> str | None:
    """Why these validators cannot run here (an unknown name, a missing package), in one line;
    None when they can. Said up front, before any input is read."""
    import importlib.util

    for name in names:
        if name not in VALIDATORS:
            return f"unknown validator {name!r} (known: {', '.join(VALIDATORS)})"
        if name == "aiger" and (
            importlib.util.find_spec("aiger") is None or importlib.util.find_spec("aiger_sat") is None
        ):
            return "the aiger validator needs py-aiger and py-aiger-sat: pip install 'ltlwit[aiger]'"
        if name == "spot" and importlib.util.find_spec("spot") is None:
            return "the spot validator needs Spot's Python bindings, and `import spot` fails here"
    return None


def validator_names(names: str | Sequence[str]) -> tuple[str, ...]:
    """`builtin` and the named validators (a comma-separated string or a list), each once;
    ValueError when one cannot run here (`validator_problem`)."""
    listed = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    chosen = tuple(dict.fromkeys(["builtin"] + [n for n in listed if n]))
    problem = validator_problem(chosen)
    if problem:
        raise ValueError(problem)
    return chosen


def judge(
    names: Sequence[str], formula: Formula, witness: Witness, semantics: str = "infinite"
) -> dict[str, Validation]:
    """Each named validator's answer (a ValueError from one of them propagates: the witness
    cannot be judged, as for `holds`)."""
    return {name: VALIDATORS[name](formula, witness, semantics) for name in names}


def disagreement(
    formula: Formula, witness: Witness, verdicts: dict[str, Validation], syntax: str = "spot"
) -> str | None:
    """None when the validators agree; else one line for the user and a bug report: the
    formula, the witness and each verdict, with the counterexample word a rejecting one gave."""
    if len({v.valid for v in verdicts.values()}) <= 1:
        return None
    parts = []
    for name, v in verdicts.items():
        text = "holds" if v.valid else "fails"
        if v.word is not None:
            text += f" (counterexample {_word_text(v.word, v.loop)})"
        parts.append(f"{name}: {text}")
    return (
        f"the validators disagree (a bug in one of them; please report it): formula {formula.to_str(syntax)}, "
        f"witness {witness.to_str(syntax)}; " + "; ".join(parts)
    )


def second_opinion(
    names: Sequence[str], formula: Formula, witness: Witness, valid: bool, semantics: str = "infinite"
) -> tuple[str | None, tuple[str, ...]]:
    """The builtin checker's verdict `valid` set beside the other validators of `names`: the
    disagreement (`disagreement`'s line, None when they agree) and a warning for each that
    could only search up to a bound, or was stopped by the enclosing `deadline_scope` (the
    caller's `--timeout` or memory ceiling: a second opinion never makes an answer late).
    ValueError from a validator propagates."""
    others = [name for name in names if name != "builtin"]
    if not others:
        return None, ()
    if (
        formula.data or isinstance(witness, Trace) and witness.data
    ):  # comparisons over values: only the builtin checker's exact evaluator reads them
        return None, tuple(
            f"the {name} validator cannot judge data atoms or values (comparisons over values): the builtin "
            "checker, which evaluates them exactly, judged this witness alone"
            for name in others
        )
    verdicts = {"builtin": Validation(valid)}
    warnings = []
    for name in others:
        try:
            verdicts[name] = VALIDATORS[name](formula, witness, semantics)
        except HardLimit as exc:  # the enclosing deadline_scope's: the answer still comes in time
            warnings.append(
                f"the {name} validator gave no opinion ({exc}): the builtin checker judged this witness alone"
            )
    return disagreement(formula, witness, verdicts), tuple(warnings) + tuple(
        f"the {name} validator confirms the witness only up to a bound (it found no counterexample)"
        for name in bounded(verdicts)
    )


def bounded(verdicts: dict[str, Validation]) -> list[str]:
    """The validators whose 'holds' rests on a bounded search (not a proof)."""
    return [name for name, v in verdicts.items() if v.valid and not v.exact]


def _word_text(word: tuple[dict[str, bool], ...], loop: int | None) -> str:
    letters = [" & ".join(n if value else f"!{n}" for n, value in sorted(letter.items())) or "1" for letter in word]
    if loop is None:
        return "; ".join(letters)
    head = "".join(f"{x}; " for x in letters[:loop])
    return f"{head}cycle{{{'; '.join(letters[loop:])}}}"
