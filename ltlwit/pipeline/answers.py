"""What happened to one input, as data: the answer types of `solve`, `verify`, `fmt` and `check`.

Nothing here prints or exits: the CLI renders answers (`ltlwit.cli.output`) and maps them onto
exit statuses (`ltlwit.cli.status`); `ltlwit.solve` hands `Solution`s to Python callers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, Literal

from ltlwit.logic.witness import Witness
from ltlwit.pipeline.inputs import InputItem

if TYPE_CHECKING:
    from ltlwit.logic.core import Core  # loads with --core only (the pipeline's `_core`)

Status = Literal["sat", "unsat", "unknown", "error"]

#: Receives the pipeline's once-per-run notices (a model that failed to load or run), with the
#: exception behind a failure (for `--traceback`).
Notify = Callable[[str, "BaseException | None"], None]


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
    #: The bug behind an "internal error" (see `internal_error`), for `--traceback`.
    exception: BaseException | None = field(default=None, compare=False, repr=False)
    time_ms: float = 0.0
    #: What the input's reading may not be what was meant: names that Spot's rules split
    #: (`'Grant' is read as 'G rant' ...`, `ltlwit.pipeline.parsing.name_warnings`).
    warnings: tuple[str, ...] = ()

    @property
    def positive(self) -> bool:
        return self.status == self.POSITIVE

    @property
    def error_text(self) -> str | None:
        """The one-line error of an "error" answer (parse errors with their column)."""
        if self.status != "error":
            return None
        return f"{self.message}: {self.parse_error}" if self.parse_error is not None else self.message


@dataclass(frozen=True, kw_only=True)
class Solution(Answer):
    """`solve`'s answer for one formula: `witness` is set exactly when `status` is "sat", and
    then it has passed the checker (`verified`): a model's candidate after validation, the
    engine's after its own check."""

    status: Status
    witness: Witness | None = None
    #: `model:NAME` (the registry's name: `model:si-ltl`, `model:dual-prop`, `model:my-run`), `engine`,
    #: `spot` or `sat-solver`;
    #: None for errors.
    source: str | None = None
    #: 1-based position of the winning candidate among those tried (model answers only).
    rank: int | None = None
    #: Model candidates checked for this input (malformed ones included).
    candidates_tried: int = 0
    #: Why no model saw this formula although one was in use for its logic (past operators,
    #: too large, too many APs); None when one did, or none was in use.
    models_skipped: str | None = None
    #: For LTL answers, the semantics they hold under: "infinite" (a lasso witness) or "finite"
    #: (a finite trace; UNSAT means no finite trace); None for propositional answers and errors.
    semantics: str | None = None
    verified: bool | None = None
    #: With `--core`, for an "unsat" answer: the conflicting top-level conjuncts (`Core`).
    core: Core | None = None

    def to_str(self, syntax: str = "spot") -> str:
        """The answer as `ltlwit solve` prints it: the witness in `syntax` (any output syntax,
        see `Trace.to_str` and `Assignment.to_str`), else `UNSAT` (with `--core`: `UNSAT core:
        F a & G !a`, the conflicting conjuncts), `UNKNOWN` or `ERROR`."""
        if self.witness is not None:
            return self.witness.to_str(syntax)
        if self.core is not None:
            return f"UNSAT core: {core_text(self, syntax)}"
        return self.status.upper()

    def __str__(self) -> str:
        return self.to_str()


def _as_written(solution: Solution, syntax: str) -> list[str] | None:
    """The members of a solution's core as written in its input, where the input is infix text
    and that is the syntax asked for; else None."""
    core = solution.core
    assert core is not None
    if core.spans is None or syntax != "spot":
        return None
    return [solution.item.text[start:end] for start, end in (core.spans[i] for i in core.members)]


def core_parts(solution: Solution, syntax: str = "spot") -> list[str]:
    """The members of a solution's core as written in its input (where the input is infix
    text), else printed in `syntax`."""
    written = _as_written(solution, syntax)
    if written is not None:
        return written
    from ltlwit.logic.syntax import print_answer  # loads with the first answer (`--help` never does)

    return [print_answer(f, syntax) for f in solution.core.formulas] if solution.core is not None else []


def core_text(solution: Solution, syntax: str = "spot") -> str:
    """A solution's core as one formula, the conjunction of its members (as weakened, for a
    fine core), flagged when not proven minimal."""
    from ltlwit.logic.formula import And
    from ltlwit.logic.syntax import print_answer

    core = solution.core
    assert core is not None
    written = _as_written(solution, syntax)  # as written, each conjunct's text is an operand of `&`
    if core.fine is not None:
        text = print_answer(And(*core.fine), syntax)
    elif written is not None:
        text = " & ".join(written)
    else:
        text = print_answer(And(*core.formulas), syntax)
    return text if core.minimal else f"{text} (not proven minimal)"


def internal_error(exc: BaseException) -> str:
    """One line for a bug in a solver, so one input's crash does not end the whole run (the
    answer keeps `exc` as its `exception`: `--traceback` shows it)."""
    return f"internal error (please report it): {type(exc).__name__}: {exc}"


def plural(count: int, noun: str) -> str:
    """`1 spec`, `2 specs`, `0 errors`: counts in the reports people read (the nouns used
    there all take an `s`)."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
