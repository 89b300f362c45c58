"""Spot's trivial identities: the rewrites Spot's formula constructors apply to every formula.

Spot never builds `!!a`, `a & 1`, `b U 0` or `a <-> a`; so `randltl`, which DeepLTL's data sets
(ltl35, prop35) come from, never prints them. ltlwit's own generator draws raw trees and passes
them through `trivial`, so that retrained models see the same kind of formulas as the bundled
ones. Every rule is an equivalence (tests check each against the engine). As in Spot, `X0`,
`1 U f` (F f) and `0 R f` (G f) stay: they are not trivial, and Spot keeps `f & !f` too.
"""

from __future__ import annotations

from typing import Callable

from ltlwit.logic.formula import FALSE, TRUE, Formula, transform

__all__ = ["trivial", "rewrites_root"]


def trivial(formula: Formula) -> Formula:
    """`formula` with Spot's trivial identities applied bottom-up (equivalent, never larger)."""
    return transform(formula, _rule)


def rewrites_root(node: Formula) -> bool:
    """Whether an identity applies at `node` itself (its subformulas as they are): what a
    generator building bottom-up from unrewritable parts needs to check, in constant time."""
    return _rule(node, node.children) != node


def _neg(f: Formula) -> Formula:
    if f.op == "!":
        return f.children[0]
    if f.op in ("0", "1"):
        return FALSE if f == TRUE else TRUE
    return Formula("!", (f,))


def _constant(f: Formula) -> bool:
    return f.op in ("0", "1")


def _rule(node: Formula, kids: tuple[Formula, ...]) -> Formula:
    op = node.op
    if not kids:
        return node
    if len(kids) == 1:
        (f,) = kids
        if op == "!":
            return _neg(f)
        if op == "X" and f == TRUE:
            return TRUE
        if op in ("F", "G") and (_constant(f) or f.op == op):  # F1 = 1, FFf = Ff, ...
            return f
        return Formula(op, kids)
    a, b = kids
    rewritten = _BINARY[op](a, b)
    return rewritten if rewritten is not None else Formula(op, kids)


def _lattice(absorbing: Formula, unit: Formula) -> Callable[[Formula, Formula], Formula | None]:
    """`&` (0 absorbs, 1 is the unit) and `|` (the other way round); both idempotent."""

    def rule(a: Formula, b: Formula) -> Formula | None:
        if absorbing in (a, b):
            return absorbing
        if a == unit or a == b:
            return b
        return a if b == unit else None

    return rule


def _parity(unit: Formula) -> Callable[[Formula, Formula], Formula | None]:
    """`<->` (unit 1) and `xor` (unit 0): f op f is the unit; the other constant negates."""

    def rule(a: Formula, b: Formula) -> Formula | None:
        if a == b:
            return unit
        for x, y in ((a, b), (b, a)):
            if x == unit:
                return y
            if _constant(x):
                return _neg(y)
        return None

    return rule


def _implies(a: Formula, b: Formula) -> Formula | None:
    if a == FALSE or b == TRUE or a == b:
        return TRUE
    if a == TRUE:
        return b
    return _neg(a) if b == FALSE else None


def _until(a: Formula, b: Formula) -> Formula | None:
    if _constant(b) or a == b:  # f U 1 = 1, f U 0 = 0, f U f = f
        return b
    return b if a == FALSE else None  # 0 U f = f


def _release(a: Formula, b: Formula) -> Formula | None:
    if _constant(b) or a == b:  # f R 1 = 1, f R 0 = 0, f R f = f
        return b
    return b if a == TRUE else None  # 1 R f = f


def _weak_until(a: Formula, b: Formula) -> Formula | None:
    if b == TRUE or a == TRUE:  # f W 1 = 1, 1 W f = 1
        return TRUE
    return b if a == FALSE or a == b else None  # 0 W f = f, f W f = f


def _strong_release(a: Formula, b: Formula) -> Formula | None:
    if b == FALSE or a == FALSE:  # f M 0 = 0, 0 M f = 0
        return FALSE
    return b if a == TRUE or a == b else None  # 1 M f = f, f M f = f


_BINARY = {
    "&": _lattice(FALSE, TRUE),
    "|": _lattice(TRUE, FALSE),
    "->": _implies,
    "<->": _parity(TRUE),
    "xor": _parity(FALSE),
    "U": _until,
    "R": _release,
    "W": _weak_until,
    "M": _strong_release,
}
