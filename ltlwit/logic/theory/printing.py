"""Terms and atoms in the infix syntax the data parser reads (`ltlwit.logic.syntax.data`):
the fewest parentheses that read back as the same tree, numerals as written, names quoted
where the parser would not read them back as one name."""

from __future__ import annotations

import re

from ltlwit.logic.theory.terms import RELATIONS, SHIFTS, Term

#: Binding strength of the term operators, lowest first; all are left-associative.
LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "mod": 2, "neg": 3}
_LEAF = 4
#: A name the data lexer reads back as one identifier (and not as a keyword).
BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*\Z")
#: Words the data lexer reads as operators or constants.
KEYWORDS = frozenset(
    {
        "X",
        "F",
        "G",
        "U",
        "R",
        "V",
        "W",
        "M",
        "Y",
        "Z",
        "O",
        "H",
        "S",
        "T",
        "wX",
        "xor",
        "xnor",
        "mod",
        "forall",
        "exists",
        "true",
        "false",
    }
)


def name_text(name: str) -> str:
    """A variable, function or proposition name as the data lexer reads it back."""
    if BARE.match(name) and name not in KEYWORDS and name.lower() not in ("true", "false"):
        return name
    from ltlwit.logic.syntax.names import quote

    return quote(name)


def print_term(term: Term) -> str:
    """Iterative: terms nest as deep as their input."""
    out: list[str] = []
    stack: list[Term | str] = [term]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        op = item.op
        if op == "var":
            out.append(name_text(item.symbol))
        elif op == "num":
            out.append(item.symbol)
        elif op in ("call", "pred") or op in SHIFTS:
            out.append(f"{name_text(item.symbol) if op in ('call', 'pred') else op}(")
            stack.append(")")
            for k, child in enumerate(reversed(item.children)):
                stack.append(child)
                if k < len(item.children) - 1:
                    stack.append(", ")
        elif op == "neg":
            child = item.children[0]
            out.append("-")
            if LEVEL.get(child.op, _LEAF) <= LEVEL["neg"]:
                stack.extend([")", child, "("])
            else:
                stack.append(child)
        elif op in RELATIONS:
            left, right = item.children
            stack.extend([right, f" {op} ", left])
        else:
            left, right = item.children
            level = LEVEL[op]
            right_par = LEVEL.get(right.op, _LEAF) <= level
            left_par = LEVEL.get(left.op, _LEAF) < level
            stack.extend([")", right, "("] if right_par else [right])
            stack.append(f" {op} ")
            stack.extend([")", left, "("] if left_par else [left])
    return "".join(out)
