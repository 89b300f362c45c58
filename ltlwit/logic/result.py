"""Verdicts shared by the propositional solver, the LTL engine and the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.trace import Trace


@dataclass(frozen=True)
class Sat:
    """Satisfiable, with a witness the producing checker has verified."""

    witness: Union[Trace, Assignment]


@dataclass(frozen=True)
class Unsat:
    """Unsatisfiable; `proof` names how it was established (e.g. 'sat-solver', 'emptiness')."""

    proof: str = ""


@dataclass(frozen=True)
class Unknown:
    """No verdict within the budget (time or states); never to be read as unsat."""

    reason: str = ""


Result = Union[Sat, Unsat, Unknown]
