"""`ltlwit fmt`: one formula from one syntax into another (Spot's `ltlfilt -l/-s` job)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import print_detectable
from ltlwit.logic.witness import logic_of
from ltlwit.pipeline.answers import Answer
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import InputParser


@dataclass(frozen=True, kw_only=True)
class Conversion(Answer):
    POSITIVE: ClassVar[str] = "ok"

    status: Literal["ok", "error"]
    text: str | None = None


#: Why `--to spot` refuses a formula with past operators: Spot has none, and its tools would
#: read `Y a` as a syntax error and `Once` as a name. (`print_formula(f, "spot")` itself
#: prints them in BLACK's letters, for messages and the API.)
_NO_PAST_IN_SPOT = "no past operators (Y, Z, S, T, O, H)"
#: Why it refuses BLACK's weak next `wX`: Spot has no such operator, and no spelling of it
#: would keep the meaning, since in Spot's LTLf reading plain `X` is the weak next and `X[!]`
#: the strong one, while ours (and BLACK's) `X` is strong on finite traces.
_NO_WEAK_NEXT_IN_SPOT = (
    "no weak next wX (in Spot's LTLf reading plain X is the weak next and X[!] the "
    "strong one, so printing would change the meaning)"
)


#: Why it refuses data atoms: Spot's propositions are Boolean, and `x > 1` would be read as an
#: error (or, quoted, as a proposition named so).
_NO_DATA_IN_SPOT = "no data atoms (comparisons such as x > 1)"


def _spot_refusal(formula: Formula) -> str | None:
    """Why `--to spot` cannot print `formula`, or None when it can."""
    missing = [
        why
        for lacks, why in (
            (formula.past, _NO_PAST_IN_SPOT),
            (formula.weak, _NO_WEAK_NEXT_IN_SPOT),
            (formula.data, _NO_DATA_IN_SPOT),
        )
        if lacks
    ]
    if not missing:
        return None
    if formula.data:
        return f"Spot's syntax has {' and '.join(missing)}; --to infix carries them (ltlwit's infix)"
    them = "them" if formula.past else "it"
    return f"Spot's syntax has {' and '.join(missing)}; --to infix, --to lbt and --to polish-spaced carry {them}"


def convert_one(item: InputItem, parser: InputParser, to: str) -> Conversion:
    """One input in syntax `to`, written so that auto-detection reads it back as the same formula
    (`print_detectable`), or the error that keeps it from being converted (the other inputs of
    the run are converted regardless)."""
    if item.error is not None:
        return Conversion(item=item, status="error", message=item.error)
    try:
        formula = parser.parse(item)
    except ValueError as exc:
        return Conversion(item=item, status="error", message="parse error", parse_error=exc)
    logic = logic_of(formula)
    refusal = _spot_refusal(formula) if to == "spot" else None
    if refusal is not None:
        return Conversion(item=item, status="error", logic=logic, message=f"cannot print in spot syntax: {refusal}")
    try:
        return Conversion(item=item, status="ok", logic=logic, text=print_detectable(formula, to))
    except ValueError as exc:  # e.g. network Polish cannot spell a multi-letter AP
        return Conversion(item=item, status="error", logic=logic, message=f"cannot print in {to} syntax: {exc}")
