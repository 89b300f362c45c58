"""The one thing evaluation needs from a model: a predictor.

A predictor maps a batch of formulas over slot names (`a`, `b`, ..., `p26`) to, per formula, a
list of ranked candidates (best first): a `Trace` (LTL), an `Assignment` (propositional), or an
`Invalid` token string the model produced but that is not a well-formed witness. It is told
the slot names exactly as given, never renamed behind its back: alpha-covariance feeds it
permuted slots on purpose. Tests use hand-made predictors; `NeuralPredictor` wraps beam search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, Union

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.logic.trace import Trace


@dataclass(frozen=True)
class Invalid:
    """A malformed output, kept as its tokens (AP tokens by slot name) so it can be renamed."""

    tokens: tuple[str, ...] = ()

    def rename(self, mapping: Mapping[str, str]) -> "Invalid":
        return Invalid(tuple(mapping.get(t, t) for t in self.tokens))


Prediction = Union[Trace, Assignment, Invalid]
Predictor = Callable[[Sequence[Formula]], list[list[Prediction]]]


def invert(renaming: Renaming, prediction: Prediction) -> Prediction:
    """A prediction for `renaming.apply(x)` mapped back to x's names. An AP the renaming does
    not cover (the model made one up) makes the prediction Invalid: it has no preimage."""
    try:
        if isinstance(prediction, Trace):
            return renaming.invert_trace(prediction)
        if isinstance(prediction, Assignment):
            return renaming.invert_assignment(prediction)
    except ValueError:
        return Invalid(("<unknown AP>",))
    return prediction.rename(renaming.inverse().mapping)


class NeuralPredictor:
    """Beam search of a loaded model (`ltlwit.registry.load`) as a predictor: the `beam`
    search's best `n_best` outputs. Beam search drops malformed outputs itself, so an input
    whose every output was malformed gets an empty list (counted invalid by the metrics)."""

    def __init__(self, model: Any, beam: int = 3, n_best: int | None = None, batch_size: int = 128,
                 device: str | None = None, max_len: int = 160) -> None:
        self.model, self.beam = model, beam
        self.n_best = min(n_best or beam, beam)
        self.batch_size, self.device, self.max_len = batch_size, device, max_len

    def __call__(self, formulas: Sequence[Formula]) -> list[list[Prediction]]:
        from ltlwit.neural.beam import beam_search

        found = beam_search(self.model, list(formulas), beam=self.beam, n_best=self.n_best,
                            max_len=self.max_len, batch_size=self.batch_size, device=self.device)
        return [[c.witness for c in cands] for cands in found]
