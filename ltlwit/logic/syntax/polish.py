"""Polish (prefix) notation: DeepLTL's network form and a space-separated form.

Network Polish (`&Uab!Xc`) is what the training data and the models use: no spaces,
single-letter APs, the multi-character tokens `->`, `<->` and `xor`. It is on the training
data path (hundreds of thousands of formulas), hence the tight right-to-left stack loop. It
stays future-only, as DeepLTL wrote it: `Y Z O H S T` are names there, and a formula with
past operators does not print in it; nor does one with the weak next `wX` (BLACK's, for
finite traces), which it has no token for (`wXa` reads as the three tokens `w X a`).
Spaced Polish (`& U req b ! X "x < 3"`, `S req ! Y b`, `wX ! a`) has every operator, the
past ones in BLACK's letters `Y Z O H S T`, the weak next `wX`, and any AP names.

Auto-detection reads a spaced string as Spot's infix first and then as spaced Polish or LBT
(`detect`), so the spaced printer leaves a name bare only where all three read it as that name:
an identifier that is not an operator here (`U`, `xor`, `S`), not one of LBT's letters (`t`, `f`
are its constants, `i`, `e` operators) and that Spot's infix would not quote (`Fail` is `F ail`
there, `TRUE` the constant, `X` an operator). Every other name is double-quoted: `X "Fail"`,
`& "t" b`.
"""

from __future__ import annotations

from ltlwit.logic.formula import Formula, ap, collector_paused
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.names import IDENT, LBT_WORDS, NETWORK_TOKEN, quote, spot_ap
from ltlwit.logic.syntax.operators import BY_OP, NETWORK_ARITY
from ltlwit.logic.syntax.prefix import Token, build, diagnose, words

#: Letters that are operators in network Polish and so cannot be AP names there.
_OP_LETTERS = frozenset(op for op in NETWORK_ARITY if op.isalpha() and len(op) == 1)
#: Spaced Polish spells each operator as its op.
_OPS = frozenset(BY_OP)
_AP_CACHE: dict[str, Formula] = {}


@collector_paused()
def parse_network(text: str) -> Formula:
    """Parse DeepLTL network Polish (`&Uab!Xc`); surrounding whitespace is ignored."""
    body = text.strip()
    tokens = NETWORK_TOKEN.findall(body)
    stack: list[Formula] = []
    push, pop = stack.append, stack.pop
    arity_of = NETWORK_ARITY.get
    try:
        for tok in reversed(tokens):
            arity = arity_of(tok)
            if arity is None:
                leaf = _AP_CACHE.get(tok)
                if leaf is None:
                    if not tok.isalpha():
                        raise IndexError
                    leaf = _AP_CACHE.setdefault(tok, ap(tok))
                push(leaf)
            elif arity == 0:
                push(Formula(tok))
            elif arity == 1:
                push(Formula(tok, (pop(),)))
            else:
                left = pop()
                push(Formula(tok, (left, pop())))
    except IndexError:
        raise _network_error(text) from None
    if len(stack) != 1:
        raise _network_error(text)
    return stack[0]


def _network_error(text: str) -> ParseError:
    """Slow path: locate what is wrong with a network-Polish string."""
    offset = len(text) - len(text.lstrip())
    body = text.strip()
    tokens: list[tuple[str, int, str]] = []
    for m in NETWORK_TOKEN.finditer(body):
        tok, column = m.group(), m.start() + offset
        if tok in NETWORK_ARITY:
            tokens.append((tok, column, tok))
        elif tok.isalpha():
            tokens.append(("ap", column, tok))
        elif tok.isspace():
            return ParseError(
                text, column, "syntax error, unexpected space in network Polish (use the spaced form for spaced tokens)"
            )
        else:
            return ParseError(text, column, f"syntax error, unexpected character {tok!r} in network Polish")
    return diagnose(tokens, text)


def print_network(formula: Formula) -> str:
    """Network Polish; raises ValueError for a name that is not one non-operator letter and
    for past operators and the weak next `wX`, which the format (and the models that read it)
    does not have."""
    if formula.past or formula.weak:
        lacks = " and no ".join(
            what for what, has in (("past operators", formula.past), ("weak next (wX)", formula.weak)) if has
        )
        raise ValueError(f"network Polish has no {lacks}; use polish-spaced")
    parts: list[str] = []
    n_xor = 0
    for node in formula.walk():
        op = node.op
        name = node.name
        if name is not None:  # an AP
            if len(name) != 1 or not name.isalpha() or name in _OP_LETTERS:
                raise ValueError(f"network Polish needs single-letter AP names, got {name!r}; use polish-spaced")
            parts.append(name)
        else:
            n_xor += op == "xor"
            parts.append(op)
    text = "".join(parts)
    if text.count("xor") != n_xor:
        raise ValueError("APs x, o, r in a row would read as 'xor' in network Polish; use polish-spaced")
    return text


@collector_paused()
def parse_spaced(text: str) -> Formula:
    """Parse space-separated Polish: operators, `1`, `0`, identifiers or quoted names."""
    tokens: list[Token] = []
    for word, column, quoted in words(text):
        if quoted is not None:
            tokens.append(Token("ap", quoted, column, word))
        elif word in _OPS or word in ("1", "0"):
            tokens.append(Token(word, None, column, word))
        elif IDENT.match(word):
            tokens.append(Token("ap", word, column, word))
        else:
            raise ParseError(
                text,
                column,
                f"syntax error, unexpected {word!r} (not an operator or a name; quote odd names)",
                len(word),
            )
    return build(tokens, text)


def spaced_ap(name: str) -> str:
    """A name as spaced Polish needs it: bare when spaced Polish, LBT and Spot's infix all read
    the word as this name (see the module docstring), quoted otherwise."""
    if IDENT.match(name) and name not in _OPS and name not in LBT_WORDS and spot_ap(name) == name:
        return name
    return quote(name)


def print_spaced(formula: Formula) -> str:
    """Space-separated Polish with any AP names."""
    return " ".join(spaced_ap(n.name) if n.name is not None else n.op for n in formula.walk())
