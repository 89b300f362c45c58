"""Formulas over data, as BLACK, nuXmv and NASA's FRET write them: LTL whose atoms may compare
terms (`x + 1 > y`, `lift_mode = thrust_borne`, `next(x) = x + 1`, `absReal(Psi - Cmd) <= 1.0`).

The infix parser hands a text here when it holds a comparison or a term operator (`data_hints`),
or when Spot's reading fails on a call (`det_3x3(a, b)`). The lexing is BLACK's and nuXmv's,
not Spot's: operators are whole words (`X X a`, `G(a)`; `GFa` and `FC` are names), `+ - * /`
are arithmetic (never Spot's `|` and Wring's `&`), and a numeral is a number (`1` and `0`
standing where a formula is expected are still the constants). Everything else is Spot's
infix: its operators and spellings, quoted names, `/* comments */`, and the bounded operators
`X[n]`, `F[a..b]`, `G[a:b]`, with nuXmv's `F[a,b]`, `G[a,b]` and the bounded past `O[a,b]`,
`H[a,b]` (inclusive bounds: `O[0,12] p` is "p at some instant 0 to 12 steps ago"), spelled out
with the plain operators as `spell_out` does (`Y` for `O`, the weak `Z` for `H`). nuXmv's
`TRUE`/`FALSE`, `xnor` (read as `<->`) and `V` (release) and BLACK's `True`/`False` are read.

Precedence, lowest first: `-> <->`; `|`; `xor xnor`; `&`; `U R V W M S T`; the unary
operators (`! X F G Y Z O H wX`, bounded ones); the comparisons `= != < <= > >=`; `+ -`;
`* / mod`; unary minus. So a unary operator takes a whole comparison (`G x = 1` is
`G(x = 1)`, `!x = 1` is `!(x = 1)`, as BLACK reads them) and still binds tighter than every
binary connective (`X a U b` is `(X a) U b`, as in Spot). What a name is follows from where it
stands: an operand of a connective is a proposition, an operand of a comparison or of
arithmetic a variable; `f(...)` is a predicate where a formula is expected and a function in a
term. `preBool(init, e)` (FRET: e at the previous instant, `init` at the first) is spelled out
as `(!Y 1 & init) | Y e`. Quantifiers (`forall`, `exists`) are not supported.

nuXmv's text around a formula reads too (`nuxmv`): `LTLSPEC [NAME n :=] φ;`, `INVARSPEC φ`
(`G φ`) and `--` comments; and its `case c1 : e1; ...; TRUE : en; esac`, a formula or a term
by where it stands, spelled out with the connectives (`cases`).

The parser is the infix syntaxes' one operator-precedence engine (`precedence`), reading this
syntax's tokens into an untyped tree (`_Tree`: calls, commas and cases are its own tokens), with
the operator table's levels and spellings (`operators`); the typing pass is an explicit-stack
walk, so the 1,600-deep `X` chains of BLACK's suite parse without recursion.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

from ltlwit.logic.budget import check_deadline
from ltlwit.logic.formula import FALSE, TRUE, And, Formula, Not, Or, ap, atom
from ltlwit.logic.syntax.cases import Alternatives, case_formula, case_term, disjunction, lift
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix_lex import _skip_comment, check_bounds, numeral_too_long, read_bounds
from ltlwit.logic.syntax.names import unquote_at
from ltlwit.logic.syntax.nuxmv import blank_comments, statement
from ltlwit.logic.syntax.operators import ARITH_LEVELS, COMPARE_LEVEL, DATA_UNARY_LEVEL, LEVELS, NEG_LEVEL, spellings
from ltlwit.logic.syntax.precedence import Builder, Token, read, reduce
from ltlwit.logic.theory.terms import PRE, RELATIONS, SHIFTS, Term

#: The operators' spellings in this reading (the operator table's): spelling -> op.
_UNARY = spellings("data", 1)
_BINARY = spellings("data", 2)
_BOUNDED = {"X": "X[n] or X[!]", **{op: f"{op}[a..b], {op}[a,b] or {op}[<=n]" for op in "FGOH"}}

_TOKEN = re.compile(
    r"""
    [ \t\n\r]*(?:
      (?P<num>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)
    | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)
    | (?P<comment>/\*)
    | (?P<sym>\[\]|<>|/\\|\\/|<->|<=>|->|=>|!=|<=|>=|&&|\|\||:=|[-+*/()<>=!~&|,\[\]{}^%;:]|[□◻⬜◇⋄♢○◯¬∧∨→⟶⇒⟹↔⇔⊕])
    | (?P<quote>")
    | (?P<end>\Z)
    )""",
    re.VERBOSE,
)
_BRACKET = re.compile(r"[ \t\n\r]*\[")
#: What may follow an operand and not start one: after an operator's letter, it makes the
#: letter a name (FRET's variables `T` and `H`: `x <= T * 2`, `H = 3`), as a binary operator's
#: letter is one where an operand is expected (`T * 2`).
_ENDS_OPERAND = re.compile(
    r"[ \t\n\r]*(?:[+*/%=<>,)&|:;]|!=|\Z|(?:" + "|".join(s for s in _BINARY if s.isalpha()) + r"|mod|esac)\b)"
)
_BOUNDS = re.compile(r"\[[ \t\n\r]*([0-9]+)[ \t\n\r]*(?:(\.\.|:|,)[ \t\n\r]*([0-9]*)[ \t\n\r]*)?\]")
_STRONG = re.compile(r"\[[ \t\n\r]*![ \t\n\r]*\]")
#: FRET's `O[<=n]` (0 to n steps), `O[<n]` (0 to n - 1) and `O[=n]` (n), for F, G, O and H.
_UP_TO = re.compile(r"\[[ \t\n\r]*(<=?|=)[ \t\n\r]*([0-9]+)[ \t\n\r]*\]")


class Lexeme(NamedTuple):
    """A token, laid out as `infix_lex.Tok` for the engine (`precedence`)."""

    kind: str  # the engine's: atom un bin ( ), or this reading's: call case esac , : ; :=
    #: the operator, the name or numeral as written, a constant's `true` or `false`
    value: str
    column: int
    width: int
    level: float  # binding strength of an operator (`_LEVEL`); 0 for every other token
    bounds: tuple[int, int | None] | None
    what: str  # num name quoted const un neg bin rel arith ( ) , call case esac : ; :=


#: The engine's kind of each of this reading's tokens that it knows: operands and operators.
_KIND = {"num": "atom", "name": "atom", "quoted": "atom", "const": "atom", "neg": "un", "rel": "bin", "arith": "bin"}
#: Binding strength of the operators by what they are, the operator table's: the connectives',
#: then a unary operator's, a comparison's, arithmetic's, unary minus's.
_LEVEL: dict[str, Callable[[str], float]] = {
    "bin": LEVELS.__getitem__,
    "un": lambda _: DATA_UNARY_LEVEL,
    "rel": lambda _: COMPARE_LEVEL,
    "arith": ARITH_LEVELS.__getitem__,
    "neg": lambda _: NEG_LEVEL,
}


def _lexeme(what: str, value: str, column: int, width: int, bounds: tuple[int, int | None] | None = None) -> Lexeme:
    level = _LEVEL.get(what)
    return Lexeme(_KIND.get(what, what), value, column, width, 0.0 if level is None else level(value), bounds, what)


def tokenize(text: str) -> list[Lexeme]:
    toks: list[Lexeme] = []
    i = 0
    expect_operand = True
    while True:
        if not len(toks) & 4095:
            check_deadline()
        m = _TOKEN.match(text, i)
        if m is None:
            j = i + len(text[i:]) - len(text[i:].lstrip(" \t\n\r"))
            raise ParseError(text, j, f"syntax error, unexpected character {text[j]!r}")
        kind = m.lastgroup or "end"  # every alternative is a group
        start = m.start(kind)
        if kind == "end":
            return toks
        if kind == "comment":
            i = _skip_comment(text, start)
            continue
        if kind == "quote":
            got = unquote_at(text, start)
            if got is None:
                raise ParseError(text, start, "unclosed string", len(text) - start)
            if not got[0]:
                raise ParseError(text, start, "empty atomic proposition name", 2)
            toks.append(_lexeme("quoted", got[0], start, got[1] - start))
            i = got[1]
            expect_operand = False
            continue
        word = m.group(kind)
        end = m.end()
        if kind == "num":
            if (why := numeral_too_long(word)) is not None:
                raise ParseError(text, start, why, end - start)
            toks.append(_lexeme("num", word, start, end - start))
            expect_operand = False
        elif kind == "name":
            if word in _UNARY and expect_operand and not _ENDS_OPERAND.match(text, end):
                end = _unary(text, start, word, toks)
            elif word in _BINARY and not (expect_operand and len(word) == 1):
                toks.append(_lexeme("bin", _BINARY[word], start, end - start))
                expect_operand = True
            elif word == "mod":
                toks.append(_lexeme("arith", "mod", start, end - start))
                expect_operand = True
            elif word.lower() in ("true", "false"):
                toks.append(_lexeme("const", word.lower(), start, end - start))
                expect_operand = False
            elif word in ("forall", "exists"):
                raise ParseError(text, start, f"unsupported: quantifiers ({word})", end - start)
            elif word in ("case", "esac"):
                toks.append(_lexeme(word, word, start, end - start))
                expect_operand = word == "case"
            else:
                toks.append(_lexeme("name", word, start, end - start))
                expect_operand = False
        else:  # a symbol
            if word in _UNARY:
                toks.append(_lexeme("un", _UNARY[word], start, end - start))
                expect_operand = True
            elif word == "(":
                last = toks[-1] if toks else None
                if last is not None and last.what in (
                    "name",
                    "quoted",
                ):  # a call; `"R"(x)`: a function named as an operator
                    name = last.value if last.what == "name" else _Quoted(last.value)
                    toks[-1] = _lexeme("call", name, last.column, last.width)
                else:
                    toks.append(_lexeme("(", "(", start, 1))
                expect_operand = True
            elif word == ")":
                toks.append(_lexeme(")", ")", start, 1))
                expect_operand = False
            elif word in (",", ":", ";", ":="):
                toks.append(_lexeme(word, word, start, end - start))
                expect_operand = True
            elif word in _BINARY:
                toks.append(_lexeme("bin", _BINARY[word], start, end - start))
                expect_operand = True
            elif word in RELATIONS:
                toks.append(_lexeme("rel", word, start, end - start))
                expect_operand = True
            elif word == "-" and expect_operand:
                toks.append(_lexeme("neg", "neg", start, 1))
            elif word in ("+", "-", "*", "/", "%"):
                toks.append(_lexeme("arith", "mod" if word == "%" else word, start, 1))
                expect_operand = True
            else:
                what = "PSL/SERE syntax" if word in "{}[]" else f"the operator {word!r}"
                raise ParseError(text, start, f"syntax error, unexpected {what}", end - start)
        i = end


def _unary(text: str, i: int, word: str, toks: list[Lexeme]) -> int:
    """A unary operator's token, with its bracket of bounds when one follows."""
    end = i + len(word)
    op = _UNARY[word]
    bracket = _BRACKET.match(text, end)
    if bracket is None:
        toks.append(_lexeme("un", op, i, len(word)))
        return end
    start = bracket.end() - 1
    if op == "X" and (strong := _STRONG.match(text, start)) is not None:
        toks.append(_lexeme("un", "X", i, strong.end() - i))
        return strong.end()
    if word not in _BOUNDED:
        raise ParseError(text, i, f"unsupported: bounded operator {word}[..]", bracket.end() - i)
    up_to = _UP_TO.match(text, start) if op != "X" else None
    if up_to is not None:  # FRET's `[<=n]`: read as `[0,n]` (`[=n]`: `[n,n]`), errors marked alike
        digits, width = up_to.group(2), up_to.end() - start
        check_bounds(text, start, [digits], word, width)
        bound = int(digits) - (up_to.group(1) == "<")
        if bound < 0:
            raise ParseError(text, start, f"empty range in {word}[<0]: no instant is less than 0 steps away", width)
        low = bound if up_to.group(1) == "=" else 0
        toks.append(_lexeme("un", op, i, up_to.end() - i, (low, bound)))
        return up_to.end()
    found = _BOUNDS.match(text, start)
    if found is not None and not found.group(3) and word in ("O", "H"):
        found = None  # the past has no open bound
    low, high, end = read_bounds(text, start, found, word, op, _BOUNDED[word])
    toks.append(_lexeme("un", op, i, end - i, (low, high)))
    return end


