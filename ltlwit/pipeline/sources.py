"""Candidate sources: whatever proposes witnesses for formulas over slot names.

A source is anything with `label` (`model:si-ltl`), `task`, `max_aps` and `propose`; the pipeline
never trusts what it proposes (every candidate is validated against the user's formula), which
is what lets the tests plug in a source that lies. `NeuralSource` is a model's batched beam
search (`ltlwit.neural.beam.BeamSearch`); it keeps the scores, because `--model both` lists the
union of two models' candidates by score. A source's answers are
`Proposal`s: a candidate witness (a `Prediction`, over slot names) with its score and source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from ltlwit.logic.formula import Formula
from ltlwit.logic.witness import Prediction


@dataclass(frozen=True)
class Proposal:
    prediction: Prediction  # over slot names (`a`, `b`, ..., `p26`)
    score: float  # higher is better; comparable across the sources of one run
    source: str


class CandidateSource(Protocol):
    label: str
    task: str
    #: Most APs an input may have (a dual model's β set), None for any number.
    max_aps: int | None

    def propose(self, formulas: Sequence[Formula]) -> list[list[Proposal]]:
        """Ranked candidates (best first) per formula, formulas over slot names."""
        ...


class NeuralSource:
    """A loaded model's beam search: the `n_best` best well-formed outputs of a `beam`-wide
    search, scored by length-normalised log-probability."""

    def __init__(
        self, name: str, model: Any, manifest: dict[str, Any], beam: int, n_best: int, batch_size: int, max_len: int
    ) -> None:
        from ltlwit.neural.beam import BeamSearch

        self.label = f"model:{name}"
        self.task = str(manifest.get("task"))
        max_aps = manifest.get("max_aps")
        self.max_aps = int(max_aps) if isinstance(max_aps, int) else None
        self.search = BeamSearch(model, beam=beam, n_best=n_best, batch_size=batch_size, max_len=max_len)

    def propose(self, formulas: Sequence[Formula]) -> list[list[Proposal]]:
        return [[Proposal(c.witness, c.score, self.label) for c in cands] for cands in self.search(formulas)]


def merge(lists: Sequence[Sequence[Proposal]]) -> list[Proposal]:
    """The union of several sources' candidates for one input, best score first (ties: the
    earlier source, then its own order); a witness proposed twice is tried once."""
    order = sorted(
        ((c.score, i, j, c) for i, cands in enumerate(lists) for j, c in enumerate(cands)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    seen: set[Prediction] = set()
    out = []
    for _, _, _, cand in order:
        if cand.prediction not in seen:
            seen.add(cand.prediction)
            out.append(cand)
    return out
