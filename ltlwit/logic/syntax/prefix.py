"""Shared machinery of the prefix (Polish-like) syntaxes: building a formula from a token
list with one explicit stack, and explaining, with a column, why a token list is not one
complete formula. Spaced Polish and LBT both use it, with every operator, past ones and
the weak next `wX` included; network Polish, future-only and without `wX`, reads the table's
operators that it has (`operators.NETWORK_ARITY`) and only calls `diagnose` once its fast path
has failed. The arities are the operator table's (`operators`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import Formula, ap
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import unquote_at
from ltlwit.logic.syntax.operators import ARITY as _OPERATOR_ARITY

#: Arity of every token op of the prefix syntaxes, keyed by Formula op ("ap" for names).
ARITY: dict[str, int] = {**_OPERATOR_ARITY, "ap": 0}


class Token(NamedTuple):
    """One prefix token: `op` is a Formula op ("ap" for names), `text` its spelling."""

    op: str
    name: str | None
    column: int
    text: str


#: Whitespace-separated words, a double-quoted name being one word (it may hold spaces).
_WORD = re.compile(r'"(?:[^"\\]|\\.)*"|"|[^\s"]+')


def words(text: str) -> list[tuple[str, int, str | None]]:
    """Split on whitespace: (spelling, column, quoted name or None) per word."""
    out: list[tuple[str, int, str | None]] = []
    for m in _WORD.finditer(text):
        word = m.group()
        if word.startswith('"'):
            got = unquote_at(text, m.start())
            if got is None or len(word) < 2:
                raise ParseError(text, m.start(), "unclosed string: missing closing double quote")
            out.append((word, m.start(), got[0]))
        else:
            out.append((word, m.start(), None))
    return out


def build(tokens: list[Token], text: str) -> Formula:
    """The formula of a prefix token list (operands follow their operator)."""
    stack: list[Formula] = []
    push, pop = stack.append, stack.pop
    try:
        for count, tok in enumerate(reversed(tokens)):
            if not count & 4095:
                check_deadline()
            arity = ARITY[tok.op]
            if arity == 0:
                push(ap(str(tok.name)) if tok.op == "ap" else Formula(tok.op))
            elif arity == 1:
                push(Formula(tok.op, (pop(),)))
            else:
                left = pop()
                push(Formula(tok.op, (left, pop())))
    except IndexError:
        raise diagnose([(t.op, t.column, t.text) for t in tokens], text) from None
    if len(stack) != 1:
        raise diagnose([(t.op, t.column, t.text) for t in tokens], text)
    return stack[0]


def diagnose(tokens: list[tuple[str, int, str]], text: str) -> ParseError:
    """Why (op, column, spelling) tokens are not exactly one prefix formula, scanning left to
    right: a token after a complete formula, or operands missing at the end."""
    if not tokens:
        return ParseError(text, len(text), "empty input")
    need = 1
    for op, column, spelling in tokens:
        if need == 0:
            return ParseError(
                text, column, f"syntax error, unexpected {spelling!r} after a complete formula", len(spelling)
            )
        need += ARITY[op] - 1
    _, column, spelling = tokens[-1]
    missing = "one operand" if need == 1 else f"{need} operands"
    return ParseError(text, column + len(spelling), f"syntax error, unexpected end of formula: {missing} missing")
