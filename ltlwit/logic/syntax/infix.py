"""Spot's infix LTL syntax: its tokens (`infix_lex`) read by the one operator-precedence engine
of the infix syntaxes (`precedence`), with the levels of the operator table (`operators`).

Precedence, lowest first: `-> <->` (right-assoc); `|`; `xor`; `&` (and Wring's `*`);
`U R W M` and the past `S T` (right-assoc, so `a S b U c` is `a S (b U c)`); `F G` and the
past `O H`; `X`, the weak next `wX` and the past `Y Z`; `!`. All unary operators are prefix
and bind tighter than every binary one, so a unary operator applies as soon as its operand is
complete (`Y a & b` is `(Y a) & b`, `O a U b` is `(O a) U b`, `wX a U b` is `(wX a) U b`).
Spot's bounded operators bind as their letter does and are spelled out as they apply
(`spell_out`), so a formula never holds them: `X[2] a` is `X X a`, `F[1..2] b` is
`X(b | X b)` (strong nexts: the instant must exist), `G[1..2] c` is `wX(c & wX c)` (weak
nexts: only the instants that exist), `F[2..] a` is `X X F a`.
`&`, `|` and `xor` nest to the left (`a & b & c` is `(a & b) & c`); parentheses are kept
as structure (`a & (b & c)` stays right-nested) because formulas are never rewritten.
No recursion anywhere: 10,000 nested parentheses or `X` operators are fine.

Three readings run the engine: `_Formulas` builds the formula, `_Spans` each operand's extent
beside it (`conjunct_spans`), and the data reading (`data`) its own tree. Most texts are made of
names and the common operators only: `_plain` tokenizes them without columns (one
regular-expression call, and the tokens names have made before) and feeds the same engine,
leaving any other text, and any error with its column, to `tokenize`.
"""

from __future__ import annotations

import re
from operator import itemgetter

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import FALSE, PAST, TRUE, WEAK_NEXT, Formula, collector_paused
from ltlwit.logic.syntax.data_hints import call_hint, data_hint
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix_lex import _WORDS, _WORDS_LIMIT, Tok, _word, describe, tokenize
from ltlwit.logic.syntax.nuxmv import statement_hint
from ltlwit.logic.syntax.operators import LEVELS, UNARY_LEVEL, spellings
from ltlwit.logic.syntax.precedence import Builder, T, Token, read


def parse_spot(text: str) -> Formula:
    """Parse one formula in Spot's infix syntax (all its aliases and UTF-8 operators)."""
    return _parse(text)


def conjunct_spans(text: str) -> tuple[Formula, list[tuple[int, int]]]:
    """The formula `text` is (in Spot's infix syntax), and where its top-level conjuncts are
    written: (start, end) column ranges, `&` flattened through parentheses left to right as
    `formula.conjuncts` does (so `1` conjuncts are left out); ParseError as `parse_spot`."""
    formula, parts = written_conjuncts(text)
    return formula, [(start, end) for start, end, part in parts if part is None or part.op != "1"]


def written_conjuncts(text: str) -> tuple[Formula, list[tuple[int, int, Formula | None]]]:
    """The formula `text` is, and its top-level conjuncts as the user wrote them: (start, end,
    the conjunct's formula as read, before the conjunction's rewriting: `G[0..2] c` stays one
    conjunct, a `true` one counts), `&` flattened through parentheses left to right; the
    formulas are None for formulas over data (spans only)."""
    if data_hint(text) or ((call_hint(text) or statement_hint(text)) and _data_reading(text) is not None):
        spans: list[tuple[int, int]] = []
        formula = _data(text, spans)
        return formula, [(start, end, None) for start, end in spans]
    top = _spot_spans(text)
    formula = top[3]
    out: list[tuple[int, int, Formula | None]] = []
    stack = [top]
    while stack:
        start, end, kids, part = stack.pop()
        if kids is not None:
            stack.extend(reversed(kids))
        else:
            out.append((start, end, part))
    return formula, out


#: A parsed operand's extent for `conjunct_spans`: (start, end, the two operands of a
#: conjunction or None, the formula).
_Span = tuple[int, int, "tuple[_Span, _Span] | None", Formula]


@collector_paused()
def _parse(text: str) -> Formula:
    """The parser: `_plain` reads most texts, the full tokenizer the others, and the data
    reading those over data (or that Spot's reading rejects for a call or nuXmv's text)."""
    plain = _plain(text)
    if plain is not None:
        return plain
    if data_hint(text):  # comparisons, term operators: BLACK's and nuXmv's reading
        return _data(text)
    try:
        return _spot(text)
    except ParseError:
        if statement_hint(text):  # nuXmv's text: its reading, or its error
            return _data(text)
        # `det_3x3(a, b)`: a predicate over data, which Spot's reading rejects
        found = _data_reading(text) if call_hint(text) else None
        if found is None:
            raise
        return found


