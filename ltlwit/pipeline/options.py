"""What a solving run is asked to do: `SolveOptions`, checked when made, so every consumer
(the CLI, `ltlwit.solve`, `check`) gets the same one-line errors for impossible combinations.

Import-cheap on purpose (no solver, no torch): the CLI's choice lists come from here."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ltlwit.logic import SEMANTICS

if TYPE_CHECKING:  # the theory layer loads with the first formula over data
    from ltlwit.logic.formula import Formula
    from ltlwit.logic.theory.sorts import Declarations

#: --model's keywords: `auto` is `si` where its weights are installed and a CUDA GPU can run
#: them, the engine alone elsewhere; `both` asks both families and tries the union of their
#: candidates, best score first. Anything else is a comma-separated list of families and
#: model names.
MODELS = ("auto", "si", "dual", "both", "none")
DEVICES = ("auto", "cpu", "cuda")
#: Default beam width when neither `beam` nor `top` asks for more.
DEFAULT_BEAM = 3
#: ... and without the engine's fallback, where a formula the beam misses stays UNKNOWN: on the
#: test splits a beam of 8 verifies 1 (dual-ltl) to 12 (si-prop) points more formulas than one
#: of 3, for 1.3-1.6x its CPU time (docs/benchmarks.md, "Verified top-N"). With the fallback
#: the engine answers those formulas faster than the wider beam would.
NO_FALLBACK_BEAM = 8


def default_max_memory(processes: int = 1) -> int:
    """MiB a solving process may hold: half the machine's memory shared among the `processes`
    of a run (`--jobs`), at most 4 GiB, at least 512 MiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") >> 20
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return 4096
    return max(512, min(4096, total // (2 * max(1, processes))))


@dataclass(frozen=True)
class SolveOptions:
    logic: str = "auto"
    syntax: str = "auto"
    #: Seconds per formula, from reading it to its answer (None: no limit): parsing, the models'
    #: share, checking candidates and the engine; past it the answer is UNKNOWN.
    timeout: float | None = None
    #: When the whole run must have ended (a `time.perf_counter()` reading: `check --budget`),
    #: whatever is left of a formula's `timeout`; None: no such end.
    until: float | None = None
    #: MiB of resident memory past which the engine gives up on a formula (UNKNOWN, with the
    #: reason) instead of being killed; 0: no ceiling.
    max_memory: int = field(default_factory=default_max_memory)
    engine: str = "auto"
    #: Who judges a witness before it is printed (`ltlwit.logic.validators`): the builtin
    #: checker always (it is the gate every candidate passes); others named here must agree.
    validators: tuple[str, ...] = ("builtin",)
    #: `infinite` (lasso witnesses) or `finite` (LTLf: finite witnesses; the models are skipped).
    semantics: str = "infinite"
    model: str = "auto"
    #: Candidates taken from each model's beam (None: the whole beam).
    top: int | None = None
    #: Beam width (None: the larger of DEFAULT_BEAM, or NO_FALLBACK_BEAM without `fallback`,
    #: and `top`).
    beam: int | None = None
    device: str = "auto"
    #: Ask the engine when no candidate verifies (False: the answer is UNKNOWN instead).
    fallback: bool = True
    #: Report up to `n_best` distinct verified witnesses instead of the first one.
    all: bool = False
    #: Exactly one of the formula's APs (activities) holds at every instant: process traces as
    #: Declare reads them (`ltlwit.logic.declare.one_event`).
    one_event: bool = False
    #: A formula every question of a spec file is asked together with (a `one-event` file's
    #: activities, one at a time: `ltlwit.specs.run`).
    assume: Formula | None = None
    #: For an unsatisfiable formula, also a minimal unsatisfiable subset of its top-level
    #: conjuncts (`ltlwit.logic.core`), within the same `timeout`; "fine": and within them, the
    #: subformulas that matter (the others weakened to constants).
    core: bool | Literal["fine"] = False
    #: The sorts of data variables (`--var NAME:SORT`) and of undeclared ones (`--domain`), for
    #: formulas over data; a spec file's own come on top of these (`FormulaItem.declarations`).
    declarations: Declarations | None = None
    #: Most inputs per model batch. Batches ramp up from 1, so the first answer is quick.
    batch_size: int = 128
    #: Longest witness a model may write, in tokens.
    max_len: int = 160
    #: CPU threads the models' tensor operations use in each process (every `--jobs` worker
    #: has its own). One by default: torch's own default, a thread per core, spins against the
    #: other workers and processes, and these small models gain little from more (docs/benchmarks.md).
    threads: int = 1

    def __post_init__(self) -> None:
        if self.top is not None and self.top < 1 or self.beam is not None and self.beam < 1:
            raise ValueError("--top and --beam must be at least 1")
        if self.top is not None and self.beam is not None and self.top > self.beam:
            raise ValueError(f"--top {self.top} asks for more candidates than --beam {self.beam} keeps")
        if self.batch_size < 1:
            raise ValueError("the batch size must be at least 1")
        if self.threads < 1:
            raise ValueError("--threads must be at least 1")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError("the timeout must be a positive number of seconds")
        if self.semantics not in SEMANTICS:
            raise ValueError(f"unknown semantics {self.semantics!r}; expected {' or '.join(SEMANTICS)}")
        if self.max_memory < 0:
            raise ValueError("the memory ceiling must be a number of MiB (0: none)")

    @property
    def ceiling(self) -> int | None:
        """`max_memory` in bytes; None for no ceiling."""
        return (self.max_memory << 20) or None

    def deadline(self, start: float) -> float | None:
        """When `timeout` runs out for a formula whose clock started at `start` (a
        `time.perf_counter()` reading), or the run ends (`until`) if that is sooner; None
        without either."""
        own = start + self.timeout if self.timeout is not None else None
        if self.until is None:
            return own
        return self.until if own is None else min(own, self.until)

    @property
    def beam_width(self) -> int:
        if self.beam is not None:
            return self.beam
        return max(DEFAULT_BEAM if self.fallback else NO_FALLBACK_BEAM, self.top or 0)

    @property
    def n_best(self) -> int:
        """Candidates per model and input; with `all`, also the most witnesses reported."""
        return self.top if self.top is not None else self.beam_width


def engine_problem(engine: str) -> str | None:
    """Why the requested `--engine` cannot run here (a usage error, reported once up front
    rather than once per formula), or None."""
    if engine == "spot" and importlib.util.find_spec("spot") is None:
        return "--engine spot needs Spot's Python bindings, and `import spot` fails here"
    return None
