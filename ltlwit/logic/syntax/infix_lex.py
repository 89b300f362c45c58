"""Tokenizer of Spot's infix syntax, faithful to Spot's flex scanner where names and
operators meet (flex reads the longest match; on a tie the earlier rule wins), extended with
the past-time operators in BLACK's and nuXmv's letters (Spot has none): `Y` yesterday and `Z`
weak yesterday (read like `X`), `O` once and `H` historically (like `F`, `G`), `S` since and
`T` triggered (binary, like `U`, `R`):

* Expecting an operand, a name may not start with `F`, `G`, `X`, `Y`, `Z`, `O` or `H` unless
  a digit follows, so `GFa` is `G F a`, `Once` is `O nce` and `GOa` is `G O a`, while `F1`,
  `X0y` and `H1` are names; any other identifier, however long, is one name: `aUb` is a
  name, `Ua` and `Sa` too, `U` or `S` alone is the operator (keywords win ties, as do
  `true`/`false` in any case and `xor`).
* After an operand (a name or `)`), no name may start with `M R U V W S T` nor with one of
  the unary letters, so `a Ub` reads as `a U b` and `a Sb` as `a S b`.
* `()` is the next operator, `=0` and a combining overline (`a̅`) negate the name before.

Weak next, BLACK's `wX` (Spot has none: in its LTLf reading plain `X` is the weak next and
`X[!]` the strong one), is read with the precedence of `X`. It is the one operator whose
spelling starts with a lowercase letter, so a run of identifier characters starting with `wX`
is the operator only when the run is exactly `wX` (`wX a`, `wX(a U b)`, `wX!a`) or goes on
with a unary letter, which is then read as after `X` (`wXFa` is `wX F a` as `XFa` is `X F a`,
`wXF1` is `wX F1`); any other such run is one name (`wXa`, `wX1`, `wX_b`, `wXyz`, `wXwXa`),
and `"wX"` is the proposition of that name. After an operand a `wX` run read so is the
operator too, so that `a wX b` is reported as an unexpected weak next operator (as `a X b`
is), never read as names. Spot's strong next `X[!]` (spaces allowed before and inside the
bracket, as Spot's scanner skips them: `X [ !]`) is `X`, the strong next of the finite-trace
semantics; `X[]` is Spin's `X G`, as in Spot.

Spot's bounded operators are one token each, carrying their bounds (`Tok.bounds`), which the
parser spells out with the plain operators (there is no bounded node): `X[n]`, and `F[n..m]`,
`G[n..m]` with `..` or `:` between the bounds and the upper one optional (`F[2..]`), blanks
allowed as for `X[!]`. A bracket after `Y Z O H wX` (which Spot lacks) is unsupported; a
malformed, reversed (`F[4..2]`) or huge (over `MAX_BOUND`) bracket is a syntax error marked
under the bracket. PSL/SERE syntax (`{...}`, `;`, `[*]`, `##1`, `first_match`) is not
supported and reported as such, with its column.

The operators' spellings, levels and names come from the operator table (`operators`); the
parser is the infix syntaxes' engine (`precedence`), which reads `Tok`s.

`split_names` tells which identifiers of a text Spot's rules split into operators and a name
(`Grant` is `G rant`), so that callers can warn where a user may have meant one name.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, Formula, ap
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import UNARY_LETTERS, unquote_at
from ltlwit.logic.syntax.operators import LEVELS, STAR_LEVEL, UNARY_LEVEL, spellings
from ltlwit.logic.syntax.operators import NAMES as OPERATOR_NAMES
from ltlwit.logic.syntax.precedence import Token


class Tok(NamedTuple):
    kind: str  # "atom", "un", "bin", "(", ")"
    #: an atom's Formula (kind "atom"), an operator's Formula op (every other kind): the parsers
    #: tell them apart by `kind`, which costs their hot loops nothing, not by an isinstance
    value: Formula | str
    column: int
    width: int
    #: binding strength of an operator (higher binds tighter): a binary operator's level, the
    #: unary operators' `UNARY_LEVEL`; 0 for atoms and parentheses (`precedence`)
    level: float = 0.0
    #: A bounded unary operator's (lower, upper) bound: `X[3]` (3, 3), `F[2..4]` (2, 4),
    #: `G[2..]` (2, None); None for every other token.
    bounds: tuple[int, int | None] | None = None


#: Spot's symbols: the operators' from the table (`operators`), the parentheses, Wring's `*`
#: conjunction (of its own level), the name suffixes and the PSL syntax that is not supported.
_SYMBOLS: dict[str, tuple[str, str]] = {"(": ("(", "("), ")": (")", ")")}
for _kind, _arity in (("un", 1), ("bin", 2)):
    _SYMBOLS.update((_s, (_kind, _op)) for _s, _op in spellings("spot", _arity).items() if not _s.isalpha())
for _op, _spellings in {
    ("bin", "*"): "*",
    ("neg", "!"): "=0 \u0305 \u0304",
    ("pos", ""): "=1",
    ("unsupported", "PSL/SERE syntax"): "{ } ; : [*] [* [+] [:*] [:* [:+] [= [-> ## |-> |=> []-> []=> <>-> <>=> ↦ ⤇",
}.items():
    for _s in _spellings.split():
        _SYMBOLS[_s] = _op
#: Longest symbol starting with each character, so the longest-match loop starts there.
_LONGEST: dict[str, int] = {}
for _s in _SYMBOLS:
    _LONGEST[_s[0]] = max(_LONGEST.get(_s[0], 0), len(_s))

_SPACE = re.compile(r"[ \t\n\r]+")
_WORD = re.compile(r"[a-zA-Z0-9_.]+")
_BRACKET = re.compile(r"[ \t\n\r]*\[(\])?")
#: Spot's strong next `X[!]`: flex skips blanks before `[` and inside the bracket, `!]` is one token.
_STRONG_NEXT = re.compile(r"[ \t\n\r]*\[[ \t\n\r]*!\]")
#: The bracket of a bounded operator, from its `[`: a number, then `..` or `:` and an optional
#: second number (blanks anywhere between, as flex skips them).
_BOUNDS = re.compile(r"\[[ \t\n\r]*([0-9]+)[ \t\n\r]*(?:(\.\.|:)[ \t\n\r]*([0-9]*)[ \t\n\r]*)?\]")
#: The largest bound a bounded operator may have: `F[0..m]` copies its operand m + 1 times.
MAX_BOUND = 1000
#: The operators that take a bracket of bounds, and what it holds (for the error message).
_BOUNDED = {"X": "X[n] or X[!]", "F": "F[n..m], F[n:m] or F[n..]", "G": "G[n..m], G[n:m] or G[n..]"}
#: The binary operators spelled as words, read as keywords.
_KEYWORDS = {s: op for s, op in spellings("spot", 2).items() if s.isalpha()}
_UNSUPPORTED_WORDS = {"first_match": "PSL first_match"}
#: Letters that are an operator keyword on their own.
_KEYWORD_LETTERS = UNARY_LETTERS + "".join(s for s in _KEYWORDS if len(s) == 1)
_NOT_AFTER_OPERAND = frozenset(_KEYWORD_LETTERS)

#: What a syntax error calls each token that is no atom (`describe`).
NAMES = {**OPERATOR_NAMES, "(": "opening parenthesis", ")": "closing parenthesis"}


def describe(tok: Token) -> str:
    """Bison-style name of a token (a `Tok`), for `syntax error, unexpected ...`."""
    kind, f = tok[0], tok[1]
    if isinstance(f, Formula):  # an atom
        if f is TRUE or f is FALSE:
            return "constant " + ("true" if f is TRUE else "false")
        return "atomic proposition"
    return NAMES[kind if kind in "()" else f]


def _unsupported(text: str, column: int, width: int, what: str) -> ParseError:
    return ParseError(text, column, f"unsupported: {what} ({text[column : column + width]!r})", width)


#: What a letter-initial run starts, by (run, after an operand): identifiers and operator
#: letters recur, and `_word` decides each one by flex's rules in a dozen string operations (a
#: multi-megabyte formula has a million of them). Only tokens within the run are kept: what
#: follows a unary operator that is the whole run (a bracket: `X[!]`, `F[2..4]`) is looked at
#: again each time. Bounded, as AP names come from the input. Held: the token (at column 0, as
#: `infix._plain` reads it), and whether it is a name.
_WORDS: dict[tuple[str, bool], tuple[Tok, bool]] = {}
_WORDS_LIMIT = 100_000


#: Blanks, then one of the common tokens, in one regular-expression call (a multi-megabyte
#: specification has a million tokens, and a call per character class cost more than the rest
#: of the parse): group 1 a letter-initial run, group 2 `(` (not Spot's `()` next), `)` or `!`,
#: group 3 the constant `1` or `0`, group 4 `& && | || -> <->` (not where a longer symbol
#: starts: `|->` is PSL). Anything else (comments, quotes, other symbols) is read after the blanks.
_COMMON = re.compile(r"[ \t\n\r]*(?:([a-zA-Z_.][a-zA-Z0-9_.]*)|(\((?!\))|[)!])|([01])|(&&?|\|\||\|(?![-=])|->|<->))?")
_new = tuple.__new__  # a Tok without NamedTuple's Python-level constructor: 0.2 µs, not 1.3


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    append = toks.append
    common = _COMMON.match
    i, n = 0, len(text)
    after_operand = False  # Spot's `not_prop` start condition
    last_bare_ap = False  # a postfix negation may follow only a name
    while True:
        if not len(toks) & 4095:
            check_deadline()
        m: re.Match[str] = common(text, i)  # type: ignore[assignment]  # _COMMON's parts are optional: it matches
        group = m.lastindex
        if group == 1:
            word = m.group(1)
            i = m.start(1)
            known = _WORDS.get((word, after_operand))
            if known is not None and known[0][0] == "un" and known[0][3] == len(word) and _BRACKET.match(text, m.end()):
                known = None  # `X[!]`, `F[2..4]`, `G []`: the bracket decides
            if known is None:
                i = _word(text, i, word, after_operand, append)
                last = toks[-1]
                name = isinstance(last.value, Formula) and last.value.op == "ap"  # a name's atom
                if last.bounds is None and last.width <= len(word) and len(_WORDS) < _WORDS_LIMIT:
                    _WORDS[(word, after_operand)] = (Tok(last.kind, last.value, 0, last.width, last.level), name)
                after_operand = last_bare_ap = name
            else:
                tok, after_operand = known
                append(_new(Tok, (tok[0], tok[1], i, tok[3], tok[4], None)))
                i += tok[3]
                last_bare_ap = after_operand
            continue
        if group == 2:
            c = m.group(2)
            append(
                _new(Tok, ("un", "!", m.start(2), 1, UNARY_LEVEL, None))
                if c == "!"
                else _new(Tok, (c, c, m.start(2), 1, 0.0, None))
            )
            after_operand = c == ")"
            last_bare_ap = False
            i = m.end()
            continue
        if group == 3:
            append(_new(Tok, ("atom", TRUE if m.group(3) == "1" else FALSE, m.start(3), 1, 0.0, None)))
            after_operand = last_bare_ap = False
            i = m.end()
            continue
        if group == 4:
            op = _SYMBOLS[m.group(4)][1]
            append(_new(Tok, ("bin", op, m.start(4), m.end() - m.start(4), LEVELS[op], None)))
            after_operand = last_bare_ap = False
            i = m.end()
            continue
        i = m.end()
        if i >= n:
            return toks
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if c == '"':
            got = unquote_at(text, i)
            if got is None:
                raise ParseError(text, i, "unclosed string", n - i)
            if not got[0]:
                raise ParseError(text, i, "empty atomic proposition name", 2)
            append(Tok("atom", ap(got[0]), i, got[1] - i))
            i = got[1]
            after_operand = last_bare_ap = True
            continue
        for size in range(min(_LONGEST.get(c, 1), n - i), 0, -1):
            kind_op = _SYMBOLS.get(text[i : i + size])
            if kind_op is not None:
                break
        else:
            raise ParseError(text, i, f"syntax error, unexpected character {c!r}")
        kind, op = kind_op
        if kind == "unsupported":
            raise _unsupported(text, i, size, op)
        if kind == "neg" or kind == "pos":
            if not last_bare_ap:
                raise ParseError(
                    text,
                    i,
                    "syntax error, unexpected "
                    + ("negative" if kind == "neg" else "positive")
                    + " suffix (it may only follow an atomic proposition)",
                    size,
                )
            if kind == "neg":
                prev = toks[-1]
                assert isinstance(prev.value, Formula)  # a name's atom came last (`last_bare_ap`)
                toks[-1] = Tok("atom", Formula("!", (prev.value,)), prev.column, i + size - prev.column)
            last_bare_ap = False
            i += size
            continue
        if kind == "bin":
            level = STAR_LEVEL if op == "*" else LEVELS[op]
            append(Tok("bin", "&" if op == "*" else op, i, size, level))
        else:
            append(Tok(kind, op, i, size, UNARY_LEVEL if kind == "un" else 0.0))
        after_operand = kind == ")"
        last_bare_ap = False
        i += size


def _word(text: str, i: int, word: str, after_operand: bool, append) -> int:
    """Emit the token a letter-initial run starts, by flex's longest-match rules; return
    the index after it."""
    c = word[0]
    if c == "w" and word[1:2] == "X" and (len(word) == 2 or word[2] in UNARY_LETTERS):
        return _unary(text, i, WEAK_NEXT, append)
    low = word[:5].lower()
    const = 4 if low[:4] == "true" else 5 if low == "false" else 0
    if word[:11] == "first_match":
        keyword = 11
    elif word[:3] == "xor":
        keyword = 3
    else:
        keyword = 1 if c in _KEYWORD_LETTERS else 0
    if not after_operand:
        if c in UNARY_LETTERS:
            name = len(word) if len(word) > 1 and word[1].isdigit() else 0
        else:
            name = len(word)
    elif c in _NOT_AFTER_OPERAND:
        name = 0
    else:
        name = len(word) if len(word) > 1 and word[1] not in UNARY_LETTERS else 1
    best = max(const, keyword, name)
    if best == const:
        append(Tok("atom", TRUE if const == 4 else FALSE, i, const))
    elif best == keyword:
        spelled = word[:keyword]
        if spelled in _UNSUPPORTED_WORDS:
            raise _unsupported(text, i, keyword, _UNSUPPORTED_WORDS[spelled])
        if spelled in UNARY_LETTERS:
            return _unary(text, i, spelled, append)
        else:
            op = _KEYWORDS[spelled]
            append(Tok("bin", op, i, keyword, LEVELS[op]))
    else:
        append(Tok("atom", ap(word[:name]), i, name))
    return i + best


def _unary(text: str, i: int, op: str, append) -> int:
    """Emit the unary operator `op` spelled at i (a letter, or `wX`), with what a bracket
    after it means: `X[!]` is `X` (Spot's strong next), `[]` is left to be read as `G`, any
    other bracket is a bounded operator (`_bounded`). Return the index after it."""
    end = i + len(op)
    bracket = _BRACKET.match(text, end)
    if bracket and not bracket.group(1):
        strong = _STRONG_NEXT.match(text, end) if op == "X" else None
        if strong is None:
            if op not in _BOUNDED:
                raise _unsupported(text, i, bracket.end() - i, f"bounded operator {op}[..]")
            return _bounded(text, i, op, bracket.end() - 1, append)
        end = strong.end()
    append(Tok("un", op, i, end - i, UNARY_LEVEL))
    return end


def _bounded(text: str, i: int, op: str, start: int, append) -> int:
    """Emit Spot's bounded operator `op` spelled at i, its bracket opening at `start`; errors
    are marked under the bracket. Return the index after it."""
    low, high, end = read_bounds(text, start, _BOUNDS.match(text, start), op, op, _BOUNDED[op])
    append(Tok("un", op, i, end - i, UNARY_LEVEL, (low, high)))
    return end


def read_bounds(
    text: str, start: int, found: re.Match | None, word: str, op: str, expected: str
) -> tuple[int, int | None, int]:
    """The bounds (low, high; None: none above) of the bounded operator `word` (`op`) whose
    bracket opens at `start`, `found` its match (None where malformed), and the index after the
    bracket; errors are marked under the bracket. Shared by Spot's reading and the data
    formulas' (nuXmv's `F[a,b]`)."""
    close = text.find("]", start)
    width = (close + 1 if close >= 0 else len(text)) - start
    if found is None or (op == "X") != (found.group(2) is None):
        raise ParseError(text, start, f"syntax error, malformed bounded operator: expected {expected}", width)
    check_bounds(text, start, [n for n in (found.group(1), found.group(3)) if n], word, width)
    low = int(found.group(1))
    high = low if op == "X" else int(found.group(3)) if found.group(3) else None
    if high is not None and high < low:
        raise ParseError(
            text, start, f"reversed range in {word}[{low}..{high}]: the upper bound is below the lower one", width
        )
    return low, high, found.end()


def check_bounds(text: str, start: int, numbers: list[str], word: str, width: int) -> None:
    """ParseError under the bracket at `start` where a bound (digits) is over `MAX_BOUND`."""
    big = next((n for n in numbers if len(n.lstrip("0")) > len(str(MAX_BOUND)) or int(n) > MAX_BOUND), None)
    if big is not None:
        raise ParseError(text, start, f"bound {shortened(big)} too large in {word}[..] (at most {MAX_BOUND})", width)


def shortened(digits: str) -> str:
    """A numeral as a message quotes it: a long one by its first digits and its length (a
    message of 5,000 digits is no message)."""
    return digits if len(digits) <= 24 else f"{digits[:12]}... ({len(digits):,} digits)"


#: The longest numeral read, in characters: Python converts text of at most 4,300 digits to a
#: number (a longer one, CPython says, costs quadratic time), and no requirement needs more.
MAX_NUMERAL = 4000


def numeral_too_long(numeral: str) -> str | None:
    """Why a numeral (of a formula, a log's cell) is not read, or None."""
    if len(numeral) <= MAX_NUMERAL:
        return None
    return f"numeral {shortened(numeral)} too long (at most {MAX_NUMERAL:,} characters)"


def _skip_comment(text: str, i: int) -> int:
    """Skip a (nestable) /* comment */ starting at i, as Spot does."""
    depth, j = 0, i
    while j < len(text):
        if text.startswith("/*", j):
            depth += 1
            j += 2
        elif text.startswith("*/", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        else:
            j += 1
    raise ParseError(text, i, "unclosed comment", 2)


#: Where `split_names` may find something: an identifier starting with an operator letter (or
#: `wX` and one), more unary letters, then two letters. Most texts have none (Spot's `GFa` has
#: one letter after its operators) and are not tokenized again.
_MAY_SPLIT = re.compile(r"(?<![a-zA-Z0-9_.])(?:wX)?[" + _KEYWORD_LETTERS + "][" + UNARY_LETTERS + r"]*+[a-zA-Z]{2}")
#: A name left after the operators that is as likely a word's tail as a proposition.
_WORDLIKE = re.compile(r"[a-zA-Z]{2}")


def split_names(text: str) -> list[tuple[str, str]]:
    """The identifiers of an infix `text` that Spot's rules read as operators before a name,
    where a user may have meant one name: (the identifier as written, its reading), each once,
    in order (`Grant & F Grant`: `[("Grant", "G rant")]`; after an operand `a Ready` gives
    `("Ready", "R eady")`). Only names of two letters or more count: `GFa`, `Xp1` and `Gp`
    are Spot's idiom for `G F a`, `X p1`, `G p`. [] for a text that does not tokenize."""
    if _MAY_SPLIT.search(text) is None:
        return []
    try:
        toks = tokenize(text)
    except ParseError:
        return []
    found: dict[str, str] = {}
    k = 0
    while k < len(toks):
        start = toks[k].column
        word = _WORD.match(text, start)
        if toks[k].kind not in ("un", "bin") or word is None or (start and _WORD.match(text[start - 1])):
            k += 1
            continue
        end = word.end()
        run = k + 1
        while run < len(toks) and toks[run].column < end:
            run += 1
        last = toks[run - 1]
        if (
            run - k > 1
            and isinstance(last.value, Formula)  # an atom
            and last.value.op in ("ap", "!")
            and _WORDLIKE.match(text, last.column)
            and all(t.kind != "atom" for t in toks[k + 1 : run - 1])
        ):
            found.setdefault(
                text[start:end], " ".join(text[t.column : min(t.column + t.width, end)] for t in toks[k:run])
            )
        k = run
    return list(found.items())


def split_warning(word: str, reading: str) -> str:
    """The warning for an identifier that `split_names` found split, with the way out."""
    first, _, rest = reading.partition(" ")
    if first in _KEYWORDS:
        how = f"{first} whose right operand is {rest}"
    else:
        *ops, name = reading.split(" ")
        how = f"{' '.join(ops)} applied to {name}"
    return f"'{word}' is read as '{reading}' ({how}); write \"{word}\" to keep it one name"
