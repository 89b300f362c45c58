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


class WitnessRejected(Exception):
    """A witness the engine found and its own checker rejects: a bug in ltlwit, so an error
    the user reports, with the formula and the witness (an UNKNOWN answer hid it among the
    time-outs). Not a ValueError, which is the input's fault. Made by `of` (its one argument,
    the message, is what a worker process pickles)."""

    @classmethod
    def of(cls, formula: object, witness: object) -> WitnessRejected:
        return cls(f"the witness {_printed(witness)} of {_printed(formula)} failed its check")


def _printed(thing: object) -> str:
    try:
        return str(thing)
    except ValueError as e:  # a formula or trace too large to print says so
        return f"({e})"
