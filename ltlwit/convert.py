"""`ltlwit fmt`: one formula from one syntax into another (Spot's `ltlfilt -l/-s` job)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ltlwit.inputs import InputItem
from ltlwit.solve import Answer, InputParser

#: `fmt --to` choices: the syntax layer's printers (kept here so `--help` need not load them).
OUTPUT_SYNTAXES = ("spot", "polish", "polish-spaced", "lbt")


@dataclass(frozen=True, kw_only=True)
class Converted(Answer):
    POSITIVE: ClassVar[str] = "ok"

    status: Literal["ok", "error"]
    text: str | None = None


def convert_one(item: InputItem, parser: InputParser, to: str) -> Converted:
    from ltlwit.logic.syntax import print_formula

    if item.error is not None:
        return Converted(item=item, status="error", message=item.error)
    try:
        formula = parser.parse(item)
    except ValueError as exc:
        return Converted(item=item, status="error", message="parse error", parse_error=exc)
    logic = "ltl" if formula.temporal else "prop"
    try:
        return Converted(item=item, status="ok", logic=logic, text=print_formula(formula, to))
    except ValueError as exc:  # e.g. network Polish cannot spell a multi-letter AP
        return Converted(item=item, status="error", logic=logic, message=f"cannot print in {to} syntax: {exc}")
