"""LBT prefix syntax (LBT, ltl2dstar, Spot's `--lbt`): `t f ! & | ^ i e X F G U V M W`, and
the past operators in BLACK's letters, `Y Z O H S T` (yesterday, weak yesterday, once,
historically, since, triggered), and BLACK's weak next `wX`, which LBT proper lacks (`wX` is
a word: `wX p0`; `wXp0` is a name, as `Xp0` is).

As in Spot's lexer, one-character operators need no surrounding spaces, names are
identifiers or double-quoted strings, and `R` is accepted as a synonym of `V`. The printer
follows Spot: names `p0`, `p1`, ... stay bare, every other name is quoted. The spellings are
the operator table's (`operators`).
"""

from __future__ import annotations

import re

from ltlwit.logic.formula import Formula, collector_paused
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import quote, unquote_at
from ltlwit.logic.syntax.operators import FROM_LBT, TO_LBT
from ltlwit.logic.syntax.prefix import Token, build

_LEX = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(")|([a-zA-Z._][a-zA-Z0-9._]*)|(\S))')
_PNUM = re.compile(r"p[0-9]+\Z")


@collector_paused()
def parse_lbt(text: str, strict: bool = False) -> Formula:
    """`strict`: bare names must be `p0`, `p1`, ... as in LBT proper (auto-detection uses it,
    so that `& t a`, a prefix formula over the names `t` and `a`, is not read as `1 & a`)."""
    tokens: list[Token] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        m = _LEX.match(text, pos)
        # a non-blank is left, and one of the groups takes it
        assert m is not None and m.lastindex is not None
        quoted, unclosed, word, char = m.groups()
        column = m.start(m.lastindex)
        if quoted is not None:
            name = unquote_at(text, column)
            assert name is not None  # the pattern took a closed string
            tokens.append(Token("ap", name[0], column, quoted))
        elif unclosed is not None:
            raise ParseError(text, column, "unclosed string: missing closing double quote")
        elif word is not None:
            op = FROM_LBT.get(word)
            if op is None and strict and not _PNUM.match(word):
                raise ParseError(text, column, f"LBT names are p0, p1, ... or double-quoted, not {word!r}")
            tokens.append(Token(op, None, column, word) if op else Token("ap", word, column, word))
        else:
            op = FROM_LBT.get(char)
            if op is None:
                raise ParseError(text, column, f"syntax error, unexpected {char!r} in LBT")
            tokens.append(Token(op, None, column, char))
        pos = m.end()
    return build(tokens, text)


def print_lbt(formula: Formula) -> str:
    return " ".join(
        (n.name if _PNUM.match(n.name) else quote(n.name)) if n.name is not None else TO_LBT[n.op]
        for n in formula.walk()
    )
