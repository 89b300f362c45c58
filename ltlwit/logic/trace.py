"""Symbolic traces: a finite prefix then a cycle repeated forever (a lasso), or, without a
cycle, a finite trace (finite semantics, LTLf); each step a propositional formula that stands
for every letter (valuation) satisfying it.

A symbolic trace denotes a *set* of words, infinite for a lasso and finite (of its length)
otherwise; it is a witness of an LTL formula only when every word of the set satisfies the
formula (universal semantics, as DeepLTL checks it). One type for both: the searches, the
checker and the printers treat the loop as optional.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltlwit.logic.formula import Formula


@dataclass(frozen=True)
class Trace:
    prefix: tuple[Formula, ...]
    cycle: tuple[Formula, ...]

    def __post_init__(self) -> None:
        if not self.cycle and not self.prefix:
            raise ValueError("a trace needs at least one step")
        for step in self.prefix + self.cycle:
            if step.temporal:
                raise ValueError(f"trace step {step} is not propositional")

    @property
    def finite(self) -> bool:
        """A finite trace (no cycle): its words end after its last step."""
        return not self.cycle

    @property
    def data(self) -> bool:
        """Whether a step gives values (`x = 3`): only the exact evaluator and infix read it."""
        return any(step.data for step in self.steps)

    @property
    def steps(self) -> tuple[Formula, ...]:
        return self.prefix + self.cycle

    def aps(self) -> tuple[str, ...]:
        """AP names in order of first appearance along the steps."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for name in step.aps():
                seen.setdefault(name, None)
        return tuple(seen)

    def to_str(self, syntax: str = "spot") -> str:
        """`spot`: Spot's word syntax `a & !b; 1; cycle{c}` (finite: `a & !b; 1; c`); `polish`:
        DeepLTL's `&a!b;1;{c}` (finite: `&a!b;1;c`)
        (steps in spaced Polish when a name has several letters; `polish-spaced`: always);
        `lbt`: LBT steps in Spot's layout, `& "a" ! "b"; t; cycle{"c"}`."""
        from ltlwit.logic.syntax import print_trace

        return print_trace(self, syntax)

    def __str__(self) -> str:
        return self.to_str("spot")
