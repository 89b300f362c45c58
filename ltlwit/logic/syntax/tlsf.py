"""TLSF, SYNTCOMP's specification format (Jacobs, Klein and Schirmer, "A High-Level LTL
Synthesis Format: TLSF v1.1"), basic and parameterised, instantiated as syfco instantiates it.

A file has an `INFO` section (`SEMANTICS: Mealy` or `Moore`, `,Strict` where the assertions
hold only while the requirements do, `,Finite` for LTLf), an optional `GLOBAL` section
(`PARAMETERS`: `n = 4;`, overridable as syfco's `-p n=4` is; `DEFINITIONS`: constants and
functions, `f(bus, i) = cond : expr  otherwise : expr;`, recursion allowed) and a `MAIN`
section with `INPUTS` and `OUTPUTS` (signals and buses `r[n]`, whose signals are `r_0` ...
`r_{n-1}` as syfco names them) and the formula sections `INITIALLY`, `PRESET`, `REQUIRE`,
`ASSERT` (`INVARIANTS`), `ASSUME` (`ASSUMPTIONS`) and `GUARANTEE` (`GUARANTEES`), each a list
of expressions ended by `;` (the last one's optional). `//` and `/* */` are comments.

Expressions: numbers with `+ - * / %`, comparisons, `SIZEOF bus`, sets `{a, b}`, buses
`r[i]`, calls, and the big operators `&&[0 <= i < n] f`, `||[i IN {0, 1}] f`. TLSF's
precedences are its own, not Spot's: the unary operators (`!`, `X`, `G`, `F`, `X[n]`,
`G[a:b]`, `F[a:b]`, the big operators; under `,Finite` `X` is the weak next and `X[!]`
the strong one, as in Spot) bind tighter than `&&`, then `||`, then `->` and `<->`
(right), and the temporal binary operators bind weakest, `W` (right), then `U` (right), then
`R`: `a -> b U c` is `(a -> b) U c`. The specification is the one formula syfco's writers give
(`Tlsf.formula`):

    INITIALLY -> (PRESET && ((G REQUIRE && ASSUME) -> (G ASSERT && GUARANTEE)))

and under strict semantics `ASSERT W !REQUIRE` joins PRESET instead of `G ASSERT`.

Enumerated types (`enum hburst = SINGLE: 01 INCR: 00, 11 BURST4: 1*;` in DEFINITIONS, a value
one or more codes of equal width, `*` either bit) type a signal (`hburst h;`): a bus of that
width, read bit i from the code's i-th character, compared by `h == SINGLE` / `h != SINGLE`.
As syfco does, codes that no value has are ruled out: for an input in REQUIRE (the environment
never writes them), for an output in ASSERT (the system must not)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from ltlwit.logic.formula import FALSE, TRUE, WEAK_NEXT, And, Formula, Not, Or, ap, binop, unop
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix import spell_out

#: The formula sections and their spellings.
SECTIONS = {
    "INITIALLY": "initially",
    "PRESET": "preset",
    "REQUIRE": "require",
    "REQUIREMENTS": "require",
    "ASSERT": "assert",
    "INVARIANTS": "assert",
    "ASSUME": "assume",
    "ASSUMPTIONS": "assume",
    "GUARANTEE": "guarantee",
    "GUARANTEES": "guarantee",
}
#: Binary operators: level (higher binds tighter), right-associative.
_BINARY = {
    ":": (1, False),
    "T": (2, False),
    "S": (3, True),
    "R": (4, False),
    "U": (5, True),
    "W": (6, True),
    "->": (7, True),
    "<->": (7, True),
    "||": (8, False),
    "&&": (9, False),
    "IN": (11, False),
    "==": (12, False),
    "!=": (12, False),
    "<": (12, False),
    "<=": (12, False),
    ">": (12, False),
    ">=": (12, False),
    "+": (14, False),
    "-": (14, False),
    "/": (15, True),
    "%": (15, True),
    "*": (16, False),
}
#: Where the unary temporal and Boolean operators take their operand from.
_UNARY_LEVEL = 10
_WORDS = {
    "AND": "&&",
    "OR": "||",
    "IMPLIES": "->",
    "EQUIV": "<->",
    "NOT": "!",
    "EQ": "==",
    "NEQ": "!=",
    "/=": "!=",
    "LE": "<",
    "LEQ": "<=",
    "GE": ">",
    "GEQ": ">=",
    "<-": "IN",
    "ELEM": "IN",
    "MUL": "*",
    "DIV": "/",
    "MOD": "%",
    "PLUS": "+",
    "MINUS": "-",
    "FORALL": "&&",
    "EXISTS": "||",
}
_TEMPORAL_UNARY = ("X", "G", "F", "Y", "H", "O")
_LTL = {"&&": "&", "||": "|", "->": "->", "<->": "<->", "U": "U", "W": "W", "R": "R", "S": "S", "T": "T"}
_TOKEN = re.compile(
    r"(?P<space>\s+)|(?P<num>\d+)|(?P<str>\"[^\"]*\")"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_@']*)"
    r"|(?P<op><->|->|&&|\|\||==|!=|/=|<=|>=|<-|\.\.|[<>!()\[\]{},:;+\-*/%=~|])"
)


class TlsfError(ParseError):
    """A TLSF error at a line and column of the file: one line, `line L: column C: reason`,
    and `render()` shows the line with a caret."""

    def __init__(self, text: str, column: int, reason: str, length: int = 1, line: int = 1) -> None:
        super().__init__(text, column, reason, length)
        self.line = line
        self.args = (f"line {line}: column {self.column + 1}: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple:
        return (TlsfError, (self.text, self.column, self.reason, self.length, self.line))


#: An enumerated value's codes: per code, each bit True, False or None (either).
_Codes = tuple[tuple[bool | None, ...], ...]


class _Enum(tuple):
    """An enumerated value: its codes (`_Codes`); `kind` names its type."""

    kind: str


@dataclass(frozen=True)
class Tlsf:
    title: str
    semantics: str  # "mealy" or "moore"
    strict: bool
    finite: bool
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    #: section -> its formulas, in the file's order (the `SECTIONS` values)
    sections: dict[str, tuple[Formula, ...]] = field(default_factory=dict)

    @property
    def moore(self) -> bool:
        return self.semantics == "moore"

    def formula(self) -> Formula:
        """The specification as one formula, as syfco writes it (empty parts left out)."""
        part = {name: And(*self.sections.get(name, ())) for name in set(SECTIONS.values())}
        always = {name: unop("G", f) if f is not TRUE else TRUE for name, f in part.items()}
        preset, invariant = part["preset"], always["assert"]
        if self.strict and invariant is not TRUE:
            preset = And(*_kept(preset, binop("W", part["assert"], unop("!", part["require"]))))
            invariant = TRUE
        environment = And(*_kept(always["require"], part["assume"]))
        system = And(*_kept(invariant, part["guarantee"]))
        body = And(*_kept(preset, _implies(environment, system)))
        return _implies(part["initially"], body)


def _kept(*fs: Formula) -> tuple[Formula, ...]:
    return tuple(f for f in fs if f is not TRUE)


def _implies(a: Formula, b: Formula) -> Formula:
    return b if a is TRUE else binop("->", a, b)


def parse_tlsf(text: str, parameters: Mapping[str, int] | None = None) -> Tlsf:
    """The specification of a TLSF text, `parameters` overriding the file's (syfco's `-p`);
    TlsfError (a ParseError) where it is not one."""
    return _Reader(text).spec(dict(parameters or {}))


# -- reading -------------------------------------------------------------------------------


class _Tok:
    __slots__ = ("kind", "value", "at")

    def __init__(self, kind: str, value: Any, at: int) -> None:
        self.kind, self.value, self.at = kind, value, at


#: An expression: (kind, position, fields...)
Node = tuple


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = list(self._lex(_blank_comments(text)))
        self.k = 0

    def _lex(self, clean: str) -> Iterator[_Tok]:
        pos = 0
        while pos < len(clean):
            m = _TOKEN.match(clean, pos)
            if m is None:
                raise self.error(pos, f"unexpected character {clean[pos]!r}")
            kind = m.lastgroup
            assert kind is not None
            value = m.group()
            if kind == "id":
                value = _WORDS.get(value, value)
                if value in _BINARY or value in ("&&", "||", "!"):
                    kind = "op"
            elif kind == "op":
                value = _WORDS.get(value, value)
            if kind != "space":
                yield _Tok(kind, int(value) if kind == "num" else value, m.start())
            pos = m.end()
        yield _Tok("end", None, len(clean))

    def error(self, at: int, reason: str, length: int = 1) -> TlsfError:
        return _error(self.text, at, reason, length)

    # -- tokens ----------------------------------------------------------------------------
    @property
    def tok(self) -> _Tok:
        return self.toks[self.k]

    def take(self) -> _Tok:
        tok = self.toks[self.k]
        self.k += 1
        return tok

    def at(self, value: str) -> bool:
        return self.tok.kind in ("op", "id") and self.tok.value == value

    def expect(self, value: str) -> _Tok:
        if not self.at(value):
            raise self.error(self.tok.at, f"expected {value}, found {self._describe(self.tok)}", self._width(self.tok))
        return self.take()

    def _describe(self, tok: _Tok) -> str:
        return "the end of the file" if tok.kind == "end" else repr(str(tok.value))

    def _width(self, tok: _Tok) -> int:
        return max(1, len(str(tok.value))) if tok.kind != "end" else 1

    # -- the file --------------------------------------------------------------------------
    def spec(self, overrides: dict[str, int]) -> Tlsf:
        info: dict[str, str] = {}
        parameters: list[tuple[_Tok, Node]] = []
        definitions: dict[str, tuple[list[str], list[tuple[Node | None, Node]]]] = {}
        main: dict[str, list] = {}
        enums: dict[str, tuple[int, dict[str, _Codes]]] = {}  # type -> its width and values
        seen_main = False
        while self.tok.kind != "end":
            name = self.take()
            if name.value == "INFO":
                info = self._info()
            elif name.value == "GLOBAL":
                self._global(parameters, definitions, enums)
            elif name.value == "MAIN":
                main = self._main()
                seen_main = True
            else:
                raise self.error(name.at, f"unknown section {name.value}", self._width(name))
        if not seen_main:
            raise self.error(0, "no MAIN section")
        raw = info.get("SEMANTICS", "Mealy").replace(" ", "")
        kinds = {k.lower() for k in raw.split(",")}
        if not kinds <= {"mealy", "moore", "strict", "finite"} or len(kinds & {"mealy", "moore"}) != 1:
            where = self.text.find(raw.split(",")[0]) if raw else 0
            raise self.error(max(where, 0), f"unknown SEMANTICS {raw!r} (Mealy or Moore, with ,Strict or ,Finite)")
        env = _Env(self, definitions, enums)
        env.finite = "finite" in kinds
        for tok, expr in parameters:
            env.values[tok.value] = overrides.pop(tok.value) if tok.value in overrides else env.number(expr)
        if overrides:
            raise self.error(0, f"no parameter {next(iter(overrides))} in the file")
        inputs = env.signals(main.get("INPUTS", []), "require")
        outputs = env.signals(main.get("OUTPUTS", []), "assert")
        both = next(((n, tok) for n, tok in outputs if n in dict(inputs)), None)
        if both is not None:
            raise self.error(both[1].at, f"{both[0]} is both an input and an output", len(both[1].value))
        declared = {n for n, _ in inputs + outputs}
        sections: dict[str, list[Formula]] = {k: list(v) for k, v in env.unused_codes.items()}
        for section, exprs in main.items():
            if section in SECTIONS:
                sections.setdefault(SECTIONS[section], []).extend(env.formula(e, declared) for e in exprs)
        return Tlsf(
            info.get("TITLE", "").strip('"'),
            "moore" if "moore" in kinds else "mealy",
            "strict" in kinds,
            "finite" in kinds,
            tuple(n for n, _ in inputs),
            tuple(n for n, _ in outputs),
            {k: tuple(v) for k, v in sections.items()},
        )

    def _info(self) -> dict[str, str]:
        self.expect("{")
        fields: dict[str, str] = {}
        while not self.at("}"):
            key = self.take()
            if key.kind == "end":
                raise self.error(key.at, "missing closing brace")
            self.expect(":")
            words = []
            while self.tok.kind in ("id", "str") or self.at(","):
                words.append(str(self.take().value))
                if (
                    self.tok.kind in ("id", "str")
                    and self.toks[self.k + 1].kind == "op"
                    and self.toks[self.k + 1].value == ":"
                ):
                    break  # the next field's name
            fields[str(key.value)] = "".join(words) if key.value == "SEMANTICS" else " ".join(words)
        self.take()
        return fields

    def _global(self, parameters: list[tuple[_Tok, Node]], definitions: dict, enums: dict) -> None:
        self.expect("{")
        while not self.at("}"):
            part = self.take()
            if part.value not in ("PARAMETERS", "DEFINITIONS"):
                raise self.error(part.at, f"unknown part of GLOBAL: {part.value}", self._width(part))
            self.expect("{")
            while not self.at("}"):
                name = self.take()
                if name.kind != "id":
                    raise self.error(name.at, f"expected a name, found {self._describe(name)}", self._width(name))
                if name.value == "enum" and part.value == "DEFINITIONS" and self.tok.kind == "id":
                    self._enum(enums)
                    continue
                params: list[str] = []
                if part.value == "DEFINITIONS" and self.at("("):
                    self.take()
                    while not self.at(")"):
                        param = self.take()
                        if param.kind != "id":
                            raise self.error(param.at, "expected a parameter name", self._width(param))
                        params.append(param.value)
                        if not self.at(")"):
                            self.expect(",")
                    self.take()
                self.expect("=")
                cases = self._cases()
                if part.value == "PARAMETERS":
                    parameters.append((name, cases[0][1]))
                else:
                    definitions[name.value] = (params, cases)
            self.take()
        self.take()

    def _enum(self, enums: dict[str, tuple[int, dict[str, _Codes]]]) -> None:
        """`enum NAME = VALUE: code[, code...] ... ;`, a code a word of 0, 1 and * (the tokens
        it lexes into are read back from the text)."""
        name = self.take()
        self.expect("=")
        values: dict[str, _Codes] = {}
        width = 0
        while not self.at(";") and not self.at("}"):
            value = self.take()
            if value.kind != "id":
                raise self.error(
                    value.at, f"expected a value's name, found {self._describe(value)}", self._width(value)
                )
            if value.value in values:
                raise self.error(value.at, f"{value.value} is already a value of {name.value}", self._width(value))
            self.expect(":")
            codes = [self._code()]
            while self.at(","):
                self.take()
                codes.append(self._code())
            for at, code in codes:
                if len(code) != (width or len(code)):
                    raise self.error(at, f"a code of {len(code)} bits where {name.value}'s have {width}", len(code))
                width = len(code)
            values[value.value] = tuple(code for _, code in codes)
        self._end_of_statement()
        if not values:
            raise self.error(name.at, f"enum {name.value} has no values", self._width(name))
        enums[name.value] = (width, values)

    def _code(self) -> tuple[int, tuple[bool | None, ...]]:
        """A code and where it starts: the adjacent number and `*` tokens from here."""
        at = end = self.tok.at
        while (self.tok.kind == "num" or self.at("*")) and self.tok.at == end:
            match = _TOKEN.match(self.text, end)
            assert match is not None
            end = match.end()
            self.take()
        code = self.text[at:end]
        if not code or set(code) - set("01*"):
            found = repr(code) if code else self._describe(self.tok)
            raise self.error(at, f"expected a code of 0, 1 and *, found {found}", max(1, end - at))
        return at, tuple({"0": False, "1": True}.get(c) for c in code)

    def _cases(self) -> list[tuple[Node | None, Node]]:
        """`expr;` or guarded cases `cond : expr ... ;`."""
        first = self.expression()
        if first[0] != "bin" or first[2] != ":":
            self._end_of_statement()
            return [(None, first)]
        cases = [(first[3], first[4])]
        while not self.at(";") and not self.at("}"):
            case = self.expression()
            if case[0] != "bin" or case[2] != ":":
                raise self.error(case[1], "expected a guarded case, cond : expression")
            cases.append((case[3], case[4]))
        self._end_of_statement()
        return cases

    def _end_of_statement(self) -> None:
        if self.at(";"):
            self.take()
        elif not self.at("}"):
            raise self.error(self.tok.at, f"expected ;, found {self._describe(self.tok)}", self._width(self.tok))

    def _main(self) -> dict[str, list]:
        self.expect("{")
        out: dict[str, list] = {}
        while not self.at("}"):
            name = self.take()
            if name.kind == "end":
                raise self.error(name.at, "missing closing brace")
            if name.value not in SECTIONS and name.value not in ("INPUTS", "OUTPUTS"):
                raise self.error(name.at, f"unknown section {name.value}", self._width(name))
            self.expect("{")
            items = out.setdefault(name.value, [])
            while not self.at("}"):
                if self.tok.kind == "end":
                    raise self.error(self.tok.at, "missing closing brace")
                if name.value in ("INPUTS", "OUTPUTS"):
                    items.append(self._signal())
                else:
                    items.append(self.expression())
                    self._end_of_statement()
            self.take()
        self.take()
        return out

    def _signal(self) -> tuple[_Tok, Node | None | _Tok]:
        """A signal's name and its bus width, or the name and the token naming its enum type."""
        name = self.take()
        if name.kind != "id":
            raise self.error(name.at, f"expected a signal name, found {self._describe(name)}", self._width(name))
        size: Node | None | _Tok = None
        if self.tok.kind == "id":  # `hburst h;`: h has the enumerated type hburst
            size, name = name, self.take()
        elif self.at("["):
            self.take()
            size = self.expression()
            self.expect("]")
        self._end_of_statement()
        return name, size

    # -- expressions -----------------------------------------------------------------------
    def expression(self, level: int = 0) -> Node:
        left = self._prefix()
        while True:
            tok = self.tok
            if tok.kind != "op" or tok.value not in _BINARY:
                return left
            strength, right = _BINARY[tok.value]
            if strength < level:  # a left-associative operator's right operand starts one above it
                return left
            if tok.value == ":" and level > 0:
                return left
            self.take()
            operand = self.expression(strength if right else strength + 1)
            left = ("bin", tok.at, tok.value, left, operand)

    def _prefix(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            return ("num", tok.at, tok.value)
        if tok.kind == "op" and tok.value == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        if tok.kind == "op" and tok.value == "{":
            items = []
            while not self.at("}"):
                items.append(self.expression())
                if self.at(".."):  # {a .. c}, or {a, b .. c} in steps of b - a
                    self.take()
                    start = items[-2] if len(items) == 2 else items[-1]
                    items = [("range", tok.at, start, items[-1] if len(items) == 2 else None, self.expression())]
                elif not self.at("}"):
                    self.expect(",")
            self.take()
            return ("set", tok.at, items)
        if tok.kind == "op" and tok.value == "!":
            return ("not", tok.at, self.expression(_UNARY_LEVEL))
        if tok.kind == "op" and tok.value == "-":
            return ("bin", tok.at, "-", ("num", tok.at, 0), self.expression(17))
        if tok.kind == "op" and tok.value in ("&&", "||") and self.at("["):
            self.take()
            bindings = [self.expression()]
            while self.at(","):
                self.take()
                bindings.append(self.expression())
            self.expect("]")
            return ("big", tok.at, tok.value, bindings, self.expression(_UNARY_LEVEL))
        if tok.kind == "id":
            name = tok.value
            if (
                name == "X"
                and self.at("[")
                and self.toks[self.k + 1].value == "!"
                and self.toks[self.k + 2].value == "]"
            ):
                self.k += 3  # LTLf's strong next; a plain X is the weak one there
                return ("temporal", tok.at, "X!", self.expression(_UNARY_LEVEL))
            if name in _TEMPORAL_UNARY and self.at("[") and self.tok.at == tok.at + 1:
                self.take()
                bound = self.expression()
                self.expect("]")
                return ("bounded", tok.at, name, bound, self.expression(_UNARY_LEVEL))
            if name in _TEMPORAL_UNARY:
                return ("temporal", tok.at, name, self.expression(_UNARY_LEVEL))
            if name in ("SIZEOF", "SIZE", "MIN", "MAX"):
                return ("size" if name.startswith("SIZE") else name.lower(), tok.at, self.expression(17))
            if name in ("true", "false", "otherwise"):
                return ("const", tok.at, name != "false")
            if self.at("(") and self.tok.at == tok.at + len(name):
                self.take()
                args = []
                while not self.at(")"):
                    args.append(self.expression())
                    if not self.at(")"):
                        self.expect(",")
                self.take()
                return ("call", tok.at, name, args)
            if self.at("["):
                self.take()
                index = self.expression()
                self.expect("]")
                return ("index", tok.at, name, index)
            return ("id", tok.at, name)
        raise self.error(tok.at, f"syntax error, unexpected {self._describe(tok)}", self._width(tok))


class _Bus(tuple):
    """A bus's signals, in order; `kind` names an enumerated signal's type."""

    kind: str | None = None


class _Env:
    """Evaluation: numbers, sets, buses and formulas, under the parameters and definitions."""

    def __init__(self, reader: _Reader, definitions: dict, enums: dict[str, tuple[int, dict[str, _Codes]]]) -> None:
        self.reader = reader
        self.definitions = definitions
        self.enums = enums
        self.values: dict[str, Any] = {}
        for kind, (_, values) in enums.items():
            for name, codes in values.items():
                self.values[name] = _Enum(codes)
                self.values[name].kind = kind
        #: section -> what rules out the codes no value has, per enumerated signal
        self.unused_codes: dict[str, list[Formula]] = {}
        self.depth = 0
        self.finite = False

    def error(self, node: Node, reason: str) -> TlsfError:
        return self.reader.error(node[1], reason)

    def number(self, node: Node, scope: Mapping[str, Any] | None = None) -> int:
        value = self.value(node, scope or {})
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(node, "expected a number")
        return value

    def signals(self, items: list[tuple[_Tok, Node | None | _Tok]], section: str) -> list[tuple[str, _Tok]]:
        """The signals declared (a bus's one by one) with the token declaring each; an
        enumerated signal's unused codes ruled out in `section`."""
        names = []
        for tok, size in items:
            if size is None:
                self.values[tok.value] = ap(tok.value)
                names.append((tok.value, tok))
                continue
            if isinstance(size, _Tok):
                if size.value not in self.enums:
                    raise self.reader.error(size.at, f"{size.value} is not an enumerated type", len(size.value))
                width, values = self.enums[size.value]
            else:
                width = self.number(size)
            bus = _Bus(f"{tok.value}_{i}" for i in range(width))
            self.values[tok.value] = bus
            names.extend((name, tok) for name in bus)
            if isinstance(size, _Tok):
                bus.kind = size.value
                used = [code for codes in values.values() for code in codes]
                unused = _unused(bus, used, tok, self.reader)
                if unused:
                    self.unused_codes.setdefault(section, []).extend(unused)
        return names

    def formula(self, node: Node, declared: set[str]) -> Formula:
        value = self.value(node, {})
        if not isinstance(value, Formula):
            raise self.error(node, "expected a formula")
        stray = next((a for a in value.aps() if a not in declared), None)
        if stray is not None:
            raise self.error(node, f"{stray} is neither an input nor an output")
        return value

    def value(self, node: Node, scope: Mapping[str, Any]) -> Any:
        kind = node[0]
        if kind == "num":
            return node[2]
        if kind == "const":
            return TRUE if node[2] else FALSE
        if kind == "id":
            return self._name(node, node[2], scope)
        if kind == "index":
            bus = self._name(node, node[2], scope)
            i = self.number(node[3], scope)
            if not isinstance(bus, tuple):
                raise self.error(node, f"{node[2]} is not a bus")
            if not 0 <= i < len(bus):
                raise self.error(node, f"index {i} out of {node[2]}'s range 0..{len(bus) - 1}")
            return ap(bus[i])
        if kind == "size":
            bus = self.value(node[2], scope)
            if not isinstance(bus, (tuple, frozenset)):
                raise self.error(node, "SIZEOF of something that is not a bus or a set")
            return len(bus)
        if kind in ("min", "max"):
            items = self.value(node[2], scope)
            if not isinstance(items, frozenset) or not items:
                raise self.error(node, f"{kind.upper()} of something that is not a non-empty set")
            return (min if kind == "min" else max)(items)
        if kind == "set":
            out: set[int] = set()
            for item in node[2]:
                if item[0] == "range":
                    first = self.number(item[2], scope)
                    step = self.number(item[3], scope) - first if item[3] is not None else 1
                    if step <= 0:
                        raise self.error(item, "a range's step must be positive")
                    out.update(range(first, self.number(item[4], scope) + 1, step))
                else:
                    out.add(self.number(item, scope))
            return frozenset(out)
        if kind == "not":
            return _negated(self._formula(node[2], scope))
        if kind == "temporal":
            op = node[2]
            op = "X" if op == "X!" else WEAK_NEXT if op == "X" and self.finite else op
            return unop(op, self._formula(node[3], scope))
        if kind == "bounded":
            return self._bounded(node, scope)
        if kind == "big":
            return self._big(node, scope)
        if kind == "call":
            return self._call(node, scope)
        if kind == "bin":
            return self._binary(node, scope)
        raise self.error(node, f"unexpected {kind}")

    def _name(self, node: Node, name: str, scope: Mapping[str, Any]) -> Any:
        if name in scope:
            return scope[name]
        if name in self.values:
            return self.values[name]
        if name in self.definitions and not self.definitions[name][0]:
            return self._call(("call", node[1], name, []), scope)
        raise self.error(node, f"{name} is neither an input nor an output, nor defined")

    def _formula(self, node: Node, scope: Mapping[str, Any]) -> Formula:
        value = self.value(node, scope)
        if not isinstance(value, Formula):
            raise self.error(node, "expected a formula")
        return value

    def _binary(self, node: Node, scope: Mapping[str, Any]) -> Any:
        op, a, b = node[2], node[3], node[4]
        if op in _LTL:
            f, g = self._formula(a, scope), self._formula(b, scope)
            if f.is_constant and g.is_constant and op in ("&&", "||", "->", "<->"):
                return _folded(op, f is TRUE, g is TRUE)
            return binop(_LTL[op], f, g)
        if op == "IN":
            return TRUE if self.number(a, scope) in self._set(b, scope) else FALSE
        if op == ":":
            raise self.error(node, "a guarded case outside a definition")
        if op in ("==", "!="):
            x, y = self.value(a, scope), self.value(b, scope)
            if isinstance(x, _Enum) or isinstance(y, _Enum):
                bus, value = (x, y) if isinstance(y, _Enum) else (y, x)
                if not isinstance(bus, _Bus) or not isinstance(value, _Enum) or bus.kind != value.kind:
                    raise self.error(node, "an enumerated value compared with something not of its type")
                same = Or(*(_matches(bus, code) for code in value))
                return same if op == "==" else _negated(same)
        x, y = self.number(a, scope), self.number(b, scope)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            holds = {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
            return TRUE if holds else FALSE
        if op in ("/", "%") and y == 0:
            raise self.error(node, "division by zero")
        return {"+": x + y, "-": x - y, "*": x * y, "/": x // y if y else 0, "%": x % y if y else 0}[op]

    def _set(self, node: Node, scope: Mapping[str, Any]) -> frozenset:
        value = self.value(node, scope)
        if not isinstance(value, frozenset):
            raise self.error(node, "expected a set")
        return value

    def _bounded(self, node: Node, scope: Mapping[str, Any]) -> Formula:
        op, bound, body = node[2], node[3], self._formula(node[4], scope)
        if bound[0] == "bin" and bound[2] == ":":
            low, high = self.number(bound[3], scope), self.number(bound[4], scope)
        else:
            low = high = self.number(bound, scope)
        if op not in ("X", "G", "F") or low < 0 or high < low:
            raise self.error(node, f"not a bounded operator: {op}[{low}:{high}]")
        return spell_out(op, low, high, body)

    def _big(self, node: Node, scope: Mapping[str, Any]) -> Formula:
        op, bindings, body = node[2], node[3], node[4]
        parts: list[Formula] = []

        def bind(k: int, inner: dict[str, Any]) -> None:
            if k == len(bindings):
                parts.append(self._formula(body, inner))
                return
            name, values = self._binding(bindings[k], inner)
            for v in values:
                bind(k + 1, {**inner, name: v})

        bind(0, dict(scope))
        if not parts:
            return TRUE if op == "&&" else FALSE
        return And(*parts) if op == "&&" else Or(*parts)

    def _binding(self, node: Node, scope: Mapping[str, Any]) -> tuple[str, list[int]]:
        """`i IN set` or a chain `low <= i < high`: the name and its values, in order."""
        if node[0] == "bin" and node[2] == "IN" and node[3][0] == "id":
            return node[3][2], sorted(self._set(node[4], scope))
        compare = ("<", "<=")
        if node[0] == "bin" and node[2] in compare and node[3][0] == "bin" and node[3][2] in compare:
            inner = node[3]
            if inner[4][0] == "id":
                low = self.number(inner[3], scope) + (inner[2] == "<")
                high = self.number(node[4], scope) - (node[2] == "<")
                return inner[4][2], list(range(low, high + 1))
        raise self.error(node, "expected a binding: i IN set, or low <= i < high")

    def _call(self, node: Node, scope: Mapping[str, Any]) -> Any:
        name, args = node[2], node[3]
        if name not in self.definitions:
            raise self.error(node, f"{name} is not defined")
        params, cases = self.definitions[name]
        if len(params) != len(args):
            raise self.error(node, f"{name} takes {len(params)} arguments, not {len(args)}")
        inner = {p: self.value(a, scope) for p, a in zip(params, args)}
        self.depth += 1
        try:
            if self.depth > 500:
                raise self.error(node, f"{name}: recursion too deep")
            for cond, expr in cases:
                if cond is None or self._holds(cond, inner):
                    return self.value(expr, inner)
            raise self.error(node, f"{name}: no case applies")
        finally:
            self.depth -= 1

    def _holds(self, node: Node, scope: Mapping[str, Any]) -> bool:
        value = self.value(node, scope)
        if value is TRUE or value is FALSE:
            return value is TRUE
        raise self.error(node, "a guard that is not a constant")


def _matches(bus: _Bus, code: tuple[bool | None, ...]) -> Formula:
    """`bus` holds `code` (its `*` bits either way)."""
    return And(*(ap(s) if bit else Not(ap(s)) for s, bit in zip(bus, code) if bit is not None))


def _unused(bus: _Bus, used: list[tuple[bool | None, ...]], tok: _Tok, reader: _Reader) -> list[Formula]:
    """For each code of `bus`'s width that none of `used` covers, that `bus` does not hold it."""
    if len(bus) > 16:
        raise reader.error(tok.at, f"{tok.value}: an enumerated type of {len(bus)} bits (at most 16)", len(tok.value))
    out = []
    for n in range(2 ** len(bus)):
        code = tuple(bool(n >> i & 1) for i in range(len(bus)))
        if not any(all(u is None or u == c for u, c in zip(codes, code)) for codes in used):
            out.append(_negated(_matches(bus, code)))
    return out


def _negated(f: Formula) -> Formula:
    return FALSE if f is TRUE else TRUE if f is FALSE else Not(f)


def _folded(op: str, a: bool, b: bool) -> Formula:
    value = {"&&": a and b, "||": a or b, "->": (not a) or b, "<->": a == b}[op]
    return TRUE if value else FALSE


def _blank_comments(text: str) -> str:
    """`text` with its comments turned into spaces (newlines kept: lines and columns stay)."""

    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group())

    return re.sub(r"//[^\n]*|/\*.*?(\*/|$)", blank, text, flags=re.S)


def _error(text: str, at: int, reason: str, length: int = 1) -> TlsfError:
    line = text.count("\n", 0, at) + 1
    begin = text.rfind("\n", 0, at) + 1
    stop = text.find("\n", at)
    return TlsfError(text[begin : stop if stop >= 0 else len(text)], at - begin, reason, length, line)
