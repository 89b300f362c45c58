"""Auto-detection of a formula's syntax (`syntax="auto"`).

The rule, in order (the first reading that parses wins):

1. No whitespace inside (after trimming the ends): Spot infix and **network Polish** (`&Uab!Xc`).
   Most strings are only one of them (`G(a->Fb)`, `a&b` are infix, `&ab`, `!U!ab` Polish) or
   read the same in both (`GFa`, `Xa`, `a`). A string that is both, with different meanings,
   is read as Spot reads it, as a Spot user means it (`Req` and `G!X1` are about the
   propositions `Req` and `X1`, not `e R q` and `G!X 1`) -- unless the same source (file,
   stream) has so far had Polish-only lines and no Spot-only ones, as in a DeepLTL data set,
   where about 4% of the lines are such strings (`UX0&cXe`). `SyntaxGuess` keeps that score
   per source; `--syntax` settles any doubt. Then, only if the string holds a quoted name,
   LBT (`&"a""b"`; without quotes LBT would read any word, even `XXX`, as one name).
2. Otherwise: **Spot infix** first (users mostly type infix; a prefix formula with a binary
   operator can never be valid infix, and unary chains such as `G F a` read the same in all
   syntaxes), then the prefix syntaxes: spaced Polish (`& U req b ! X c`, operators `1 0 ->
   <-> xor R`) and LBT proper (`& U "req" "b" ! X "c"`, `i p0 t`: operators `t f i e ^ V`,
   names `p0`, `p1`, ... or quoted). When both read the tokens and disagree, the spelling
   decides: any of `xor -> <-> 1 0` means Polish, otherwise LBT (`t`, `f` are its constants).
3. When nothing parses, the error reported is the infix parser's.

The past operators need nothing of their own: infix, spaced Polish and LBT spell them alike
(`G(grant -> O req)`, `G -> grant O req`, `G i "grant" O "req"`), and network Polish, which
has none, reads their letters as names, so a lone `Y` or `S` (no infix formula: an operator
without operands) is the proposition of that name.

Nor does BLACK's weak next `wX`: spaced, it is an infix formula (`wX a`, `G(a -> wX b)`) or
a prefix one (`G -> a wX b`); unspaced, network Polish reads `wX` as the name `w` and the
operator `X`, which mostly leaves no complete formula where infix reads `wX` as the operator
(`wX(a)`, `!wX!a`, `wXFa`, `G(a->wX(b))`). The rare string that reads both ways follows the
rule above like any other: `Uw&wX!a` is infix `Uw & wX !a`, unless its source has so far been
network Polish, where it is `w U (w & X!a)` over the name `w`.
"""

from __future__ import annotations

from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix import parse_spot
from ltlwit.logic.syntax.lbt import parse_lbt
from ltlwit.logic.syntax.polish import parse_network, parse_spaced


class SyntaxGuess:
    """Auto-detection for the lines of one source, remembering which syntax its unambiguous
    lines were in (see the module rule); `parse_auto` is a fresh guess per string."""

    def __init__(self, polish_source: bool = False, steps: bool = False) -> None:
        """`polish_source`: the source is known to be DeepLTL's (a trace in its `;{...}` framing).
        `steps`: the strings are trace steps, which are propositional, so of two readings the
        propositional one wins (`{Req}`: the proposition `Req`, not `e R q`)."""
        self.polish_only = polish_source  # some line read as network Polish and not as infix
        self.spot_only = False  # some line read as infix and not as network Polish
        self.steps = steps
        #: What the last string read told about the source: "polish" (network Polish and not
        #: infix), "spot" (infix and not network Polish), "either" (both, with different
        #: meanings: read as `reads_polish` said), or None. A reader that splits a source among
        #: processes uses it to replay the guess in input order (`ltlwit.pipeline.parallel`).
        self.last: str | None = None

    @property
    def reads_polish(self) -> bool:
        """Whether a string that is both Spot and network Polish is read as Polish now."""
        return self.polish_only and not self.spot_only

    def parse(self, text: str) -> Formula:
        self.last = None
        body = text.strip()
        if body and not any(ch.isspace() for ch in body):
            return self._unspaced(text, body)
        try:
            formula = parse_spot(text)
        except ParseError as infix_error:
            found = parse_prefix(text)
            if found is None:
                raise infix_error from None
            return found
        self.spot_only = True
        self.last = "spot"
        return formula

    def _unspaced(self, text: str, body: str) -> Formula:
        formula = self._unspaced_reading(text, body)
        if self.steps and formula.temporal:  # a step `Gb` printed in spaced Polish: one name
            try:
                spaced = parse_spaced(text)
            except ParseError:
                return formula
            return formula if spaced.temporal else spaced
        return formula

    def _unspaced_reading(self, text: str, body: str) -> Formula:
        polish = infix = None
        try:
            polish = parse_network(body)
        except ParseError:
            pass
        try:
            infix = parse_spot(text)
        except ParseError as infix_error:
            if polish is not None:
                self.polish_only = True
                self.last = "polish"
                return polish
            if '"' not in body:
                raise
            try:
                return parse_lbt(text)
            except ParseError:
                raise infix_error from None
        if polish is None:
            self.spot_only = True
            self.last = "spot"
            return infix
        if self.steps and polish.temporal != infix.temporal:
            return infix if polish.temporal else polish
        if polish is not infix:
            self.last = "either"
        return polish if self.reads_polish else infix


def parse_auto(text: str) -> Formula:
    return SyntaxGuess().parse(text)


def parse_prefix(text: str) -> Formula | None:
    """The prefix reading of a spaced string (see the module rule), or None."""
    readings = []
    for parser in (parse_spaced, lambda t: parse_lbt(t, strict=True)):
        try:
            readings.append(parser(text))
        except ParseError:
            pass
    if len(readings) == 2 and readings[0] is not readings[1]:
        return readings[0] if _POLISH_WORDS.intersection(text.split()) else readings[1]
    return readings[0] if readings else None


_POLISH_WORDS = frozenset({"xor", "->", "<->", "1", "0"})
