"""Spot's infix LTL syntax: an operator-precedence parser with explicit stacks.

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
"""

from __future__ import annotations

import re

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import FALSE, PAST, TRUE, WEAK_NEXT, Formula, collector_paused
from ltlwit.logic.syntax.data_hints import call_hint, data_hint
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix_lex import _WORDS, _WORDS_LIMIT, LEVELS, RIGHT, Tok, _word, describe, tokenize
from ltlwit.logic.syntax.nuxmv import statement_hint


def parse_spot(text: str) -> Formula:
    """Parse one formula in Spot's infix syntax (all its aliases and UTF-8 operators)."""
    return _parse(text, None)


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
    where: list[_Span] = []
    formula = _parse(text, where)
    out: list[tuple[int, int, Formula | None]] = []
    stack = [where[0]]
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
def _parse(text: str, where: list[_Span] | None) -> Formula:
    """The parser; `where`, when given, collects each operand's extent beside it (kept off
    the common path: `parse_spot` passes None, and `_plain` reads most texts first)."""
    if where is None:
        plain = _plain(text)
        if plain is not None:
            return plain
        if data_hint(text):  # comparisons, term operators: BLACK's and nuXmv's reading
            return _data(text)
    try:
        return _spot(text, where)
    except ParseError:
        if where is None and statement_hint(text):  # nuXmv's text: its reading, or its error
            return _data(text)
        # `det_3x3(a, b)`: a predicate over data, which Spot's reading rejects
        found = _data_reading(text) if where is None and call_hint(text) else None
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


def _spot(text: str, where: list[_Span] | None) -> Formula:
    toks = tokenize(text)
    if not toks:
        return _fail(text, len(text.rstrip()) if text.strip() else 0, "empty input")
    operands: list[Formula] = []
    pending: list[Tok] = []  # "(", unary and binary operators not yet applied
    expect_operand = True
    for count, tok in enumerate(toks):
        if not count & 4095:
            check_deadline()
        kind = tok.kind
        if expect_operand:
            if kind == "atom":
                atom: Formula = tok.value  # type: ignore[assignment]  # an atom's (`Tok.value`)
                operands.append(atom)
                if where is not None:
                    where.append((tok.column, tok.column + tok.width, None, atom))
                _apply_unary(operands, pending, where)
                expect_operand = False
            elif kind == "un" or kind == "(":
                pending.append(tok)
            elif kind == ")" and pending and pending[-1].kind == "(":
                return _fail(text, pending[-1].column, "unexpected empty block", tok.column + 1 - pending[-1].column)
            else:
                reason = f"syntax error, unexpected {describe(tok)}{_name_hint(tok, pending)}"
                return _fail(text, tok.column, reason, tok.width)
        elif kind == "bin":
            level = tok.level
            while (
                pending
                and pending[-1].kind == "bin"
                and (pending[-1].level > level or (pending[-1].level == level and level not in RIGHT))
            ):
                _apply_binary(operands, pending.pop(), where)
            pending.append(tok)
            expect_operand = True
        elif kind == ")":
            while pending and pending[-1].kind == "bin":
                _apply_binary(operands, pending.pop(), where)
            if not pending:
                return _fail(text, tok.column, "syntax error, unexpected closing parenthesis")
            opening = pending.pop()
            if where is not None:  # the parentheses belong to the operand they enclose
                _, _, kids, formula = where[-1]
                where[-1] = (opening.column, tok.column + tok.width, kids, formula)
            _apply_unary(operands, pending, where)
        else:
            return _fail(text, tok.column, f"syntax error, unexpected {describe(tok)}", tok.width)
    end = len(text.rstrip())
    if expect_operand:
        last = toks[-1]
        reason = "syntax error, unexpected end of formula"
        if last.kind in ("un", "bin"):
            reason += f', missing right operand for "{describe(last)}"{_name_hint(None, pending)}'
        return _fail(text, end, reason)
    while pending:
        tok = pending.pop()
        if tok.kind == "(":
            return _fail(text, tok.column, "missing closing parenthesis", end - tok.column)
        _apply_binary(operands, tok, where)
    return operands[0]