def _data(text: str, where: list | None = None) -> Formula:
    from ltlwit.logic.syntax.data import parse_data  # loaded with the first formula over data

    return parse_data(text, where)


def _data_reading(text: str) -> Formula | None:
    try:
        return _data(text)
    except ParseError:
        return None


def _spot(text: str) -> Formula:
    """Spot's reading with the full tokenizer: columns for its errors."""
    return read(text, tokenize(text), _FORMULAS)


class _SpotErrors(Builder[T]):
    """How Spot's reading words its errors, with a hint where a past operator's letter or `wX`
    stands alone (`_name_hint`)."""

    def describe(self, tok: Token) -> str:
        return describe(tok)

    def unexpected(self, text: str, tok: Token, pending: list[Token]) -> str:
        return f"syntax error, unexpected {describe(tok)}{_name_hint(tok, pending)}"

    def empty(self, text: str) -> int:
        return len(text.rstrip()) if text.strip() else 0

    def ended(self, last: Token, pending: list[Token]) -> str:
        reason = "syntax error, unexpected end of formula"
        if last[0] in ("un", "bin"):
            reason += f', missing right operand for "{describe(last)}"{_name_hint(None, pending)}'
        return reason


class _Formulas(_SpotErrors[Formula]):
    """Spot's reading: formulas built as their operators apply, bounded operators spelled out."""

    leaf = itemgetter(1)  # an atom's Formula (`Tok.value`)

    @staticmethod
    def unary(tok: Token, operand: Formula) -> Formula:
        if tok[5] is None:
            return Formula(tok[1], (operand,))
        low, high = tok[5]  # a bounded operator's
        return spell_out(tok[1], low, high, operand)

    @staticmethod
    def binary(tok: Token, left: Formula, right: Formula) -> Formula:
        return Formula(tok[1], (left, right))


@collector_paused()
def _spot_spans(text: str) -> _Span:
    """Spot's reading of `text`, each operand with its extent (`written_conjuncts`)."""
    return read(text, tokenize(text), _SPANS)


class _Spans(_SpotErrors[_Span]):
    """Spot's reading with each operand's extent (`conjunct_spans`): the parentheses belong to
    the operand they enclose."""

    @staticmethod
    def leaf(tok: Token) -> _Span:
        return (tok[2], tok[2] + tok[3], None, tok[1])

    @staticmethod
    def unary(tok: Token, operand: _Span) -> _Span:
        return (tok[2], operand[1], None, _Formulas.unary(tok, operand[3]))

    @staticmethod
    def binary(tok: Token, left: _Span, right: _Span) -> _Span:
        return (left[0], right[1], (left, right) if tok[1] == "&" else None, Formula(tok[1], (left[3], right[3])))

    def close(self, text: str, opening: Token, tok: Token, operands: list[_Span], pending: list[Token]) -> None:
        pending.pop()
        _, _, kids, formula = operands[-1]
        operands[-1] = (opening[2], tok[2] + tok[3], kids, formula)


_FORMULAS = _Formulas()
_SPANS = _Spans()


#: `_plain`'s tokens: blanks, then a letter-initial run, one of `( ) ! 1 0 & && | || -> <->`
#: as the tokenizer's `_COMMON` reads them, or something else that ends `_plain`: `|-` or `|=`
#: (PSL), any other one character but a blank. (Spot's next `()` reads as an empty block there,
#: which ends it too.)
_PLAIN = re.compile(r"[ \t\n\r]*([a-zA-Z_.][a-zA-Z0-9_.]*|\(|[)!01]|&&?|\|\||\|[-=]|\||->|<->|[^ \t\n\r])")
#: The symbols among them: their tokens, at column 0 (`_plain` has no columns).
_PLAIN_SYMBOLS: dict[str, Tok] = {
    "(": Tok("(", "(", 0, 1),
    ")": Tok(")", ")", 0, 1),
    "!": Tok("un", "!", 0, 1, UNARY_LEVEL),
    "1": Tok("atom", TRUE, 0, 1),
    "0": Tok("atom", FALSE, 0, 1),
    **{
        s: Tok("bin", op, 0, len(s), LEVELS[op])
        for s, op in spellings("spot", 2).items()
        if s in ("&", "&&", "|", "||", "->", "<->")
    },
}


