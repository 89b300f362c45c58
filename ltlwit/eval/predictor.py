"""The one thing evaluation needs from a model: a predictor.

A predictor maps a batch of formulas over slot names (`a`, `b`, ..., `p26`) to, per formula, a
list of ranked candidates (best first): a `Trace` (LTL), an `Assignment` (propositional), or an
`Invalid` token string the model produced but that is not a well-formed witness. It is told
the slot names exactly as given, never renamed behind its back: alpha-covariance feeds it
permuted slots on purpose. Tests use hand-made predictors; `NeuralPredictor` reads a model's
beam search (`ltlwit.neural.beam.BeamSearch`) as one.
`Invalid`, `Prediction` and `invert` belong to the witness seam (`ltlwit.logic.witness`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ltlwit.logic.formula import Formula
from ltlwit.logic.witness import Invalid, Prediction, invert

__all__ = ["Invalid", "NeuralPredictor", "Prediction", "Predictor", "invert"]

Predictor = Callable[[Sequence[Formula]], list[list[Prediction]]]


class NeuralPredictor:
    """A loaded model's beam search (`ltlwit.neural.registry.load`) as a predictor: its
    `n_best` best witnesses of a `beam`-wide search, without their scores. Beam search drops
    malformed outputs itself, so an input whose every output was malformed gets an empty list
    (counted invalid by the metrics)."""

    def __init__(self, model: Any, **settings: Any) -> None:
        from ltlwit.neural.beam import BeamSearch

        self.search = BeamSearch(model, **settings)

    def __call__(self, formulas: Sequence[Formula]) -> list[list[Prediction]]:
        return [[c.witness for c in cands] for cands in self.search(formulas)]
