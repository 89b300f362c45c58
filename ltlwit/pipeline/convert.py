"""`ltlwit fmt`: one formula from one syntax into another (Spot's `ltlfilt -l/-s` job)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from ltlwit.logic.witness import logic_of
from ltlwit.pipeline.answers import Answer
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import InputParser


@dataclass(frozen=True, kw_only=True)
class Conversion(Answer):
    POSITIVE: ClassVar[str] = "ok"

    status: Literal["ok", "error"]
    text: str | None = None


def convert_one(item: InputItem, parser: InputParser, to: str) -> Conversion:
    if item.error is not None:
        return Conversion(item=item, status="error", message=item.error)
    try:
        formula = parser.parse(item)
    except ValueError as exc:
        return Conversion(item=item, status="error", message="parse error", parse_error=exc)
    logic = logic_of(formula)
    try:
        return Conversion(item=item, status="ok", logic=logic, text=formula.to_str(to))
    except ValueError as exc:  # e.g. network Polish cannot spell a multi-letter AP
        return Conversion(item=item, status="error", logic=logic, message=f"cannot print in {to} syntax: {exc}")
