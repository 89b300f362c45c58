"""Partial propositional assignments: the witnesses of propositional formulas.

A partial assignment is a witness when it *entails* the formula: every completion of it
satisfies the formula. APs not mentioned are free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ltlwit.logic.formula import And, Formula, Not, ap


@dataclass(frozen=True)
class Assignment:
    """AP name -> truth value, kept sorted by name so equal assignments compare equal."""

    values: tuple[tuple[str, bool], ...]

    @classmethod
    def of(cls, mapping: Mapping[str, bool] | Iterable[tuple[str, bool]]) -> "Assignment":
        """From AP names to truth values: a bool, or 0 and 1 as JSON assignments allow; anything
        else (`"false"`, whose truth Python would take to be True) is a ValueError naming the AP."""
        items = mapping.items() if isinstance(mapping, Mapping) else mapping
        checked = []
        for k, v in items:
            if not isinstance(k, str):
                raise ValueError(f"an AP name is a string, not {k!r}")
            if not (isinstance(v, bool) or type(v) is int and v in (0, 1)):
                raise ValueError(f"value of {k!r} must be true or false (a bool, or 0 or 1), not {v!r}")
            checked.append((k, bool(v)))
        return cls(tuple(sorted(checked)))

    def as_dict(self) -> dict[str, bool]:
        return dict(self.values)

    def aps(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.values)

    def to_formula(self) -> Formula:
        """The cube: the conjunction of the assignment's literals (`1` when it is empty)."""
        return cube(self.values)

    def to_str(self, syntax: str = "spot") -> str:
        """`spot`: the cube `a & !c`; `polish`: DeepLTL's `a1c0` (`polish-spaced`: `a1 c0`);
        `lbt`: the cube in LBT, `& "a" ! "c"`; `json`: `{"a": true, "c": false}`. The empty
        assignment is `1` (`t` in LBT, `{}` in JSON), never a blank."""
        from ltlwit.logic.syntax import print_assignment

        return print_assignment(self, syntax)

    def __str__(self) -> str:
        return self.to_str("spot")


def cube(literals: Iterable[tuple[str, bool]]) -> Formula:
    """The conjunction of (AP name, value) literals in the order given (`1` for none): every
    cube ltlwit prints (assignments, trace steps) is built here."""
    return And(*(ap(name) if value else Not(ap(name)) for name, value in literals))
