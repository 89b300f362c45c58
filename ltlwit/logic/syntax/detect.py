"""Auto-detection of a formula's syntax (`syntax="auto"`).

The rule, in order (the first reading that parses wins):

1. No whitespace inside (after trimming the ends): **network Polish** (`&Uab!Xc`, `Xa`,
   `a`), then Spot infix (`GFa`, `a&b`, `aUb`), then, only if it holds a quoted name, LBT
   (`&"a""b"`; without quotes LBT would read any word, even `XXX`, as one name).
   Strings that are both differ only where Spot reads an operator-looking word as a name:
   `Uab`, `xorab`, `F0`, `X1` are Polish here (`a U b`, `F 0`); force `--syntax spot`
   for Spot's reading (`Uab`, `F0` as names).
2. Otherwise: **Spot infix** first (users mostly type infix; a prefix formula with a binary
   operator can never be valid infix, and unary chains such as `G F a` read the same in all
   syntaxes), then the prefix syntaxes: spaced Polish (`& U req b ! X c`, operators `1 0 ->
   <-> xor R`) and LBT (`& U "req" "b" ! X "c"`, operators `t f i e ^ V`). When both read the
   tokens and disagree (one reads a word as an operator that the other takes for a name),
   the spelling decides: any of `xor -> <-> 1 0` means Polish (as an LBT name `xor` would
   be odd, while `e` is an ordinary Polish AP), otherwise LBT (`t`, `f` are its constants).
3. When nothing parses, the error reported is the infix parser's.
"""

from __future__ import annotations

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix import parse_spot
from ltlwit.logic.syntax.lbt import parse_lbt
from ltlwit.logic.syntax.polish import parse_network, parse_spaced


def parse_auto(text: str) -> Formula:
    body = text.strip()
    if body and not any(ch.isspace() for ch in body):
        try:
            return parse_network(body)
        except ParseError:
            pass
        try:
            return parse_spot(text)
        except ParseError as infix_error:
            if '"' not in body:
                raise
            try:
                return parse_lbt(text)
            except ParseError:
                raise infix_error from None
    try:
        return parse_spot(text)
    except ParseError as infix_error:
        found = parse_prefix(text)
        if found is None:
            raise infix_error from None
        return found


def parse_prefix(text: str) -> Formula | None:
    """The prefix reading of a spaced string (see the module rule), or None."""
    readings = []
    for parser in (parse_spaced, parse_lbt):
        try:
            readings.append(parser(text))
        except ParseError:
            pass
    if len(readings) == 2 and readings[0] is not readings[1]:
        return readings[0] if _POLISH_WORDS.intersection(text.split()) else readings[1]
    return readings[0] if readings else None


_POLISH_WORDS = frozenset({"xor", "->", "<->", "1", "0"})
