"""When a requirement does something: its trigger, for witnesses that show it fire.

A requirement of the response shape, `G(req -> F grant)`, is satisfied by every trace in which
`req` never holds; a witness of that kind says nothing about it. Its trigger is what makes it
act: the antecedents of its implications under the operators that make it hold at every
instant (`G`, and the past's `H`), `req` here, `(start & Z !start) & !level` for FRET's
`H((start & Z !start) -> (!level -> valve))`. A witness that fires it satisfies the requirement
and `F trigger`; one where the requirement cannot fire at all is vacuous by itself.
"""

from __future__ import annotations

from ltlwit.logic.formula import And, Formula

#: Operators under which a formula holds at every instant they reach (now and later, now and before).
_EVERYWHERE = ("G", "H")


def antecedents(formula: Formula) -> list[Formula]:
    """The antecedents of a chain of implications, outermost first: `a -> (b -> c)` gives
    `[a, b]`; a formula that is no implication, none."""
    out = []
    while formula.op == "->":
        out.append(formula.children[0])
        formula = formula.children[1]
    return out


def firing(formula: Formula) -> Formula | None:
    """What a trace must satisfy for `formula`'s trigger to fire (module docstring): `F t`
    where the implications hold at every instant, `t` where they hold at the first only; None
    where it has no trigger (no implication at its top, under `G` and `H`)."""
    everywhere = False
    while formula.op in _EVERYWHERE:  # H at the first instant holds there only; under G at every one
        everywhere = everywhere or formula.op == "G"
        formula = formula.children[0]
    found = antecedents(formula)
    if not found:
        return None
    trigger = And(*found)
    return Formula("F", (trigger,)) if everywhere else trigger
