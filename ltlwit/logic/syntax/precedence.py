"""The one operator-precedence engine of the infix syntaxes: Spot's reading (`infix`) and the
reading of formulas over data (`data`) run the same shunting loop over their own tokens, a
`Builder` saying how to build what they read and how to report what they do not.

A token is a tuple whose first five fields are (kind, value, column, width, level), as
`infix_lex.Tok`'s: the engine knows the kinds `atom` (an operand), `un` (a prefix operator),
`bin` (a binary operator), `(` and `)`; any other kind is the reading's (`Builder.other`: the
data reading's calls, commas and `case ... esac`). Levels come from the operator table
(`operators`): an operator waiting on the stack is applied once an operator that binds less
(or as much, left-associative) follows it, so a unary operator of a level above every binary
one (Spot's) applies as soon as its operand is complete, and one of a lower level (the data
reading's, below its comparisons) takes a whole comparison. Openers (`(`, a call, a case)
have level 0, below every operator, so the stack is reduced down to one by a level test alone.

Explicit stacks, no recursion: 10,000 nested parentheses and the 1,600-deep `X` chains of
BLACK's suite parse.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Sequence, TypeVar

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.operators import RIGHT

#: What a reading builds: formulas, formulas with their spans, an untyped tree.
T = TypeVar("T")
#: A token: a tuple whose first five fields are (kind, value, column, width, level).
Token = tuple[Any, ...]


class Builder(Generic[T]):
    """How one reading builds its operands from tokens and words its errors. The engine calls
    `leaf`, `unary` and `binary` on every operand and operator: plain functions (static
    methods, or `itemgetter`), bound once per text."""

    #: The operand an atom's token is.
    leaf: Callable[[Token], T]
    #: A unary operator's token applied to its operand.
    unary: Callable[[Token, T], T]
    #: A binary operator's token applied to its operands.
    binary: Callable[[Token, T, T], T]

    def close(self, text: str, opening: Token, tok: Token, operands: list[T], pending: list[Token]) -> None:
        """The closing parenthesis `tok` of the opener `opening` (still on `pending`), the
        operators since it applied: pop the opener, leave its operand on `operands`."""
        pending.pop()

    def describe(self, tok: Token) -> str:
        """A token's name, for `syntax error, unexpected ...`."""
        raise NotImplementedError

    def unexpected(self, text: str, tok: Token, pending: list[Token]) -> str:
        """Why `tok` may not stand where an operand is expected."""
        return f"syntax error, unexpected {self.describe(tok)}"

    def other(
        self, text: str, toks: Sequence[Token], k: int, expect: bool, operands: list[T], pending: list[Token]
    ) -> bool:
        """A token of a kind of the reading's own at `k`, where an operand is expected or not;
        whether an operand is expected after it. The engine's kinds have no other meaning."""
        tok = toks[k]
        if expect:
            raise ParseError(text, tok[2], self.unexpected(text, tok, pending), tok[3])
        raise ParseError(text, tok[2], f"syntax error, unexpected {self.describe(tok)}", tok[3])

    def empty(self, text: str) -> int:
        """Where a text without tokens is reported empty."""
        return 0

    def ended(self, last: Token, pending: list[Token]) -> str:
        """Why the text may not end where an operand is expected, after `last`."""
        return "syntax error, unexpected end of formula"

    def unclosed(self, opening: Token) -> str:
        """Why the text may not end with `opening` open."""
        return "missing closing parenthesis"


def read(text: str, toks: Sequence[Token], builder: Builder[T]) -> T:
    """The operand that the tokens `toks` of `text` make: the shunting loop, an operand
    stack and a stack of pending operators and openers; ParseError where they make none."""
    if not toks:
        raise ParseError(text, builder.empty(text), "empty input")
    leaf, unary, binary = builder.leaf, builder.unary, builder.binary
    operands: list[T] = []
    pending: list[Token] = []
    push, pop = pending.append, pending.pop
    expect = True
    for k, tok in enumerate(toks):
        if k & 4095 == 4095:
            check_deadline()
        kind = tok[0]
        if expect:
            if kind == "atom":
                operands.append(leaf(tok))
                expect = False
            elif kind == "un" or kind == "(":
                push(tok)
            elif kind == ")" and pending and pending[-1][0] == "(":
                opening = pending[-1]
                raise ParseError(text, opening[2], "unexpected empty block", tok[2] + 1 - opening[2])
            else:
                expect = builder.other(text, toks, k, True, operands, pending)
        elif kind == "bin":
            level = tok[4]
            while pending:
                top = pending[-1]
                if top[4] < level or (top[4] == level and level in RIGHT):
                    break
                pop()
                if top[0] == "un":
                    operands[-1] = unary(top, operands[-1])
                else:
                    right = operands.pop()
                    operands[-1] = binary(top, operands[-1], right)
            push(tok)
            expect = True
        elif kind == ")":
            reduce(operands, pending, builder)
            if not pending:
                raise ParseError(text, tok[2], f"syntax error, unexpected {builder.describe(tok)}")
            builder.close(text, pending[-1], tok, operands, pending)
        else:
            expect = builder.other(text, toks, k, False, operands, pending)
    end = len(text.rstrip())
    if expect:
        raise ParseError(text, end, builder.ended(toks[-1], pending))
    reduce(operands, pending, builder)
    if pending:
        opening = pending[-1]
        raise ParseError(text, opening[2], builder.unclosed(opening), end - opening[2])
    return operands[0]


def reduce(operands: list[T], pending: list[Token], builder: Builder[T]) -> None:
    """Apply the pending operators down to the innermost opener (a `)`, the end of the text,
    the data reading's comma, `:`, `;` and `esac`)."""
    unary, binary = builder.unary, builder.binary
    while pending and pending[-1][4] > 0.0:
        top = pending.pop()
        if top[0] == "un":
            operands[-1] = unary(top, operands[-1])
        else:
            right = operands.pop()
            operands[-1] = binary(top, operands[-1], right)
