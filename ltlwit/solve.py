"""What `ltlwit solve` does for each input, as data: options in, `Outcome`s out.

The work happens in `ltlwit.pipeline.Pipeline` (parse -> canonical renaming -> model candidates
-> validation -> engine fallback -> names back); this module holds what the CLI and the other
commands share with it — the options, the answer types, the choice lists — and stays free of
heavy imports so that `ltlwit --help` is instant. Nothing here prints or exits.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Hashable, Literal

from ltlwit.inputs import InputItem
from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.trace import Trace
from ltlwit.status import ExitStatus

LOGICS = ("auto", "ltl", "prop")
# The CLI's choices for the syntax layer's and the engine's names, copied here so that
# `ltlwit --help` need not import either (tests check the copies against the originals).
SYNTAXES = ("auto", "spot", "polish", "polish-spaced", "lbt")
ENGINES = ("auto", "builtin", "spot")
#: --model's keywords: `auto` is `si` where its weights are installed and the engine alone
#: elsewhere; `both` asks both families and tries the union of their candidates, best score
#: first. Anything else is a comma-separated list of families and model names.
MODELS = ("auto", "si", "dual", "both", "none")
DEVICES = ("auto", "cpu", "cuda")
#: Witness syntaxes of --syntax-out (LBT: each step in LBT prefix inside Spot's word layout).
WITNESS_SYNTAXES = ("spot", "polish", "lbt")
#: Default beam width when neither --beam nor --top asks for more.
DEFAULT_BEAM = 3

Status = Literal["sat", "unsat", "unknown", "error"]


@dataclass(frozen=True)
class SolveOptions:
    logic: str = "auto"
    syntax: str = "auto"
    #: Seconds per formula for the engine fallback (None: no limit); the SAT path ignores it.
    timeout: float | None = None
    engine: str = "auto"
    model: str = "auto"
    #: Candidates taken from each model's beam (None: the whole beam).
    top: int | None = None
    #: Beam width (None: the larger of DEFAULT_BEAM and `top`).
    beam: int | None = None
    device: str = "auto"
    #: Ask the engine when no candidate verifies (False: the answer is UNKNOWN instead).
    fallback: bool = True
    #: Report up to `n_best` distinct verified witnesses instead of the first one.
    all: bool = False
    #: Most inputs per model batch. Batches ramp up from 1, so the first answer is quick.
    batch_size: int = 128
    #: Longest witness a model may write, in tokens.
    max_len: int = 160

    def __post_init__(self) -> None:
        if self.top is not None and self.top < 1 or self.beam is not None and self.beam < 1:
            raise ValueError("--top and --beam must be at least 1")
        if self.top is not None and self.beam is not None and self.top > self.beam:
            raise ValueError(f"--top {self.top} asks for more candidates than --beam {self.beam} keeps")
        if self.batch_size < 1:
            raise ValueError("the batch size must be at least 1")

    @property
    def beam_width(self) -> int:
        return self.beam if self.beam is not None else max(DEFAULT_BEAM, self.top or 0)

    @property
    def n_best(self) -> int:
        """Candidates per model and input; with `all`, also the most witnesses reported."""
        return self.top if self.top is not None else self.beam_width


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
    """`solve`'s answer: `witness` is set exactly when `status` is "sat", and then it has passed
    the checker (`verified`): a model's candidate after validation, the engine's after its own."""

    status: Status
    witness: Trace | Assignment | None = None
    #: `model:si`, `model:dual` (`model:NAME` for other models), `engine`, `spot` or `sat-solver`;
    #: None for errors.
    source: str | None = None
    #: 1-based position of the winning candidate among those tried (model answers only).
    rank: int | None = None
    #: Model candidates checked for this input (malformed ones included).
    candidates_tried: int = 0
    verified: bool | None = None


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


class InputParser:
    """Parses a run's inputs with `syntax`. For `auto`, the inputs of one file (or stdin)
    share a `SyntaxGuess`, so that a DeepLTL data file's lines that Spot would also read
    (`Uab`) are read as Polish like the rest of the file; each command-line formula stands
    alone (read as Spot reads it where the two differ)."""

    def __init__(self, syntax: str) -> None:
        self.syntax = syntax
        self._guesses: dict[str, Any] = {}

    def _guess(self, item: InputItem) -> Any:
        from ltlwit.logic.syntax.detect import SyntaxGuess

        guess = self._guesses.get(item.file)
        if guess is None:
            guess = self._guesses[item.file] = SyntaxGuess()
        return guess

    def key(self, item: InputItem) -> Hashable:
        """What a parse depends on besides the text: cache parses under it."""
        if self.syntax != "auto":
            return item.text
        return item.text, item.file, self._guess(item).reads_polish

    def parse(self, item: InputItem, polish_hint: bool = False) -> Formula:
        """`polish_hint`: the input comes with evidence of being DeepLTL's (`verify`'s witness
        in its `;{...}` framing), so it is read as Polish where Spot would read it otherwise."""
        if self.syntax != "auto":
            return parse(item.text, self.syntax)
        if polish_hint:
            from ltlwit.logic.syntax.detect import SyntaxGuess

            return SyntaxGuess(polish_source=True).parse(item.text)
        return self._guess(item).parse(item.text)


#: Receives the pipeline's once-per-run notices (a model that failed to load or run).
Notify = Callable[[str], None]
