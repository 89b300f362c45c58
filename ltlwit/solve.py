"""The solving pipeline for one input: parse -> decide the logic -> SAT path or LTL engine.

This is the seam later stages plug into (canonical renaming, neural candidates validated by the
checkers, fallback to the engine): the CLI only builds `SolveOptions`, feeds `InputItem`s and
prints `Outcome`s. Nothing here prints or exits.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from typing import ClassVar, Iterable, Iterator, Literal

from ltlwit.inputs import InputItem
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.result import Result, Sat, Unsat
from ltlwit.logic.trace import Trace
from ltlwit.status import ExitStatus

LOGICS = ("auto", "ltl", "prop")
# The CLI's choices for the syntax layer's and the engine's names, copied here so that
# `ltlwit --help` need not import either (tests check the copies against the originals).
SYNTAXES = ("auto", "spot", "polish", "polish-spaced", "lbt")
ENGINES = ("auto", "builtin", "spot")
#: Neural models selectable with --model; only the engine ("none") exists so far.
MODELS = ("none",)

Status = Literal["sat", "unsat", "unknown", "error"]


@dataclass(frozen=True)
class SolveOptions:
    logic: str = "auto"
    syntax: str = "auto"
    #: Seconds per formula for the LTL engine (None: no limit); the SAT path ignores it.
    timeout: float | None = None
    engine: str = "auto"
    model: str = "none"


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What happened to one input, for any command; subclasses add the command's payload."""

    #: The status that counts as a positive answer (exit status 0).
    POSITIVE: ClassVar[str] = "sat"

    item: InputItem
    status: str
    logic: str | None = None
    #: status "unknown": why; status "error": what went wrong (with `parse_error`: which part
    #: failed to parse, e.g. "parse error").
    message: str | None = None
    #: The parse error behind a status "error", for the caret rendering.
    parse_error: ValueError | None = None
    time_ms: float = 0.0

    @property
    def error_text(self) -> str | None:
        """The one-line error of an "error" answer (parse errors with their column)."""
        if self.status != "error":
            return None
        return f"{self.message}: {self.parse_error}" if self.parse_error is not None else self.message

    @property
    def exit_status(self) -> ExitStatus:
        if self.status == self.POSITIVE:
            return ExitStatus.SUCCESS
        if self.status == "error":
            return ExitStatus.ERROR
        return ExitStatus.NEGATIVE


@dataclass(frozen=True, kw_only=True)
class Outcome(Answer):
    """`solve`'s answer: `witness` is set exactly when `status` is "sat"."""

    status: Status
    witness: Trace | Assignment | None = None
    source: str | None = None


def internal_error(exc: Exception) -> str:
    """One line for a bug in a solver, so one input's crash does not end the whole run."""
    return f"internal error (please report it): {type(exc).__name__}: {exc}"


def engine_problem(engine: str) -> str | None:
    """Why the requested `--engine` cannot run here (a usage error, reported once up front
    rather than once per formula), or None."""
    if engine == "spot" and importlib.util.find_spec("spot") is None:
        return "--engine spot needs Spot's Python bindings, and `import spot` fails here"
    return None


def parse(text: str, syntax: str) -> Formula:
    from ltlwit.logic.syntax import parse_formula

    return parse_formula(text, syntax)


def solve_one(item: InputItem, options: SolveOptions) -> Outcome:
    """Answer one input; bad input becomes an "error" outcome, never an exception."""
    start = time.perf_counter()

    def done(status: Status, **fields: object) -> Outcome:
        elapsed = (time.perf_counter() - start) * 1000.0
        return Outcome(item=item, status=status, time_ms=round(elapsed, 3), **fields)  # type: ignore[arg-type]

    if item.error is not None:
        return done("error", message=item.error)
    try:
        formula = parse(item.text, options.syntax)
    except ValueError as exc:  # ParseError, with a caret rendering
        return done("error", message="parse error", parse_error=exc)
    logic = options.logic if options.logic != "auto" else ("ltl" if formula.temporal else "prop")
    if logic == "prop" and formula.temporal:
        return done("error", logic=logic, message="--logic prop, but the formula has temporal operators")
    try:
        result, source = _solve_prop(formula) if logic == "prop" else _solve_ltl(formula, options)
    except ValueError as exc:
        return done("error", logic=logic, message=str(exc))
    except Exception as exc:  # noqa: BLE001 - a solver bug must not cost the other inputs
        return done("error", logic=logic, message=internal_error(exc))
    if isinstance(result, Sat):
        return done("sat", logic=logic, witness=result.witness, source=source)
    if isinstance(result, Unsat):
        return done("unsat", logic=logic, source=source)
    return done("unknown", logic=logic, source=source, message=result.reason or None)


def solve_all(items: Iterable[InputItem], options: SolveOptions) -> Iterator[Outcome]:
    """Outcomes in input order, lazily: memory stays constant however long the input."""
    import ltlwit.logic.ltl  # noqa: F401 - load the solvers before the first input's clock starts
    import ltlwit.logic.prop  # noqa: F401
    import ltlwit.logic.syntax  # noqa: F401

    for item in items:
        yield solve_one(item, options)


def _solve_prop(formula: Formula) -> tuple[Result, str]:
    from ltlwit.logic.prop import entails, solve_prop

    result = solve_prop(formula)
    # The witness invariant, for the price of one SAT call on a cached encoding.
    if isinstance(result, Sat) and not entails(result.witness, formula):  # type: ignore[arg-type]
        raise ValueError("internal error: the SAT path produced an assignment that does not entail the formula")
    return result, "sat-solver"


def _solve_ltl(formula: Formula, options: SolveOptions) -> tuple[Result, str]:
    from ltlwit.logic import ltl

    result = ltl.solve(formula, ltl.Budget(seconds=options.timeout), engine=options.engine)
    return result, "spot" if options.engine == "spot" else "engine"