# -- the parse tree -----------------------------------------------------------------------
class Operand(NamedTuple):
    """A parsed operand: `kind` one of num name quoted const un neg bin rel arith call case,
    its operator or text (`Lexeme.value`; a case's is `case`), its operands, and where it is
    written (start, end)."""

    kind: str
    value: str
    kids: tuple["Operand", ...]
    start: int
    end: int
    bounds: tuple[int, int | None] | None = None


class _Tree(Builder[Operand]):
    """The operator-precedence pass, the engine's (`precedence`): tokens to an untyped tree,
    with this reading's own tokens: a call's arguments between commas, and a case's branches
    `condition : value;` up to its `esac`. One per text: it holds where each open call's and
    case's operands start."""

    def __init__(self) -> None:
        self.starts: list[int] = []  # operand count at each open call and case

    @staticmethod
    def leaf(tok: Token) -> Operand:
        return Operand(tok[6], tok[1], (), tok[2], tok[2] + tok[3])

    @staticmethod
    def unary(tok: Token, operand: Operand) -> Operand:
        return Operand(tok[6], tok[1], (operand,), tok[2], operand.end, tok[5])

    @staticmethod
    def binary(tok: Token, left: Operand, right: Operand) -> Operand:
        return Operand(tok[6], tok[1], (left, right), left.start, right.end)

    def close(self, text: str, opening: Token, tok: Token, operands: list[Operand], pending: list[Token]) -> None:
        if opening[6] == "case":
            raise ParseError(
                text, tok[2], f"syntax error, unexpected {_describe(tok)} inside a case (no esac before it)"
            )
        pending.pop()
        if opening[6] == "call":
            count = self.starts.pop()
            args = tuple(operands[count:])
            del operands[count:]
            operands.append(Operand("call", opening[1], args, opening[2], tok[2] + 1))
        else:
            last = operands[-1]
            operands[-1] = last._replace(start=opening[2], end=tok[2] + 1)

    def describe(self, tok: Token) -> str:
        return _describe(tok)

    def other(
        self, text: str, toks: Sequence[Token], k: int, expect: bool, operands: list[Operand], pending: list[Token]
    ) -> bool:
        tok = toks[k]
        kind = tok[0]
        if expect:
            if kind == "call" or kind == "case":
                pending.append(tok)
                self.starts.append(len(operands))
                return True
            if kind == "esac" and toks[k - 1][0] == ";" and pending and pending[-1][0] == "case":
                self._close_case(text, tok, operands, pending)
                return False
            if kind == ")" and pending and pending[-1][0] == "call":
                opening = pending[-1]
                raise ParseError(text, opening[2], "unexpected empty block", tok[2] + 1 - opening[2])
        elif kind in (":", ";", "esac"):
            reduce(operands, pending, self)
            if kind == "esac":
                self._close_case(text, tok, operands, pending)
                return False
            self._branch(text, tok, len(operands), pending)
            return True
        elif kind == ",":
            reduce(operands, pending, self)
            if not pending:
                raise ParseError(text, tok[2], f"syntax error, unexpected {_describe(tok)}")
            if pending[-1][0] == "case":
                raise ParseError(
                    text, tok[2], f"syntax error, unexpected {_describe(tok)} inside a case (no esac before it)"
                )
            if pending[-1][0] != "call":
                raise ParseError(text, tok[2], "syntax error, unexpected comma")
            return True
        return super().other(text, toks, k, expect, operands, pending)

    def unclosed(self, opening: Token) -> str:
        return "a case without esac" if opening[0] == "case" else "missing closing parenthesis"

    def _branch(self, text: str, tok: Token, count: int, pending: list[Token]) -> None:
        """A case's `:` or `;` (its operands reduced): after a condition and after a value."""
        if not pending or pending[-1][0] != "case":
            raise ParseError(text, tok[2], f"syntax error, unexpected {_describe(tok)}", tok[3])
        done = count - self.starts[-1]  # operands of the case so far: conditions and values
        if done % 2 != (tok[0] == ":"):
            raise ParseError(text, tok[2], f"syntax error, unexpected {_describe(tok)} ({_BRANCHES})", tok[3])

    def _close_case(self, text: str, tok: Token, operands: list[Operand], pending: list[Token]) -> None:
        """`esac` (the case's operands reduced): the case becomes one operand, its conditions
        and values alternating."""
        if not pending or pending[-1][0] != "case":
            raise ParseError(text, tok[2], "syntax error, unexpected esac (no case before it)", tok[3])
        opening = pending.pop()
        count = self.starts.pop()
        kids = tuple(operands[count:])
        if not kids or len(kids) % 2:
            what = "a case without branches" if not kids else f"a branch without its value ({_BRANCHES})"
            raise ParseError(text, tok[2], what, tok[3])
        del operands[count:]
        operands.append(Operand("case", "case", kids, opening[2], tok[2] + tok[3]))


