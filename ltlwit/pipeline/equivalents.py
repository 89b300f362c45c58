"""Equivalent formulas written by an ExpEmb-E model, each proved by the engine: `ltlwit equiv`.

The fifth paper's generation task as a user feature ("say this another way, more simply"): the
formula is renamed into the model's AP slots, its beam's outputs are read back as formulas, and
only those the engine proves equivalent to the formula as written (`f xor g` unsatisfiable under
the semantics asked) are given, shortest first, in the user's names. An output that is no
formula, the formula itself, one over an AP the formula lacks, or one the engine does not decide
within the time given is dropped: a guess is never presented as an equivalent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ltlwit.logic.budget import Budget
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming

if TYPE_CHECKING:
    from ltlwit.neural.expemb import ExpEmb


@dataclass(frozen=True)
class Equivalents:
    """The proved equivalents (shortest first), and what became of the beam's other outputs."""

    formulas: tuple[Formula, ...]
    outputs: int  # distinct outputs of the beam
    malformed: int  # no formula
    undecided: int  # the engine did not decide within the time given


#: The bundled ExpEmb-E models (`model="auto"`), by the logic of the formulas they learned from:
#: a formula without temporal operators goes to the propositional one.
BUNDLED = {"ltl": "expemb-ltl", "prop": "expemb-prop"}


class Rewriter:
    """ExpEmb-E models writing equivalents: `model_name` one (registered or a weights file;
    ValueError for a model that is not ExpEmb-E), or "auto", the bundled model of each formula's
    logic (`BUNDLED`), each loaded when first asked."""

    def __init__(self, model_name: str = "auto") -> None:
        self.name = model_name
        self.models: dict[str, ExpEmb] = {}
        if model_name != "auto":
            self._model(model_name)

    def _model(self, name: str) -> ExpEmb:
        from ltlwit.neural.expemb import load

        if name not in self.models:
            self.models[name] = load(name, pairs="equivalent")
        return self.models[name]

    def equivalents(
        self, formula: Formula, beam: int = 10, seconds: float = 2.0, semantics: str = "infinite"
    ) -> Equivalents:
        """The model's outputs for `formula`, each proved equivalent (module docstring);
        ValueError for a formula it cannot read (past operators, data: it reads future-time LTL
        over at most its slots' number of propositions)."""
        from ltlwit.logic import ltl
        from ltlwit.neural.beam import beam_hypotheses
        from ltlwit.neural.expemb import unreadable
        from ltlwit.neural.tokenizer import DecodeError, decode_formula

        unknown = unreadable(formula)
        if unknown is not None:
            raise ValueError(f"the model reads future-time LTL over propositions, not {unknown!r}")
        model = self._model(BUNDLED["ltl" if formula.temporal else "prop"] if self.name == "auto" else self.name)
        renaming = Renaming.canonical(formula)
        if len(renaming) > model.cfg.max_slots:
            raise ValueError(f"{len(renaming)} APs; the model tells apart {model.cfg.max_slots}")
        renamed, back = renaming.apply(formula), renaming.inverse()
        (hyps,) = beam_hypotheses(model, [renamed], beam=beam, max_len=4 * renamed.size + 8)
        written = [decode_formula(list(seq)) for _, seq in hyps[:beam]]
        candidates = [g for g in written if not isinstance(g, DecodeError)]
        proved, undecided = [], 0
        for g in candidates:
            if g == renamed or not set(g.aps()) <= set(renamed.aps()):
                continue
            mine = back.apply(g)
            same = ltl.equivalent(formula, mine, Budget(seconds=seconds), semantics=semantics)
            if same:
                proved.append(mine)
            undecided += same is None
        proved.sort(key=lambda g: (g.size, str(g)))
        return Equivalents(tuple(proved), len(written), len(written) - len(candidates), undecided)
