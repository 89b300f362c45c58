"""Checking given witnesses against formulas: `ltlwit verify`, and `ltlwit.verify` on text.

A propositional witness is a partial assignment (`a1c0`, a JSON object, or a cube: Spot's
`a & !c` or LBT's `& "a" ! "c"`) and holds when it entails the formula; an LTL witness is a
symbolic lasso trace (steps in Spot, Polish or LBT syntax) and holds when every word it stands
for satisfies the formula. Reading is `ltlwit.logic.witness.parse_witness`, judging is its
`holds`: the seam `solve` and `eval` use too. Every problem with an input becomes an "error"
verdict instead of an exception.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import ClassVar, Iterable, Iterator, Literal

from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import Witness, holds, logic_of, parse_witness
from ltlwit.pipeline.answers import Answer, internal_error
from ltlwit.pipeline.inputs import InputItem
from ltlwit.pipeline.parsing import InputParser

VerdictStatus = Literal["holds", "fails", "unknown", "error"]


@dataclass(frozen=True)
class VerifyOptions:
    logic: str = "auto"
    syntax: str = "auto"
    engine: str = "auto"
    #: "infinite" (lassos) or "finite" (finite traces); a trace of the other kind is an error.
    semantics: str = "infinite"


@dataclass(frozen=True, kw_only=True)
class Verdict(Answer):
    """`verify`'s answer for one FORMULA/WITNESS pair, both kept as the user wrote them."""

    POSITIVE: ClassVar[str] = "holds"

    status: VerdictStatus
    formula: str
    witness: str

    @property
    def holds(self) -> bool | None:
        return {"holds": True, "fails": False}.get(self.status)


def verify_lines(items: Iterable[InputItem], options: VerifyOptions,
                 parser: InputParser | None = None) -> Iterator[Verdict]:
    """Verdicts for `FORMULA<TAB>WITNESS` lines, lazily and in order; the formulas of one file
    share syntax auto-detection (`parser`'s guesses), as `solve -F` does (a DeepLTL file's `Uab`
    is `a U b`)."""
    parser = parser or InputParser(options.syntax)
    for item in items:
        if item.error is not None:
            yield verify_one(item, item.text, "", options)
            continue
        parts = [part.strip() for part in item.text.split("\t")]
        if len(parts) != 2 or not all(parts):
            yield verify_one(replace(item, error="expected FORMULA<TAB>WITNESS"), item.text, "", options)
            continue
        yield verify_one(item, parts[0], parts[1], options, parser)


def verify_one(item: InputItem, formula_text: str, witness_text: str, options: VerifyOptions,
               parser: InputParser | None = None) -> Verdict:
    start = time.perf_counter()

    def done(status: VerdictStatus, **fields: object) -> Verdict:
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        return Verdict(  # type: ignore[arg-type]
            item=item, status=status, formula=formula_text, witness=witness_text, time_ms=elapsed, **fields
        )

    if item.error is not None:
        return done("error", message=item.error)
    from ltlwit.logic.syntax import deepltl_framing

    try:
        formula = (parser or InputParser(options.syntax)).parse(replace(item, text=formula_text),
                                                                polish_hint=deepltl_framing(witness_text))
    except ValueError as exc:
        return done("error", message="parse error in the formula", parse_error=exc)
    try:
        logic = logic_of(formula, options.logic)
    except ValueError as exc:
        return done("error", logic=options.logic, message=str(exc))
    witness: Witness
    try:
        witness = parse_witness(witness_text, formula, options.logic)
    except ValueError as exc:
        return done("error", logic=logic, message="parse error in the witness", parse_error=exc)
    logic = "ltl" if isinstance(witness, Trace) else "prop"  # a trace may witness a propositional formula
    try:
        return done("holds" if holds(formula, witness, options.engine, options.semantics) else "fails", logic=logic)
    except ValueError as exc:  # an AP the formula lacks, a formula too deep for the checker
        return done("error", logic=logic, message=str(exc))
    except Exception as exc:  # noqa: BLE001 - see answers.internal_error
        return done("error", logic=logic, message=internal_error(exc), exception=exc)
