"""Checking a given witness against a formula: `ltlwit verify`.

A propositional witness is a partial assignment (`a1c0`, a JSON object, or a cube: Spot's
`a & !c` or LBT's `& "a" ! "c"`) and holds when it entails the formula; an LTL witness is a
symbolic lasso trace (steps in Spot, Polish or LBT syntax) and holds when every word it stands
for satisfies the formula (the engine's `holds`). Like `solve.py`,
this turns every problem with an input into an "error" verdict instead of raising.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import ClassVar, Iterable, Iterator, Literal

from ltlwit.inputs import InputItem
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace
from ltlwit.solve import Answer, InputParser, internal_error, parse

VerdictStatus = Literal["holds", "fails", "unknown", "error"]


@dataclass(frozen=True)
class VerifyOptions:
    logic: str = "auto"
    syntax: str = "auto"
    engine: str = "auto"


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


def verify_lines(items: Iterable[InputItem], options: VerifyOptions) -> Iterator[Verdict]:
    """Verdicts for `FORMULA<TAB>WITNESS` lines, lazily and in order; the formulas of one file
    share syntax auto-detection, as `solve -F` does (a DeepLTL file's `Uab` is `a U b`)."""
    parser = InputParser(options.syntax)
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
    from ltlwit.logic.syntax import deepltl_framing  # here: `--help` loads verify.py, not the syntax layer

    try:
        formula = (parser or InputParser(options.syntax)).parse(replace(item, text=formula_text),
                                                                polish_hint=deepltl_framing(witness_text))
    except ValueError as exc:
        return done("error", message="parse error in the formula", parse_error=exc)
    logic = options.logic if options.logic != "auto" else ("ltl" if formula.temporal else "prop")
    if logic == "prop" and formula.temporal:
        return done("error", logic=logic, message="--logic prop, but the formula has temporal operators")

    witness: Assignment | Trace
    try:
        if logic == "prop":
            witness = _prop_witness(witness_text, formula)
        else:
            witness = _trace(witness_text)
    except ValueError as exc:
        if options.logic == "auto" and logic == "prop":
            # A propositional formula is an LTL formula too: accept a lasso trace for it.
            try:
                witness, logic = _trace(witness_text), "ltl"
            except ValueError:
                return done("error", logic=logic, message="parse error in the witness", parse_error=exc)
        else:
            return done("error", logic=logic, message="parse error in the witness", parse_error=exc)

    if isinstance(witness, Assignment):
        from ltlwit.logic.prop import entails

        try:
            return done("holds" if entails(witness, formula) else "fails", logic=logic)
        except ValueError as exc:
            return done("error", logic=logic, message=str(exc))
        except Exception as exc:  # noqa: BLE001 - see solve.internal_error
            return done("error", logic=logic, message=internal_error(exc))
    from ltlwit.logic import ltl

    try:
        verdict = ltl.holds(formula, witness, engine=options.engine)
    except ValueError as exc:  # e.g. a formula too deep for the checker
        return done("error", logic=logic, message=str(exc))
    except Exception as exc:  # noqa: BLE001 - see solve.internal_error
        return done("error", logic=logic, message=internal_error(exc))
    return done("holds" if verdict else "fails", logic=logic)


def _trace(text: str) -> Trace:
    from ltlwit.logic.syntax import parse_trace

    return parse_trace(text, "auto")


def _prop_witness(text: str, formula: Formula) -> Assignment:
    """`a1c0`, JSON, a Spot cube (`a & !c`, `1`) or an LBT cube (`& "a" ! "c"`, `t`: what
    `solve --syntax-out lbt` prints); of the readings that parse, prefer one naming only the
    formula's APs (`a1` is a=true as an assignment, but the AP `a1` as a cube; `t` is the
    empty assignment in LBT, but the AP `t` as a Spot cube)."""
    from ltlwit.logic.syntax import parse_assignment
    from ltlwit.logic.syntax.words import parse_cube

    readings: list[Assignment] = []
    errors: list[ValueError] = []
    for reader in (parse_assignment, lambda t: parse_cube(t, parse(t, "spot")),
                   lambda t: parse_cube(t, parse(t, "lbt"))):
        try:
            readings.append(reader(text))
        except ValueError as exc:
            errors.append(exc)
    if not readings:
        # Report the error of the reading the text was most likely meant as (JSON, else the
        # Spot cube: the LBT reading's errors are rarely the helpful ones).
        raise errors[0] if text.lstrip().startswith("{") else errors[1]
    aps = set(formula.aps())
    return next((r for r in readings if set(r.aps()) <= aps), readings[0])
