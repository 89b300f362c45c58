"""The one table of the operators: for each, its Formula op, arity, binding level,
associativity, the words that describe it in error messages and its spellings in every
syntax. The lexers (`infix_lex`, `data`, `lbt`), the parsers (`precedence`, `polish`,
`prefix`) and the printers (`infix_print`, `polish`, `lbt`) read them from here, so that a
level or a spelling is changed in one place and the readers and writers stay each other's
inverse.

Levels are Spot's, lowest first: `-> <->` 1 (right-associative); `|` 2; `xor` 3; `&` 4
(Wring's `*` 4.5); `U R W M` and the past `S T` 5 (right-associative); the unary operators
above every binary one in Spot's reading (`UNARY_LEVEL`: a unary operator applies as soon as
its operand is complete) and at 5.5 in the data reading, below its comparisons 6, arithmetic
7 and 8 and unary minus 9 (`G x = 1` is `G(x = 1)`).
"""

from __future__ import annotations

from typing import NamedTuple

from ltlwit.logic.formula import WEAK_NEXT


class Operator(NamedTuple):
    op: str  # as `Formula.op`
    arity: int  # 0 for the constants
    level: float  # binding strength in the infix syntaxes (higher binds tighter)
    right: bool  # right-associative (binary operators)
    name: str  # what a syntax error calls it ("until operator")
    spot: tuple[str, ...]  # Spot's infix spellings: a word that is a keyword, or symbols
    data: tuple[str, ...]  # BLACK's and nuXmv's (the data reading): whole words and symbols
    lbt: tuple[str, ...]  # LBT's, the one printed first; () where LBT lacks it
    network: bool  # whether network Polish (DeepLTL's, future-only, no wX) has it


#: Unary operators bind tighter than every binary one in Spot's infix reading.
UNARY_LEVEL = 6.0
#: Wring's `*` conjunction binds between `&` and `U`, as in Spot.
STAR_LEVEL = 4.5
#: The data reading's levels: unary operators take a whole comparison, which takes terms.
DATA_UNARY_LEVEL = 5.5
COMPARE_LEVEL = 6.0
ARITH_LEVELS = {"+": 7.0, "-": 7.0, "*": 8.0, "/": 8.0, "mod": 8.0}
NEG_LEVEL = 9.0


def _row(
    op: str, arity: int, level: float, right: bool, name: str, spot: str, data: str, lbt: str, network: bool
) -> Operator:
    """A row of the table, each syntax's spellings written blank-separated."""
    return Operator(
        op, arity, level, right, name, tuple(spot.split()), tuple(data.split()), tuple(lbt.split()), network
    )


_U = UNARY_LEVEL
#: op, arity, level, right-associative, name; spellings in Spot's infix, in the data reading
#: and in LBT; whether network Polish has it.
TABLE: tuple[Operator, ...] = (
    _row("1", 0, 0.0, False, "constant true", "1", "", "t", True),
    _row("0", 0, 0.0, False, "constant false", "0", "", "f", True),
    _row("!", 1, _U, False, "not operator", "! ~ ¬", "! ~ ¬", "!", True),
    _row("X", 1, _U, False, "next operator", "X () ○ ◯ Ⓧ", "X ○ ◯", "X", True),
    _row("F", 1, _U, False, "sometimes operator", "F <> ◇ ⋄ ♢", "F <> ◇ ⋄ ♢", "F", True),
    _row("G", 1, _U, False, "always operator", "G [] □ ⬜ ◻", "G [] □ ◻ ⬜", "G", True),
    _row("Y", 1, _U, False, "yesterday operator", "Y", "Y", "Y", False),
    _row("Z", 1, _U, False, "weak yesterday operator", "Z", "Z", "Z", False),
    _row("O", 1, _U, False, "once operator", "O", "O", "O", False),
    _row("H", 1, _U, False, "historically operator", "H", "H", "H", False),
    _row(WEAK_NEXT, 1, _U, False, "weak next operator", WEAK_NEXT, WEAK_NEXT, WEAK_NEXT, False),
    _row("->", 2, 1.0, True, "implication operator", "-> --> → ⟶ => ⇒ ⟹", "-> => → ⟶ ⇒ ⟹", "i", True),
    _row("<->", 2, 1.0, True, "equivalent operator", "<-> <--> ↔ <=> ⇔", "<-> <=> ↔ ⇔ xnor", "e", True),
    _row("|", 2, 2.0, False, "or operator", "|| | + \\/ ∨ ∪", "| || ∨ \\/", "|", True),
    _row("xor", 2, 3.0, False, "xor operator", "xor ^ ⊕", "xor ⊕", "^", True),
    _row("&", 2, 4.0, False, "and operator", "&& & /\\ ∧ ∩", "& && ∧ /\\", "&", True),
    _row("U", 2, 5.0, True, "until operator", "U", "U", "U", True),
    _row("R", 2, 5.0, True, "release operator", "R V", "R V", "V R", True),
    _row("W", 2, 5.0, True, "weak until operator", "W", "W", "W", True),
    _row("M", 2, 5.0, True, "strong release operator", "M", "M", "M", True),
    _row("S", 2, 5.0, True, "since operator", "S", "S", "S", False),
    _row("T", 2, 5.0, True, "triggered operator", "T", "T", "T", False),
)

#: The operators (constants left out) by their Formula op.
BY_OP = {o.op: o for o in TABLE if o.arity}
#: Binary operators: op -> level, Spot's table lowest first.
LEVELS = {o.op: o.level for o in TABLE if o.arity == 2}
#: The right-associative binary operators, and their levels (a level is one or the other).
RIGHT_ASSOC = frozenset(o.op for o in TABLE if o.arity == 2 and o.right)
RIGHT = frozenset(LEVELS[op] for op in RIGHT_ASSOC)
#: What error messages call each operator.
NAMES = {o.op: o.name for o in TABLE if o.arity}
#: Network Polish's tokens (its spelling is the op) with their arities.
NETWORK_ARITY = {o.op: o.arity for o in TABLE if o.network}
#: Arity of every op of the prefix syntaxes (spaced Polish spells an op as itself).
ARITY = {o.op: o.arity for o in TABLE}
#: LBT's spellings: what each reads as, and what each op prints as.
FROM_LBT = {s: o.op for o in TABLE for s in o.lbt}
TO_LBT = {o.op: o.lbt[0] for o in TABLE if o.lbt}


def spellings(syntax: str, arity: int) -> dict[str, str]:
    """The spellings of the operators of `arity` in `syntax` ("spot" or "data"): spelling -> op."""
    return {s: o.op for o in TABLE if o.arity == arity for s in getattr(o, syntax)}