#: How nuXmv writes a case's branches, for the errors that find them written otherwise.
_BRANCHES = "a case's branches are `condition : value;`, its end `esac`"


def _describe(tok: Token) -> str:
    what, value = tok[6], tok[1]
    if what in (":", ";", ":="):
        return f"'{value}'"
    if what in ("case", "esac"):
        return str(value)
    if what == ")":
        return "closing parenthesis"
    if what == "(":
        return "opening parenthesis"
    if what == ",":
        return "comma"
    if what in ("name", "quoted", "call"):
        return f"name {value!r}"
    if what == "num":
        return f"number {value}"
    if what == "const":
        return "constant " + value
    return f"operator {value!r}" if what != "un" else f"{value} operator"


# -- typing: formulas and terms ------------------------------------------------------------
_TERM_CALLS = {"absReal": 1, "absInt": 1, "abs": 1, "preReal": 2, "preInt": 2, "min": 2, "max": 2}
_LOGIC_KINDS = ("const", "un", "bin", "rel")


def parse_data(text: str, where: list | None = None, atoms: list | None = None) -> Formula:
    """A formula over data (module docstring), in nuXmv's statement if written so
    (`LTLSPEC NAME r1 := φ;`, `INVARSPEC φ`: `G φ`; `nuxmv`), with `--` comments; ParseError
    with a column on bad input. `where`, when given, receives the top-level conjuncts' (start,
    end) columns; `atoms` the (start, end) columns of each atom as written (a proposition, a
    comparison, a predicate), once however often the formula repeats it (`H[0,100] p`)."""
    written = blank_comments(text)
    found = statement(written)
    bare = written
    if found.start or found.end < len(bare):  # the formula alone, in its columns
        bare = " " * found.start + bare[found.start : found.end] + " " * (len(bare) - found.end)
    try:
        if found.keyword is not None and not bare.strip():
            after = written[found.start :]
            raise ParseError(bare, found.start + len(after) - len(after.lstrip()), f"no formula after {found.keyword}")
        tree = read(bare, tokenize(bare), _Tree())
        formula = _typed(bare, tree, atoms)
    except ParseError as exc:
        raise exc.shifted(text, 0) from None
    invariant = found.keyword == "INVARSPEC"  # φ at every instant: one conjunct
    if where is not None:
        where.extend([(tree.start, tree.end)] if invariant else _conjunct_spans(tree))
    return Formula("G", (formula,)) if invariant else formula


