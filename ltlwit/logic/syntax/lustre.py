"""FRET's Internal variables' assignments, Lustre expressions, written in nuXmv's syntax, which
the data parser (`data`) then reads as it reads every requirement: one grammar for formulas.

FRET defines an Internal variable by a Lustre expression over the others (`autopilot` is
`(not standby) and supported and (not apfail)`, `roll_command_acceleration` is
`0.0 -> (x - pre x) * 100.0`). `lustre_to_nuxmv` rewrites one:

    not a, a and b, a or b, a xor b, a => b      !a, a & b, a | b, a xor b, a -> b
    a = b, a <> b (Booleans)                     a <-> b, !(a <-> b)
    a <> b (numbers)                             a != b
    if c then a else b                           case c : a; TRUE : b; esac
    a -> b (a at the first instant, then b)      case !(Y TRUE) : a; TRUE : b; esac
    pre e (a Boolean; a number)                  Y e; preReal(0.0, e) or preInt(0, e)

(`pre` at the first instant is Lustre's nil, which its definitions keep under `->`: the value
given there is never read). Whether an operand is a Boolean or a number is read off the
variables' data types (`sorts`: name -> "bool", "int" or "real"), numerals and operators. A
construct outside these (`div`, a call, a tuple) is a ValueError: that variable stays undefined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>->|=>|<>|<=|>=|[-+*/()=<>]))"
)
_WORDS = {"and", "or", "not", "xor", "if", "then", "else", "pre", "true", "false"}


@dataclass(frozen=True)
class _Expr:
    text: str  # in nuXmv's syntax, parenthesised where it has operators
    kind: str  # "bool", "int", "real", or "any" (a name of no known type: what its place wants)


def lustre_to_nuxmv(text: str, sorts: Mapping[str, str]) -> tuple[str, str]:
    """The expression in nuXmv's syntax, and its kind ("bool", "int", "real"); ValueError
    (one line) for what is not read (module docstring)."""
    tokens = _tokens(text)
    parser = _Parser(tokens, sorts)
    try:
        out = parser.arrow()
    except RecursionError:  # a table of values written as 100 nested `->` and `pre`
        raise ValueError("nested too deeply") from None
    if parser.at < len(tokens):
        raise ValueError(f"unexpected {tokens[parser.at]!r}")
    return out.text, out.kind


def _tokens(text: str) -> list[str]:
    out, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None or m.end() == at:
            raise ValueError(f"cannot read {text[at:].strip()[:20]!r}")
        out.append(m.group("num") or m.group("name") or m.group("op"))
        at = m.end()
        while at < len(text) and text[at].isspace():
            at += 1
    return out


class _Parser:
    """Lustre's precedences, loosest first: `->`, `=>` (both to the right), `or`/`xor`, `and`,
    comparisons, `+ -`, `* /`, then `not`, `pre`, unary minus; `if` reaches as far right as
    it can."""

    def __init__(self, tokens: list[str], sorts: Mapping[str, str]) -> None:
        self.tokens, self.sorts, self.at = tokens, sorts, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or expected is not None and token != expected:
            raise ValueError(f"expected {expected or 'more'}, found {token or 'the end'}")
        self.at += 1
        return token

    def arrow(self) -> _Expr:
        first = self.implies()
        if self.peek() != "->":
            return first
        self.take()
        then = self.arrow()
        return _Expr(f"(case !(Y TRUE) : {first.text}; TRUE : {then.text}; esac)", _joined(first, then))

    def implies(self) -> _Expr:
        left = self.disjunction()
        if self.peek() != "=>":
            return left
        self.take()
        right = self.implies()
        return _Expr(f"({_bool(left)} -> {_bool(right)})", "bool")

    def disjunction(self) -> _Expr:
        left = self.conjunction()
        while self.peek() in ("or", "xor"):
            op = "|" if self.take() == "or" else "xor"
            right = self.conjunction()
            left = _Expr(f"({_bool(left)} {op} {_bool(right)})", "bool")
        return left

    def conjunction(self) -> _Expr:
        left = self.comparison()
        while self.peek() == "and":
            self.take()
            right = self.comparison()
            left = _Expr(f"({_bool(left)} & {_bool(right)})", "bool")
        return left

    def comparison(self) -> _Expr:
        left = self.sum()
        op = self.peek()
        if op not in ("=", "<>", "<", "<=", ">", ">="):
            return left
        self.take()
        right = self.sum()
        if "bool" in (left.kind, right.kind):
            if op not in ("=", "<>"):
                raise ValueError(f"{op} between Booleans")
            same = f"({_bool(left)} <-> {_bool(right)})"
            return _Expr(same if op == "=" else f"(!{same})", "bool")
        return _Expr(f"({left.text} {'!=' if op == '<>' else op} {right.text})", "bool")

    def sum(self) -> _Expr:
        return self.arithmetic(("+", "-"), self.product)

    def product(self) -> _Expr:
        return self.arithmetic(("*", "/"), self.unary)

    def arithmetic(self, ops: tuple[str, ...], operand: Callable[[], _Expr]) -> _Expr:
        """Operands of `ops`, to the left."""
        left = operand()
        while self.peek() in ops:
            op = self.take()
            right = operand()
            left = _Expr(f"({_number(left)} {op} {_number(right)})", _joined(left, right))
        return left

    def unary(self) -> _Expr:
        token = self.peek()
        if token == "not":
            self.take()
            return _Expr(f"(!{_bool(self.unary())})", "bool")
        if token == "-":
            self.take()
            operand = self.unary()
            return _Expr(f"(-{_number(operand)})", operand.kind)
        if token == "pre":
            self.take()
            operand = self.unary()
            if operand.kind == "bool":
                return _Expr(f"(Y {operand.text})", "bool")
            if operand.kind == "any":
                raise ValueError(f"pre of {operand.text}, whose type nothing gives")
            init, function = ("0.0", "preReal") if operand.kind == "real" else ("0", "preInt")
            return _Expr(f"{function}({init}, {operand.text})", operand.kind)
        return self.atom()

    def atom(self) -> _Expr:
        token = self.take()
        if token == "(":
            inner = self.arrow()
            self.take(")")
            return inner
        if token == "if":
            condition = self.arrow()
            self.take("then")
            then = self.arrow()
            self.take("else")
            other = self.arrow()
            return _Expr(f"(case {_bool(condition)} : {then.text}; TRUE : {other.text}; esac)", _joined(then, other))
        if token in ("true", "false"):
            return _Expr(token.upper(), "bool")
        if token[0].isdigit():
            return _Expr(token, "real" if "." in token or "e" in token.lower() else "int")
        if token in _WORDS or not (token[0].isalpha() or token[0] == "_"):
            raise ValueError(f"unexpected {token!r}")
        if self.peek() == "(":
            raise ValueError(f"a call of {token}")
        return _Expr(token, self.sorts.get(token, "any"))


def _bool(e: _Expr) -> str:
    if e.kind not in ("bool", "any"):
        raise ValueError(f"a number where a Boolean is wanted: {e.text}")
    return e.text


def _number(e: _Expr) -> str:
    if e.kind == "bool":
        raise ValueError(f"a Boolean where a number is wanted: {e.text}")
    return e.text


def _joined(a: _Expr, b: _Expr) -> str:
    if {a.kind, b.kind} == {"any"}:
        return "any"
    kinds = {a.kind, b.kind} - {"any"}
    if "bool" in kinds and len(kinds) > 1:
        raise ValueError(f"a Boolean and a number: {a.text}, {b.text}")
    return "bool" if "bool" in kinds else "real" if "real" in kinds else "int"
