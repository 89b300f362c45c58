"""An independent brute-force reference for propositional formulas, for the tests only.

It shares nothing with ltlwit.logic.prop (no SAT solver, no encoding): it evaluates the tree
under every valuation. Exponential, so only for formulas over a handful of APs.
"""

from __future__ import annotations

from itertools import product
from typing import Iterator, Mapping

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula

_BINARY = {
    "&": lambda a, b: a and b,
    "|": lambda a, b: a or b,
    "->": lambda a, b: (not a) or b,
    "<->": lambda a, b: a == b,
    "xor": lambda a, b: a != b,
}


def evaluate(formula: Formula, valuation: Mapping[str, bool]) -> bool:
    """Truth value under a total valuation of the formula's APs (iterative post-order)."""
    values: dict[int, bool] = {}
    stack: list[tuple[Formula, bool]] = [(formula, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in values:
            continue
        if not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in node.children)
            continue
        if node.op == "ap":
            values[id(node)] = valuation[node.name]
        elif node.op in ("1", "0"):
            values[id(node)] = node.op == "1"
        elif node.op == "!":
            values[id(node)] = not values[id(node.children[0])]
        else:
            left, right = (values[id(c)] for c in node.children)
            values[id(node)] = _BINARY[node.op](left, right)
    return values[id(formula)]


def completions(assignment: Assignment, aps: tuple[str, ...]) -> Iterator[dict[str, bool]]:
    """Every total valuation of `aps` that extends `assignment`."""
    fixed = assignment.as_dict()
    free = [name for name in aps if name not in fixed]
    for bits in product((False, True), repeat=len(free)):
        yield {**fixed, **dict(zip(free, bits))}


def brute_entails(assignment: Assignment, formula: Formula) -> bool:
    return all(evaluate(formula, v) for v in completions(assignment, formula.aps()))


def brute_sat(formula: Formula) -> bool:
    return any(evaluate(formula, v) for v in completions(Assignment.of({}), formula.aps()))


def brute_minimal(assignment: Assignment, formula: Formula) -> bool:
    """Entails, and no literal can be dropped (which, by monotonicity, is subset-minimality)."""
    if not brute_entails(assignment, formula):
        return False
    values = assignment.values
    return all(not brute_entails(Assignment(values[:i] + values[i + 1 :]), formula) for i in range(len(values)))
