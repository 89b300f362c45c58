"""What a solving run is asked to do: `SolveOptions`, checked when made, so every consumer
(the CLI, `ltlwit.solve`, `check`) gets the same one-line errors for impossible combinations.

Import-cheap on purpose (no solver, no torch): the CLI's choice lists come from here."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

#: --model's keywords: `auto` is `si` where its weights are installed and a CUDA GPU can run
#: them, the engine alone elsewhere; `both` asks both families and tries the union of their
#: candidates, best score first. Anything else is a comma-separated list of families and
#: model names.
MODELS = ("auto", "si", "dual", "both", "none")
DEVICES = ("auto", "cpu", "cuda")
#: Default beam width when neither `beam` nor `top` asks for more.
DEFAULT_BEAM = 3


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
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError("the timeout must be a positive number of seconds")

    @property
    def beam_width(self) -> int:
        return self.beam if self.beam is not None else max(DEFAULT_BEAM, self.top or 0)

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
