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
Bounded and PSL/SERE syntax (`X[2]`, `F[1:3]`, `{...}`, `;`, `[*]`, `##1`, `first_match`)
is not supported and reported as such, with its column.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, Formula, ap
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import unquote_at


class Tok(NamedTuple):
    kind: str  # "atom", "un", "bin", "(", ")"
    value: object  # Formula for atoms, the Formula op for operators
    column: int
    width: int
    level: float = 0.0  # binding strength of a binary operator (higher binds tighter)


#: Binary operators: op -> level, Spot's table lowest first, `S T` with their twins `U R`.
LEVELS = {"->": 1.0, "<->": 1.0, "|": 2.0, "xor": 3.0, "&": 4.0, "U": 5.0, "R": 5.0, "W": 5.0, "M": 5.0,
          "S": 5.0, "T": 5.0}
RIGHT = frozenset({1.0, 5.0})
STAR_LEVEL = 4.5  # Wring's `*` conjunction binds between `&` and `U`, as in Spot.

_SYMBOLS: dict[str, tuple[str, str]] = {}
for _op, _spellings in {
    ("(", "("): "(",
    (")", ")"): ")",
    ("un", "X"): "() ○ ◯ Ⓧ",
    ("un", "!"): "! ~ ¬",
    ("un", "G"): "[] □ ⬜ ◻",
    ("un", "F"): "<> ◇ ⋄ ♢",
    ("bin", "->"): "-> --> → ⟶ => ⇒ ⟹",
    ("bin", "<->"): "<-> <--> ↔ <=> ⇔",
    ("bin", "|"): "|| | + \\/ ∨ ∪",
    ("bin", "&"): "&& & /\\ ∧ ∩",
    ("bin", "*"): "*",
    ("bin", "xor"): "^ ⊕",
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
_KEYWORDS = {"U": "U", "R": "R", "V": "R", "W": "W", "M": "M", "S": "S", "T": "T", "xor": "xor"}
_UNSUPPORTED_WORDS = {"first_match": "PSL first_match"}
#: Letters that are a unary operator unless a digit follows (then they start a name).
_UNARY_LETTERS = "FGXYZOH"
#: Letters that are an operator keyword on their own.
_KEYWORD_LETTERS = _UNARY_LETTERS + "URVWMST"
_NOT_AFTER_OPERAND = frozenset(_KEYWORD_LETTERS)

NAMES = {
    "!": "not operator", "X": "next operator", "F": "sometimes operator", "G": "always operator",
    "&": "and operator", "*": "star operator", "|": "or operator", "xor": "xor operator",
    "->": "implication operator", "<->": "equivalent operator", "U": "until operator",
    "R": "release operator", "W": "weak until operator", "M": "strong release operator",
    "Y": "yesterday operator", "Z": "weak yesterday operator", "O": "once operator",
    "H": "historically operator", "S": "since operator", "T": "triggered operator",
    WEAK_NEXT: "weak next operator", "(": "opening parenthesis", ")": "closing parenthesis",
}


def describe(tok: Tok) -> str:
    """Bison-style name of a token, for `syntax error, unexpected ...`."""
    if tok.kind == "atom":
        f = tok.value
        if f is TRUE or f is FALSE:
            return "constant " + ("true" if f is TRUE else "false")
        return "atomic proposition"
    return NAMES[tok.kind if tok.kind in "()" else tok.value]


def _unsupported(text: str, column: int, width: int, what: str) -> ParseError:
    return ParseError(text, column, f"unsupported: {what} ({text[column:column + width]!r})", width)


#: What a letter-initial run starts, by (run, after an operand), for the runs whose token does
#: not depend on what follows (all but the unary letters): identifiers recur, and `_word`
#: decides each one by flex's rules in a dozen string operations (a multi-megabyte formula
#: has a million of them). Bounded, as AP names come from the input.
_WORDS: dict[tuple[str, bool], tuple[str, object, int, float]] = {}
_WORDS_LIMIT = 100_000


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    append = toks.append
    i, n = 0, len(text)
    after_operand = False  # Spot's `not_prop` start condition
    last_bare_ap = False  # a postfix negation may follow only a name
    while i < n:
        c = text[i]
        if c in " \t\n\r":
            i = _SPACE.match(text, i).end()
            continue
        if c == "/" and text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if c in ")!" or c == "(" and text[i + 1:i + 2] != ")":  # `()` is the next operator
            append(Tok("un", "!", i, 1) if c == "!" else Tok(c, c, i, 1))
            after_operand = c == ")"
            last_bare_ap = False
            i += 1
            continue
        if c.isascii() and (c.isalpha() or c in "_."):
            word = _WORD.match(text, i).group()
            known = _WORDS.get((word, after_operand))
            if known is None:
                i = _word(text, i, word, after_operand, append)
                last = toks[-1]
                if last.kind != "un" and len(_WORDS) < _WORDS_LIMIT:  # F, G, X, ... look ahead for `[`
                    _WORDS[(word, after_operand)] = (last.kind, last.value, last.width, last.level)
            else:
                kind, value, width, level = known
                append(Tok(kind, value, i, width, level))
                i += width
            # Only a name puts Spot's scanner in `not_prop`; `true`/`false` do not.
            last = toks[-1]
            after_operand = last_bare_ap = last.kind == "atom" and last.value.op == "ap"
            continue
        if c == "1" or c == "0":
            append(Tok("atom", TRUE if c == "1" else FALSE, i, 1))
            i += 1
            after_operand = last_bare_ap = False
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
                raise ParseError(text, i, "syntax error, unexpected " + ("negative" if kind == "neg" else "positive")
                                 + " suffix (it may only follow an atomic proposition)", size)
            if kind == "neg":
                prev = toks[-1]
                toks[-1] = Tok("atom", Formula("!", (prev.value,)), prev.column, i + size - prev.column)
            last_bare_ap = False
            i += size
            continue
        if kind == "bin":
            level = STAR_LEVEL if op == "*" else LEVELS[op]
            append(Tok("bin", "&" if op == "*" else op, i, size, level))
        else:
            append(Tok(kind, op, i, size))
        after_operand = kind == ")"
        last_bare_ap = False
        i += size
    return toks


def _word(text: str, i: int, word: str, after_operand: bool, append) -> int:
    """Emit the token a letter-initial run starts, by flex's longest-match rules; return
    the index after it."""
    c = word[0]
    if c == "w" and word[1:2] == "X" and (len(word) == 2 or word[2] in _UNARY_LETTERS):
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
        if c in _UNARY_LETTERS:
            name = len(word) if len(word) > 1 and word[1].isdigit() else 0
        else:
            name = len(word)
    elif c in _NOT_AFTER_OPERAND:
        name = 0
    else:
        name = len(word) if len(word) > 1 and word[1] not in _UNARY_LETTERS else 1
    best = max(const, keyword, name)
    if best == const:
        append(Tok("atom", TRUE if const == 4 else FALSE, i, const))
    elif best == keyword:
        spelled = word[:keyword]
        if spelled in _UNSUPPORTED_WORDS:
            raise _unsupported(text, i, keyword, _UNSUPPORTED_WORDS[spelled])
        if spelled in _UNARY_LETTERS:
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
    other bracket is a bounded operator, unsupported. Return the index after it."""
    end = i + len(op)
    bracket = _BRACKET.match(text, end)
    if bracket and not bracket.group(1):
        strong = _STRONG_NEXT.match(text, end) if op == "X" else None
        if strong is None:
            raise _unsupported(text, i, bracket.end() - i, f"bounded operator {op}[..]")
        end = strong.end()
    append(Tok("un", op, i, end - i))
    return end


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
