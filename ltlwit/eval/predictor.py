"""The one thing evaluation needs from a model: a predictor.

A predictor maps a batch of formulas over slot names (`a`, `b`, ..., `p26`) to, per formula, a
list of ranked candidates (best first): a `Trace` (LTL), an `Assignment` (propositional), or an
`Invalid` token string the model produced but that is not a well-formed witness. It is told
the slot names exactly as given, never renamed behind its back: alpha-covariance feeds it
permuted slots on purpose. Tests use hand-made predictors; `NeuralPredictor` wraps beam search.
`Invalid`, `Prediction` and `invert` belong to the witness seam (`ltlwit.logic.witness`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ltlwit.logic.formula import Formula
from ltlwit.logic.witness import Invalid, Prediction, invert

__all__ = ["Invalid", "NeuralPredictor", "Prediction", "Predictor", "invert"]

Predictor = Callable[[Sequence[Formula]], list[list[Prediction]]]


class NeuralPredictor:
    """Beam search of a loaded model (`ltlwit.neural.registry.load`) as a predictor: the `beam`
    search's best `n_best` outputs. Beam search drops malformed outputs itself, so an input
    whose every output was malformed gets an empty list (counted invalid by the metrics)."""

    def __init__(
        self,
        model: Any,
        beam: int = 3,
        n_best: int | None = None,
        batch_size: int = 128,
        device: str | None = None,
        max_len: int = 160,
    ) -> None:
        self.model, self.beam = model, beam
        self.n_best = min(n_best or beam, beam)
        self.batch_size, self.device, self.max_len = batch_size, device, max_len

    def __call__(self, formulas: Sequence[Formula]) -> list[list[Prediction]]:
        from ltlwit.neural.beam import beam_search

        found = beam_search(
            self.model,
            list(formulas),
            beam=self.beam,
            n_best=self.n_best,
            max_len=self.max_len,
            batch_size=self.batch_size,
            device=self.device,
        )
        return [[c.witness for c in cands] for cands in found]