#: `_plain`'s tokens: blanks, then a letter-initial run, one of `( ) ! 1 0 & && | || -> <->`
#: as the tokenizer's `_COMMON` reads them, or something else that ends `_plain`: `|-` or `|=`
#: (PSL), any other one character but a blank. (Spot's next `()` reads as an empty block there,
#: which ends it too.)
_PLAIN = re.compile(r"[ \t\n\r]*([a-zA-Z_.][a-zA-Z0-9_.]*|\(|[)!01]|&&?|\|\||\|[-=]|\||->|<->|[^ \t\n\r])")
#: The symbols among them: (kind, operator, level) as `Tok`'s.
_PLAIN_SYMBOLS: dict[str, tuple[str, Formula | str, float]] = {
    "(": ("(", "(", 0.0),
    ")": (")", ")", 0.0),
    "!": ("un", "!", 0.0),
    "1": ("atom", TRUE, 0.0),
    "0": ("atom", FALSE, 0.0),
    **{
        s: ("bin", op, LEVELS[op])
        for s, op in (("&", "&"), ("&&", "&"), ("|", "|"), ("||", "|"), ("->", "->"), ("<->", "<->"))
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
    other text (then `tokenize` and the parser read it, with columns for its errors): the
    same formula, as the tokens are the same (names split by `_word`'s rules, through the same
    `_WORDS` cache), without a `Tok` or a match object per token. A multi-megabyte
    specification has a million tokens: read so, its parse takes a third less time."""
    toks = _plain_tokens(text)
    toks.reverse()
    pop = toks.pop
    operands: list[Formula] = []
    pending: list[tuple[str, str, float]] = []  # "(", unary and binary operators not yet applied
    expect_operand = True
    after_operand = False  # as `tokenize`'s: a name or `)` came last
    count = 0
    while toks:
        count += 1
        if not count & 4095:
            check_deadline()
        t = pop()
        sym = _PLAIN_SYMBOLS.get(t)
        if sym is None:
            if not ("a" <= t[0] <= "z" or "A" <= t[0] <= "Z" or t[0] in "_."):
                return None  # any other character: the full tokenizer's business
            known = _WORDS.get((t, after_operand))
            if known is None:
                found: list[Tok] = []
                try:
                    width = _word(t, 0, t, after_operand, found.append)
                except ParseError:
                    return None
                tok = found[0]
                if tok.bounds is not None:
                    return None
                known = (tok.kind, tok.value, width, tok.level, isinstance(tok.value, Formula) and tok.value.op == "ap")
                if len(_WORDS) < _WORDS_LIMIT:
                    _WORDS[(t, after_operand)] = known
            kind, value, width, level, after_operand = known
            if width < len(t):  # `GFa`: the rest of the run is read again, as `tokenize` does
                toks.extend(reversed(_PLAIN.findall(t[width:])))
            sym = (kind, value, level)
        else:
            after_operand = t == ")"
        kind = sym[0]
        if expect_operand:
            if kind == "atom":
                operand: Formula = sym[1]  # type: ignore[assignment]  # an atom's (`Tok.value`)
                while pending and pending[-1][0] == "un":
                    operand = Formula(pending.pop()[1], (operand,))
                operands.append(operand)
                expect_operand = False
            elif kind == "un" or kind == "(":
                pending.append(sym)  # type: ignore[arg-type]  # an operator's: its value is its op
            else:
                return None
        elif kind == "bin":
            level = sym[2]
            while (
                pending
                and pending[-1][0] == "bin"
                and (pending[-1][2] > level or (pending[-1][2] == level and level not in RIGHT))
            ):
                right = operands.pop()
                operands[-1] = Formula(pending.pop()[1], (operands[-1], right))
            pending.append(sym)  # type: ignore[arg-type]  # an operator's: its value is its op
            expect_operand = True
        elif kind == ")":
            while pending and pending[-1][0] == "bin":
                right = operands.pop()
                operands[-1] = Formula(pending.pop()[1], (operands[-1], right))
            if not pending:
                return None
            pending.pop()
            while pending and pending[-1][0] == "un":
                operands[-1] = Formula(pending.pop()[1], (operands[-1],))
        else:
            return None
    if expect_operand:
        return None
    while pending:
        op = pending.pop()
        if op[0] == "(":
            return None
        right = operands.pop()
        operands[-1] = Formula(op[1], (operands[-1], right))
    return operands[0]


def _name_hint(unexpected: Tok | None, pending: list[Tok]) -> str:
    """Where an operand was expected: a hint when a past operator's letter stands there alone
    (`S & a`) or went without its operand (`Y & a`, `H`), or `wX` did (`wX & a`, `G wX`).
    Spot has neither the past operators nor `wX` and reads these spellings as names, so a
    specification written for Spot may mean a proposition."""
    if unexpected is not None and unexpected.kind == "bin" and unexpected.value in PAST:
        letter = unexpected.value
    elif pending and pending[-1].kind == "un" and (pending[-1].value in PAST or pending[-1].value == WEAK_NEXT):
        letter = pending[-1].value
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


def _apply_unary(operands: list[Formula], pending: list[Tok], where: list[_Span] | None = None) -> None:
    while pending and pending[-1].kind == "un":
        tok = pending.pop()
        op: str = tok.value  # type: ignore[assignment]  # an operator's (`Tok.value`)
        if tok.bounds is None:
            operands[-1] = Formula(op, (operands[-1],))
        else:
            operands[-1] = spell_out(op, *tok.bounds, operands[-1])
        if where is not None:
            where[-1] = (tok.column, where[-1][1], None, operands[-1])


def _apply_binary(operands: list[Formula], tok: Tok, where: list[_Span] | None = None) -> None:
    right = operands.pop()
    op: str = tok.value  # type: ignore[assignment]  # an operator's (`Tok.value`)
    operands[-1] = Formula(op, (operands[-1], right))
    if where is not None:
        second = where.pop()
        first = where[-1]
        where[-1] = (first[0], second[1], (first, second) if tok.value == "&" else None, operands[-1])


def _fail(text: str, column: int, reason: str, width: int = 1) -> Formula:
    raise ParseError(text, column, reason, width)