def _conjunct_spans(tree: Operand) -> list[tuple[int, int]]:
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if node.kind == "bin" and node.value == "&":
            stack.extend(reversed(node.kids))
        elif not (node.kind == "const" and node.value == "true") and not (node.kind == "num" and node.value == "1"):
            out.append((node.start, node.end))
    return out


def _typed(text: str, tree: Operand, atoms: list | None = None) -> Formula:
    """The explicit-stack typing walk: each node is read as a formula or as a term, by where
    it stands; a node is visited twice (its operands' readings first). `atoms` receives the
    columns of the nodes read as atoms, in the order they are written."""
    done: dict[tuple[int, str], object] = {}
    stack: list[tuple[Operand, str, bool]] = [(tree, "formula", False)]
    count = 0
    while stack:
        count += 1
        if not count & 4095:
            check_deadline()
        node, want, ready = stack.pop()
        key = (id(node), want)
        if key in done:
            continue
        wants = _operand_wants(text, node, want)
        if not ready and wants:
            stack.append((node, want, True))
            stack.extend((kid, w, False) for kid, w in zip(node.kids, wants))
            continue
        built = done[key] = _build(text, node, want, [done[(id(kid), w)] for kid, w in zip(node.kids, wants)])
        if atoms is not None and want == "formula" and _atom_node(node, built):
            atoms.append((node.start, node.end))
    if atoms is not None:  # outermost only: a case's conditions inside a comparison are its own
        reached, outer = -1, []
        for start, end in sorted(atoms, key=lambda span: (span[0], -span[1])):
            if start >= reached:
                outer.append((start, end))
            reached = max(reached, end)
        atoms[:] = outer
    formula = done[(id(tree), "formula")]
    assert isinstance(formula, Formula)  # what the walk builds where a formula is wanted
    return formula


