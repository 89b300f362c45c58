"""Rewriting a formula into the operators a model was trained on, before it sees the formula.

The tokenizer can spell every operator, but the bundled models learned from LTLRandom35-style
data (`1 0 ! X U &`) and PropRandom35-style data (`1 0 ! & | <-> xor`): a `G`, `->` or `R` is a
token they never saw. Instead of feeding them out-of-distribution inputs, the pipeline gives
them an *equivalent* formula over their core operators. The candidate is validated against the
formula the user wrote, never against this rewrite, so a bug here can cost a model answer but
never produce a wrong one.

Rewrites (LTL core): `F a = 1 U a`, `G a = !(1 U !a)`, `a | b = !(!a & !b)`,
`a -> b = !(a & !b)`, `a <-> b = !(a & !b) & !(!a & b)`, `a xor b = !(!(a & !b) & !(!a & b))`,
`wX a = X a` (on infinite traces), `a R b = !(!a U !b)`, `a W b = !(!(a U b) & (1 U !a))`, `a M b = b U (a & b)`; `!!a = a`
everywhere. Propositional core: `a -> b = !a | b`, `!!a = a`.
"""

from __future__ import annotations

from ltlwit.logic.formula import TRUE, Formula, transform

#: Operators (besides APs) each task's models were trained on.
CORE_OPS: dict[str, frozenset[str]] = {
    "ltl": frozenset({"1", "0", "!", "X", "U", "&"}),
    "prop": frozenset({"1", "0", "!", "&", "|", "<->", "xor"}),
}

#: Largest rewritten formula (Polish tokens) handed to a model. The training data stops at
#: size 35 (the 10-AP grid at 50); far beyond that the models are guessing and a batch's
#: memory grows with its longest input, so such formulas go straight to the engine.
MAX_MODEL_INPUT = 128


def _not(f: Formula) -> Formula:
    return f.children[0] if f.op == "!" else Formula("!", (f,))


def _and(a: Formula, b: Formula) -> Formula:
    return Formula("&", (a, b))


def _until(a: Formula, b: Formula) -> Formula:
    return Formula("U", (a, b))


def _or_ltl(a: Formula, b: Formula) -> Formula:
    return _not(_and(_not(a), _not(b)))


def _ltl_node(op: str, kids: tuple[Formula, ...]) -> Formula:
    if op == "!":
        return _not(kids[0])
    if op == "F":
        return _until(TRUE, kids[0])
    if op == "G":
        return _not(_until(TRUE, _not(kids[0])))
    if op in ("X", "U", "&"):
        return Formula(op, kids)
    if op == "wX":  # the weak next is X on the infinite traces the models write
        return Formula("X", kids)
    a, b = kids
    if op == "|":
        return _or_ltl(a, b)
    if op == "->":
        return _not(_and(a, _not(b)))
    if op == "<->":
        return _and(_not(_and(a, _not(b))), _not(_and(_not(a), b)))
    if op == "xor":
        return _or_ltl(_and(a, _not(b)), _and(_not(a), b))
    if op == "R":
        return _not(_until(_not(a), _not(b)))
    if op == "W":
        return _not(_and(_not(_until(a, b)), _until(TRUE, _not(a))))
    if op == "M":
        return _until(b, _and(a, b))
    raise ValueError(f"no LTL core rewrite for operator {op!r}")


def _prop_node(op: str, kids: tuple[Formula, ...]) -> Formula:
    if op == "!":
        return _not(kids[0])
    if op == "->":
        return Formula("|", (_not(kids[0]), kids[1]))
    if op in ("&", "|", "<->", "xor"):
        return Formula(op, kids)
    raise ValueError(f"no propositional core rewrite for operator {op!r}")


def to_core(formula: Formula, task: str) -> Formula:
    """An equivalent formula over `CORE_OPS[task]` (iterative; shared subformulas once)."""
    node_rule = _ltl_node if task == "ltl" else _prop_node
    return transform(formula, lambda node, kids: node_rule(node.op, kids) if kids else node)
