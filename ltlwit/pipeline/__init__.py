"""The solving pipeline: parse -> rename into slots -> model candidates (batched beam search)
-> validation by the checkers -> engine fallback -> names back.

The one invariant: no witness leaves the pipeline unless the checker accepted it for the
formula as the user wrote it. Modules: `run` (the stream and its stages), `sources` (candidate
sources: models, test doubles), `checking` (validation, engine fallback), `coreform` (rewriting
into a model's operators), `models` (choosing and loading models; torch only here, lazily).
"""

from ltlwit.pipeline.run import Pipeline

__all__ = ["Pipeline"]