def _atom_node(node: Operand, built: object) -> bool:
    """Whether a node read as a formula is an atom as written: a name, a comparison of terms,
    a predicate (a comparison over a case is its alternatives' disjunction, one atom written)."""
    if node.kind in ("name", "quoted"):
        return True
    if node.kind == "rel":
        return not (node.value in ("=", "!=") and any(_logical(k) for k in node.kids))
    return node.kind == "call" and node.value != "preBool"


def _operand_wants(text: str, node: Operand, want: str) -> list[str]:
    kind = node.kind
    if kind in ("un", "bin"):
        return ["formula"] * len(node.kids)
    if kind == "rel":
        if node.value in ("=", "!=") and any(_logical(k) for k in node.kids):
            return ["formula", "formula"]  # Booleans compared: `p = TRUE`, `(a & b) != c`
        return ["term", "term"]
    if kind == "case":  # conditions, and values read as the case is
        return ["formula", want] * (len(node.kids) // 2)
    if kind in ("arith", "neg"):
        return ["term"] * len(node.kids)
    if kind == "call":
        if node.value == "preBool" and want == "formula":
            return ["formula"] * len(node.kids)
        return ["term"] * len(node.kids)
    return []


def _logical(node: Operand) -> bool:
    """Whether a node is Boolean by its spelling: a connective, a comparison, a constant, or
    a case with such a value (`case c : TRUE; TRUE : p; esac = q` compares Booleans)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.kind in _LOGIC_KINDS:
            return True
        if node.kind == "case":
            stack.extend(node.kids[1::2])
    return False


def _build(text: str, node: Operand, want: str, kids: list) -> object:
    kind, value = node.kind, node.value
    width = node.end - node.start
    if kind == "case":
        try:
            return case_term(kids) if want == "term" else case_formula(kids)
        except ValueError:
            last = node.kids[-2]
            raise ParseError(
                text,
                last.start,
                "a case whose last condition is not TRUE: nuXmv fails where no condition holds; "
                "end the case with a branch `TRUE : value;`",
                last.end - last.start,
            ) from None
    if want == "term":
        if kind == "rel":
            raise ParseError(
                text, node.start, "a comparison where a term was expected (comparisons do not nest)", width
            )
        if kind in ("un", "bin", "const"):
            raise ParseError(text, node.start, "a formula where a term (a number or variable) was expected", width)
        if kind in ("name", "quoted"):
            return Term("var", (), value)
        if kind == "num":
            return Term("num", (), value)
        if kind == "neg":
            return lift(kids, lambda ks: Term("neg", ks))
        if kind == "arith":
            return lift(kids, lambda ks: Term(value, ks))
        if (value in SHIFTS or value in PRE) and any(isinstance(k, Alternatives) for k in kids):
            raise ParseError(
                text,
                node.start,
                f"unsupported: a case inside {value}(...) (its conditions would be read at another instant); "
                f"apply {value} to the case's values instead",
                width,
            )
        return lift(kids, lambda ks: _call_term(text, node, list(ks)))
    # a formula
    if kind == "const":
        return TRUE if value == "true" else FALSE
    if kind in ("name", "quoted"):
        return ap(value)
    if kind == "num":
        if value in ("1", "0"):
            return TRUE if value == "1" else FALSE
        raise ParseError(text, node.start, f"a number where a formula was expected (compare it: x = {value})", width)
    if kind == "un":
        if node.bounds is not None:
            return _spell_out(value, *node.bounds, kids[0])
        return Formula(value, (kids[0],))
    if kind == "bin":
        return Formula(value, (kids[0], kids[1]))
    if kind == "rel":
        if isinstance(kids[0], Formula):
            same = Formula("<->", (kids[0], kids[1]))
            return same if value == "=" else Not(same)
        return disjunction(lift(kids, lambda ks: atom(Term(value, ks))))
    if kind in ("arith", "neg"):
        raise ParseError(
            text, node.start, "an arithmetic term where a formula was expected (a comparison is missing)", width
        )
    # a call standing where a formula is expected
    name = value
    _misspelled(text, node)
    if name == "preBool":
        if len(kids) != 2:
            raise ParseError(text, node.start, f"preBool takes 2 arguments (init, e), not {len(kids)}", width)
        first = Not(Formula("Y", (TRUE,)))
        return Or(And(first, kids[0]), Formula("Y", (kids[1],)))
    if name in SHIFTS or name in _TERM_CALLS:
        raise ParseError(
            text, node.start, f"{name}(...) is a number, not a formula: compare it (e.g. {name}(...) > 0)", width
        )
    return disjunction(lift(kids, lambda ks: atom(Term("pred", ks, str(name)))))


#: Built-in names, by their lower case: a call spelled so in another case is a misspelling
#: (`absreal(x)`), reported rather than read as an uninterpreted function.
_BUILTIN_SPELLINGS = {n.lower(): n for n in (*SHIFTS, *_TERM_CALLS, "preBool")}


class _Quoted(str):
    """A quoted name applied to arguments (`"R"(x)`, as witnesses print a function named like
    an operator): never a built-in."""


def _misspelled(text: str, node: Operand) -> None:
    known = _BUILTIN_SPELLINGS.get(str(node.value).lower())
    if known is not None and isinstance(node.value, _Quoted):
        raise ParseError(
            text, node.start, f"{known} is built in: a function of its own needs another name", len(node.value) + 2
        )
    if known is not None and known != node.value:
        raise ParseError(
            text, node.start, f"unknown function {node.value} (did you mean {known}?)", len(str(node.value))
        )


def _call_term(text: str, node: Operand, kids: list) -> Term:
    name = node.value
    width = node.end - node.start
    _misspelled(text, node)
    if name in SHIFTS:
        if len(kids) != 1:
            raise ParseError(text, node.start, f"{name} takes one argument, not {len(kids)}", width)
        return Term(name, (kids[0],))
    arity = _TERM_CALLS.get(name)
    if arity is not None and len(kids) != arity:
        raise ParseError(
            text, node.start, f"{name} takes {arity} argument{'s' if arity > 1 else ''}, not {len(kids)}", width
        )
    if name == "preBool":
        raise ParseError(text, node.start, "preBool(...) is a formula, not a term", width)
    return Term("call", tuple(kids), str(name))


def _spell_out(op: str, low: int, high: int | None, f: Formula) -> Formula:
    """A bounded operator with the plain ones: the future ones as the Spot reader spells them
    (`infix.spell_out`); `O[a,b] f` as `Y^a (f | Y(f | ... Y f))` (the instant must exist, as
    in nuXmv and FRET), `H[a,b] f` as `Z^a (f & Z(f & ... Z f))` (only the instants that do)."""
    if op not in ("O", "H"):
        from ltlwit.logic.syntax.infix import spell_out

        return spell_out(op, low, high, f)
    assert high is not None  # the past has no open bound (`_unary`)
    step, join = ("Y", "|") if op == "O" else ("Z", "&")
    body = f
    for _ in range(high - low):
        body = Formula(join, (f, Formula(step, (body,))))
    for _ in range(low):
        body = Formula(step, (body,))
    return body