#: Characters of text that `_plain_tokens` reads in one regular-expression call.
_PLAIN_CHUNK = 1 << 20


def _plain_tokens(text: str) -> list[str]:
    """`_PLAIN.findall(text)`, a megabyte at a time with `check_deadline` between: the call
    takes a tenth of a second a megabyte, and its list of tokens 15 bytes a byte of text. A
    piece ends after a blank, where no token is cut (a text without blanks: one call)."""
    if len(text) <= _PLAIN_CHUNK:
        return _PLAIN.findall(text)
    toks: list[str] = []
    start = 0
    while start < len(text):
        end = text.find(" ", start + _PLAIN_CHUNK) + 1 or len(text)
        toks += _PLAIN.findall(text, start, end)
        check_deadline()
        start = end
    return toks


def _plain(text: str) -> Formula | None:
    """The formula of a text made of names and the common operators only, or None for any
    other text or any error (then `tokenize` and the engine read it again, with columns for its
    errors): the tokens of `tokenize` at column 0, from one regular-expression call and the
    tokens that names and symbols have already made (`_WORDS`, `_PLAIN_SYMBOLS`; names split
    by `_word`'s rules), fed to the same engine. A multi-megabyte specification has a million
    tokens: read so, its parse takes a third less time."""
    toks = _plain_toks(text)
    if toks is None:
        return None
    try:
        return read(text, toks, _FORMULAS)
    except ParseError:
        return None


def _plain_toks(text: str) -> list[Tok] | None:
    """`tokenize(text)` at column 0, or None where the text holds more than names and the
    common operators."""
    runs = _plain_tokens(text)
    runs.reverse()
    pop = runs.pop
    toks: list[Tok] = []
    append = toks.append
    after_operand = False  # as `tokenize`'s: a name or `)` came last
    while runs:
        t = pop()
        tok = _PLAIN_SYMBOLS.get(t)
        if tok is None:
            if not ("a" <= t[0] <= "z" or "A" <= t[0] <= "Z" or t[0] in "_."):
                return None  # any other character: the full tokenizer's business
            known = _WORDS.get((t, after_operand))
            if known is None:
                found: list[Tok] = []
                try:
                    _word(t, 0, t, after_operand, found.append)
                except ParseError:
                    return None
                if found[0].bounds is not None:
                    return None
                known = (found[0], isinstance(found[0].value, Formula) and found[0].value.op == "ap")
                if len(_WORDS) < _WORDS_LIMIT:
                    _WORDS[(t, after_operand)] = known
            tok, after_operand = known
            if tok[3] < len(t):  # `GFa`: the rest of the run is read again, as `tokenize` does
                runs.extend(reversed(_PLAIN.findall(t[tok[3] :])))
        else:
            after_operand = t == ")"
        append(tok)
    return toks


def _name_hint(unexpected: Token | None, pending: list[Token]) -> str:
    """Where an operand was expected: a hint when a past operator's letter stands there alone
    (`S & a`) or went without its operand (`Y & a`, `H`), or `wX` did (`wX & a`, `G wX`).
    Spot has neither the past operators nor `wX` and reads these spellings as names, so a
    specification written for Spot may mean a proposition."""
    if unexpected is not None and unexpected[0] == "bin" and unexpected[1] in PAST:
        letter = unexpected[1]
    elif pending and pending[-1][0] == "un" and (pending[-1][1] in PAST or pending[-1][1] == WEAK_NEXT):
        letter = pending[-1][1]
    else:
        return ""
    return f' (a proposition named {letter} is written "{letter}")'


def spell_out(op: str, low: int, high: int | None, f: Formula) -> Formula:
    """Spot's bounded operator `op` (X, F or G) with bounds `low`..`high` (None: no upper
    bound; X's are equal) over `f`, with the plain operators: `X[n] f` is n nested `X`;
    `F[n..m] f` is `X^n (f | X(f | ... X f))` with m - n + 1 copies of f, strong nexts as f
    must hold at an instant that exists; `G[n..m] f` is `wX^n (f & wX(f & ... wX f))`, weak
    nexts as a finite trace may end before m; `F[n..] f` is `X^n F f`, `G[n..] f` `wX^n G f`.
    (On infinite traces `wX` is `X`: the same formulas as Spot's.)"""
    step, join = ("X", "|") if op != "G" else (WEAK_NEXT, "&")
    body = f if high is not None else Formula(op, (f,))
    for _ in range(high - low if high is not None else 0):
        body = Formula(join, (f, Formula(step, (body,))))
    for _ in range(low):
        body = Formula(step, (body,))
    return body
