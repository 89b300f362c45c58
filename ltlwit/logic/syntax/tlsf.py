"""TLSF, SYNTCOMP's specification format (Jacobs, Klein and Schirmer, "A High-Level LTL
Synthesis Format: TLSF v1.1"), in its basic form: an `INFO` section (`SEMANTICS: Mealy`,
`Moore`, with `,Strict` where the assertions hold only while the requirements do) and a
`MAIN` section with `INPUTS`, `OUTPUTS` and the formula sections `INITIALLY`, `PRESET`,
`REQUIRE`, `ASSERT` (`INVARIANTS`), `ASSUME` (`ASSUMPTIONS`) and `GUARANTEE` (`GUARANTEES`),
each a list of formulas ended by `;`. `//` and `/* */` are comments.

The formulas are read by the one precedence engine (`precedence`) with TLSF's own table, which
is not Spot's: the unary operators bind tightest, then `&&`, `||`, `->` and `<->` (right),
and the temporal binary operators bind *weakest*, `W` (right), then `U` (right), then `R`
(left): `a -> b U c` is `(a -> b) U c` in TLSF. `X[n] f`, `G[a:b] f` and `F[a:b] f` are the
bounded operators. The specification is the one formula syfco's writers give
(`Tlsf.formula`):

    INITIALLY -> (PRESET && ((G REQUIRE && ASSUME) -> (G ASSERT && GUARANTEE)))

and under strict semantics `ASSERT W !REQUIRE` joins PRESET instead of `G ASSERT`.

The parameterised form (`GLOBAL` with parameters, definitions and big operators) is not read:
`syfco -f basic -p n=4` instantiates it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ltlwit.logic.formula import FALSE, TRUE, And, Formula, ap, binop, unop
from ltlwit.logic.syntax.errors import ParseError
from ltlwit.logic.syntax.infix import spell_out
from ltlwit.logic.syntax.operators import TLSF_LEVELS as LEVELS
from ltlwit.logic.syntax.operators import TLSF_UNARY_LEVEL as UNARY_LEVEL
from ltlwit.logic.syntax.precedence import Builder, Token, read

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
_BINARY = {"&&": "&", "||": "|", "->": "->", "<->": "<->", "W": "W", "U": "U", "R": "R"}
_WORDS = {"AND": "&&", "OR": "||", "IMPLIES": "->", "EQUIV": "<->", "NOT": "!"}
_TOKEN = re.compile(
    r"\s+|(?P<bounded>[XGF])\[\s*(?P<low>\d+)\s*(?::\s*(?P<high>\d+)\s*)?\]"
    r"|(?P<op><->|->|&&|\|\||!|\(|\))"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_@'.]*)"
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


@dataclass(frozen=True)
class Tlsf:
    title: str
    semantics: str  # "mealy" or "moore"
    strict: bool
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    #: section -> its formulas, in the file's order (the `SECTIONS` values)
    sections: dict[str, tuple[Formula, ...]]

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


def parse_tlsf(text: str) -> Tlsf:
    """The specification of a basic TLSF text; TlsfError (a ParseError) where it is not one."""
    clean = _blank_comments(text)
    if re.search(r"\bGLOBAL\s*\{", clean):
        at = re.search(r"\bGLOBAL\b", clean)
        assert at is not None
        raise _error(
            text, at.start(), "parameterised TLSF (GLOBAL) is not read; instantiate it: syfco -f basic -p n=4 FILE", 6
        )
    info = _block(text, clean, "INFO")
    main = _block(text, clean, "MAIN")
    if main is None:
        raise _error(text, 0, "no MAIN section")
    head = clean[info[0] : info[1]] if info else ""
    found = re.search(r"\bSEMANTICS\s*:\s*([A-Za-z, \t]*)", head)
    raw = found.group(1).replace(" ", "").replace("\t", "") if found else "Mealy"
    kinds = {k.lower() for k in raw.split(",")}
    if not kinds <= {"mealy", "moore", "strict"} or len(kinds & {"mealy", "moore"}) != 1:
        where = clean.find(raw.split(",")[0]) if raw else 0
        raise _error(text, max(where, 0), f"unknown SEMANTICS {raw!r} (Mealy, Moore, Mealy,Strict or Moore,Strict)")
    semantics = "moore" if "moore" in kinds else "mealy"
    named = re.search(r'\bTITLE\s*:\s*"([^"]*)"', text[info[0] : info[1]]) if info else None
    title = named.group(1) if named else ""
    inputs: list[str] = []
    outputs: list[str] = []
    sections: dict[str, list[Formula]] = {}
    start, end = main
    for m in re.finditer(r"(\w+)\s*\{", clean[start:end]):
        name = m.group(1)
        body_start = start + m.end()
        body_end = _closing(text, clean, body_start - 1)
        if name in ("INPUTS", "OUTPUTS"):
            names = _signals(text, clean, body_start, body_end)
            (inputs if name == "INPUTS" else outputs).extend(names)
        elif name in SECTIONS:
            sections.setdefault(SECTIONS[name], []).extend(_formulas(text, clean, body_start, body_end))
        else:
            raise _error(text, start + m.start(), f"unknown section {name}", len(name))
    both = next((n for n in inputs if n in outputs), None)
    if both is not None:
        raise _error(text, clean.find(both, start), f"{both} is both an input and an output", len(both))
    declared = set(inputs) | set(outputs)
    spec = Tlsf(
        title, semantics, "strict" in kinds, tuple(inputs), tuple(outputs), {k: tuple(v) for k, v in sections.items()}
    )
    stray = next((a for a in spec.formula().aps() if a not in declared), None)
    if stray is not None:
        at = re.search(rf"(?<![\w@'.]){re.escape(stray)}(?![\w@'.])", clean[start:end])
        raise _error(text, start + (at.start() if at else 0), f"{stray} is neither an input nor an output", len(stray))
    return spec


def _blank_comments(text: str) -> str:
    """`text` with its comments turned into spaces (newlines kept: lines and columns stay)."""

    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group())

    return re.sub(r"//[^\n]*|/\*.*?(\*/|$)", blank, text, flags=re.S)


def _block(text: str, clean: str, name: str) -> tuple[int, int] | None:
    m = re.search(rf"\b{name}\s*\{{", clean)
    if m is None:
        return None
    return m.end(), _closing(text, clean, m.end() - 1)


def _closing(text: str, clean: str, opening: int) -> int:
    depth = 0
    for i in range(opening, len(clean)):
        if clean[i] == "{":
            depth += 1
        elif clean[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    raise _error(text, opening, "missing closing brace")


def _signals(text: str, clean: str, start: int, end: int) -> list[str]:
    names = []
    pos = start
    for part in clean[start:end].split(";"):
        word = part.strip()
        if word:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_@'.]*", word):
                at = pos + part.find(word)
                raise _error(text, at, f"not a signal name: {word!r} (buses and enumerations are full TLSF)", len(word))
            names.append(word)
        pos += len(part) + 1
    return names


def _formulas(text: str, clean: str, start: int, end: int) -> list[Formula]:
    out = []
    pos = start
    body = clean[start:end]
    for part in body.split(";"):  # the last formula's ; is optional, as syfco reads it
        if part.strip():
            out.append(_formula(text, part, pos))
        pos += len(part) + 1
    return out


def _formula(text: str, part: str, offset: int) -> Formula:
    toks: list[Token] = []
    for m in _TOKEN.finditer(part):
        if m.group().isspace():
            continue
        col, width = m.start(), m.end() - m.start()
        if m.group("bounded"):
            low, high = int(m.group("low")), m.group("high")
            bounds = (low, int(high) if high is not None else low)
            if bounds[1] < bounds[0]:
                raise _error(text, offset + col, "empty range", width)
            toks.append(("un", m.group("bounded"), col, width, UNARY_LEVEL, bounds))
            continue
        value = m.group("op") or _WORDS.get(m.group("word") or "", m.group("word"))
        if value in ("(", ")"):
            toks.append((value, value, col, width, 0.0))
        elif value in ("!", "X", "G", "F"):
            toks.append(("un", value, col, width, UNARY_LEVEL, None))
        elif value in LEVELS:
            toks.append(("bin", value, col, width, LEVELS[value]))
        else:
            toks.append(("atom", value, col, width, 0.0))
    covered = sum(m.end() - m.start() for m in _TOKEN.finditer(part))
    if covered != len(part):
        bad = next(i for i, c in enumerate(part) if not _covered(part, i))
        raise _error(text, offset + bad, f"unexpected character {part[bad]!r}")
    try:
        return read(part, toks, _Formulas())
    except ParseError as e:
        raise _error(text, offset + e.column, e.reason, e.length) from None


def _covered(part: str, i: int) -> bool:
    return any(m.start() <= i < m.end() for m in _TOKEN.finditer(part))


class _Formulas(Builder[Formula]):
    @staticmethod
    def leaf(tok: Token) -> Formula:
        word = tok[1]
        return TRUE if word == "true" else FALSE if word == "false" else ap(word)

    @staticmethod
    def unary(tok: Token, f: Formula) -> Formula:
        if tok[5] is None:
            return unop(tok[1], f)
        low, high = tok[5]
        return spell_out(tok[1], low, high, f)

    @staticmethod
    def binary(tok: Token, a: Formula, b: Formula) -> Formula:
        return binop(_BINARY[tok[1]], a, b)

    def describe(self, tok: Token) -> str:
        return "end of formula" if tok is None else repr(tok[1])


def _error(text: str, at: int, reason: str, length: int = 1) -> TlsfError:
    line = text.count("\n", 0, at) + 1
    begin = text.rfind("\n", 0, at) + 1
    stop = text.find("\n", at)
    return TlsfError(text[begin : stop if stop >= 0 else len(text)], at - begin, reason, length, line)
