"""The solving pipeline: parse -> rename into slots -> model candidates (batched beam search)
-> validation by the witness seam -> engine fallback -> names back.

The one invariant: no witness leaves the pipeline unless the checker accepted it for the
formula as the user wrote it. Modules: `inputs` (where formulas come from), `options` (what a
run is asked to do), `parsing`, `answers` (what comes out: `Solution`, ...), `run` (the stream
and its stages), `sources` (candidate sources: models, test doubles), `checking` (validation,
engine fallback), `coreform` (rewriting into a model's operators), `models` (choosing and
loading models; torch only there, lazily), `verify` and `convert` (the `verify` and `fmt`
answers). The pipeline imports logic and neural, never eval, train, specs or the CLI.
"""

from ltlwit.pipeline.run import Pipeline

__all__ = ["Pipeline"]
