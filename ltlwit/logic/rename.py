"""Renaming atomic propositions into interchangeable slots, and back.

The neural models see `a, b, c, ...` however the user spelled the APs: `Renaming.canonical`
numbers a formula's APs by first appearance in Polish order, `apply` renames the formula,
and the inverse maps the model's traces or assignments back to the user's names.
`Renaming.permutation` applies any bijection (alpha-covariance checks, augmentation).

A renaming is injective by construction, so it can never merge two APs; an AP it does not
cover is a ValueError (renaming it to itself could collide with a renamed one).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula, ap, transform
from ltlwit.logic.trace import Trace


def slot_name(i: int) -> str:
    """Slot i's AP name: `a`..`z` for the first 26 slots, then `p26`, `p27`, ..."""
    if i < 0:
        raise ValueError(f"slot index must be non-negative, got {i}")
    return chr(ord("a") + i) if i < 26 else f"p{i}"


class Renaming:
    """An injective map from AP names to AP names."""

    __slots__ = ("_map", "slots")

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        mapping: dict[str, str] = {}
        for old, new in pairs:
            if not isinstance(old, str) or not isinstance(new, str) or not old or not new:
                raise ValueError(f"AP names must be non-empty strings, got {old!r} -> {new!r}")
            if mapping.setdefault(old, new) != new:
                raise ValueError(f"AP {old!r} is mapped twice ({mapping[old]!r} and {new!r})")
        if len(set(mapping.values())) != len(mapping):
            clash = sorted(n for n in set(mapping.values()) if list(mapping.values()).count(n) > 1)
            raise ValueError(f"not a bijection: several APs would be renamed to {clash[0]!r}")
        self._map = mapping
        #: The original names in slot (insertion) order.
        self.slots: tuple[str, ...] = tuple(mapping)

    @classmethod
    def canonical(cls, formula: Formula) -> "Renaming":
        """APs by first appearance in Polish order -> `a`, `b`, ... (see `slot_name`)."""
        return cls((name, slot_name(i)) for i, name in enumerate(formula.aps()))

    @classmethod
    def permutation(cls, mapping: Mapping[str, str] | Iterable[tuple[str, str]]) -> "Renaming":
        """Any bijection between AP names; ValueError if two names share an image."""
        return cls(mapping.items() if isinstance(mapping, Mapping) else mapping)

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Renaming) and self._map == other._map and self.slots == other.slots

    def __hash__(self) -> int:
        return hash(tuple(self._map.items()))

    def __repr__(self) -> str:
        return f"Renaming({self._map!r})"

    def inverse(self) -> "Renaming":
        return Renaming((new, old) for old, new in self._map.items())

    def _target(self, name: str, what: str) -> str:
        try:
            return self._map[name]
        except KeyError:
            known = ", ".join(map(repr, self.slots)) or "none"
            raise ValueError(
                f"{what} mentions AP {name!r}, which this renaming does not cover (it covers {known})"
            ) from None

    def apply(self, formula: Formula) -> Formula:
        """The formula with every AP renamed; iterative, shared subformulas renamed once."""
        for name in formula.aps():
            self._target(name, "the formula")
        mapping = self._map
        return transform(
            formula,
            lambda node, kids: (
                ap(mapping[str(node.name)]) if node.op == "ap" else node if not kids else Formula(node.op, kids)
            ),
        )

    def apply_trace(self, trace: Trace) -> Trace:
        for name in trace.aps():
            self._target(name, "the trace")
        return Trace(tuple(map(self.apply, trace.prefix)), tuple(map(self.apply, trace.cycle)))

    def apply_assignment(self, assignment: Assignment) -> Assignment:
        return Assignment.of((self._target(name, "the assignment"), value) for name, value in assignment.values)

    def invert_trace(self, trace: Trace) -> Trace:
        """Map a trace over the slot names back to the original names."""
        return self.inverse().apply_trace(trace)

    def invert_assignment(self, assignment: Assignment) -> Assignment:
        """Map an assignment over the slot names back to the original names."""
        return self.inverse().apply_assignment(assignment)
