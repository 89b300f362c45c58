"""Spot infix printer with the fewest parentheses that still read back as the same tree.

The parser (infix.py) builds binary `&`/`|`/`xor` left-nested and `U R W M S T -> <->`
right-nested, so `a & b & c` prints without parentheses while `a & (b & c)` keeps them:
print -> parse gives back the identical (hash-consed) object. Iterative, so any depth prints.
Past operators print in the letters the parser reads (`Y Z O H S T`, BLACK's), although Spot
itself has none: `ltlwit fmt --to spot` refuses them, but messages and `str(formula)` need a
readable infix form. So does weak next, BLACK's `wX`, which Spot lacks too: it is followed by
a space or an opening parenthesis (`wX a`, `wX !a`, `wX Fa`, `wX(a U b)`, `wX 1`), as `wXa`
would be a name, and a letter operator before it keeps a space too (`G wX a`, but `!wX a`).
"""

from __future__ import annotations

from ltlwit.logic.formula import ATOM, WEAK_NEXT, Formula
from ltlwit.logic.syntax.names import spot_ap
from ltlwit.logic.syntax.operators import LEVELS, RIGHT_ASSOC, UNARY_LEVEL

#: Binding strength of the binary operators, the parser's (the operator table's: Spot's, `S T`
#: with `U R`); atoms and unary operators bind tighter than any binary operator, so only binary
#: children ever need parentheses.
PRECEDENCE = LEVELS
_ATOM = UNARY_LEVEL


def print_spot(formula: Formula) -> str:
    """Spot's infix syntax in Spot's own style: `G(a -> Fb)`, `a U (b U c)`, `X(1)`. A formula
    over data is written as the data reader reads it (`ltlwit.logic.syntax.data`): operators
    as whole words (`G F a`, not `GFa`), names by its rules, atoms in parentheses under a
    unary operator (`G(x = 1)`, `!(x > 2)`)."""
    data = formula.data
    if data:  # the theory layer loads with the first formula over data
        from ltlwit.logic.theory.printing import name_text, print_term
    name = name_text if data else spot_ap
    out: list[str] = []
    stack: list[Formula | str] = [formula]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if isinstance(item, str):
            out.append(item)
            continue
        op = item.op
        if item.name is not None:  # an AP
            out.append(name(item.name))
        elif item.term is not None:  # an atom
            out.append(print_term(item.term))
        elif op == "1" or op == "0":
            out.append(op)
        elif len(item.children) == 1:
            child = item.children[0]
            out.append(op)
            if child.op in PRECEDENCE or (data and child.op == ATOM):
                out.append("(")
                push(")")
            elif data and op != "!":
                out.append(" ")  # whole-word operators: `G a`, `X F a`
            elif op == WEAK_NEXT or (op != "!" and child.op == WEAK_NEXT):
                out.append(" ")  # `wXa`, `wX1` are names; `GwX a` would hide the operator
            elif op != "!" and child.op in ("1", "0"):
                # `X1`, `F0`, `Y1` would read as AP names, so constants after a letter get parentheses.
                out.append("(")
                push(")")
            push(child)
        else:
            left, right = item.children
            level = PRECEDENCE[op]
            lp = PRECEDENCE.get(left.op, _ATOM)
            rp = PRECEDENCE.get(right.op, _ATOM)
            if op in RIGHT_ASSOC:
                left_par, right_par = lp <= level, rp < level
            else:
                left_par, right_par = lp < level, rp <= level
            # Pushed in reverse: left part, operator, right part come out in reading order.
            if right_par:
                push(")")
                push(right)
                push("(")
            else:
                push(right)
            push(f" {op} ")
            if left_par:
                push(")")
                push(left)
                push("(")
            else:
                push(left)
    return "".join(out)
