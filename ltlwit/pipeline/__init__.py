"""The solving pipeline: parse -> rename into slots -> model candidates (batched beam search)
-> validation by the witness seam -> engine fallback -> names back.

The one invariant: no witness leaves the pipeline unless the checker accepted it for the
formula as the user wrote it. Modules: `inputs` (where formulas come from), `options` (what a
run is asked to do), `parsing`, `answers` (what comes out: `Solution`, ...), `run` (the stream
and its stages), `sources` (candidate sources: models, test doubles), `checking` (validation,
engine fallback), `coreform` (rewriting into a model's operators), `models` (choosing and
loading models; torch only there, lazily), `verify` and `convert` (the `verify` and `fmt`
answers). The pipeline imports logic and neural, never eval, train, specs or the CLI.

`Pipeline` loads on first use, so that importing one of the light modules (`options`, whose
lists the CLI's `--help` shows; `inputs`, `answers`) does not load the stream and its stages.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Pipeline"]


def __getattr__(name: str) -> Any:
    if name != "Pipeline":
        raise AttributeError(f"module 'ltlwit.pipeline' has no attribute {name!r}")
    from ltlwit.pipeline.run import Pipeline

    globals()["Pipeline"] = Pipeline
    return Pipeline
