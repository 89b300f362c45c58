"""An independent brute-force oracle for LTL over finite traces modulo (integer) theories.

Shares nothing with `ltlwit`: formulas are this module's own trees (tuples), printed to text
for the tool to parse; terms, atoms and every operator, future and past, are evaluated straight
from their definitions over the instants 0..n-1 of a finite, non-empty trace of concrete states
(every variable an integer, or an exact Fraction for the Real domain's witnesses; every
proposition a Boolean).

Evaluation is vectorised: `evaluate(f, states)` judges one formula on N traces of the same
length n at once (arrays of shape (N, n)), so `search` can enumerate *every* trace of length
1..L over a small value range and decide "a model of length <= L exists" exactly.

Formula trees:
    ("true",) ("false",) ("ap", name) ("atom", rel, t1, t2)
    (op, f) for op in ! X wX F G Y Z O H
    (op, f, g) for op in & | -> <-> U R S T
Term trees:
    ("var", name) ("num", k) ("+", a, b) ("-", a, b) ("neg", a) ("*", k, a) (k a constant int,
    printed `k * a`) ("*r", a, k) (printed `a * k`) and the shifts ("next"|"wnext"|"prev"|"wprev", a).

An atom at instant i (BLACK's reading): every variable occurrence reads instant i + offset
(next/wnext: +1, prev/wprev: -1, nested shifts add up) and is *strong* when some shift on its way
is next or prev. A strong occurrence reading outside 0..n-1 makes the atom false; otherwise a weak
one reading outside makes it true; otherwise the comparison of the (exact) values.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator, Mapping, Sequence

import numpy as np

Number = int | Fraction

UNARY = ("!", "X", "wX", "F", "G", "Y", "Z", "O", "H")
BINARY = ("&", "|", "->", "<->", "U", "R", "S", "T")
RELS = ("=", "!=", "<", "<=", ">", ">=")
SHIFTS = {"next": (1, True), "wnext": (1, False), "prev": (-1, True), "wprev": (-1, False)}


# --------------------------------------------------------------------------- printing

def term_text(t: tuple) -> str:
    op = t[0]
    if op == "var":
        return t[1]
    if op == "num":
        return str(t[1])
    if op in ("+", "-"):
        return f"({term_text(t[1])} {op} {term_text(t[2])})"
    if op == "neg":
        return f"(- {term_text(t[1])})"
    if op == "*":
        return f"({t[1]} * {term_text(t[2])})"
    if op == "*r":
        return f"({term_text(t[1])} * {t[2]})"
    if op in SHIFTS:
        return f"{op}({term_text(t[1])})"
    raise ValueError(f"unknown term {t!r}")


def text(f: tuple) -> str:
    """The formula fully parenthesised, in the tool's input syntax."""
    op = f[0]
    if op in ("true", "false"):
        return op
    if op == "ap":
        return f[1]
    if op == "atom":
        return f"({term_text(f[2])} {f[1]} {term_text(f[3])})"
    if op in UNARY:
        return f"({op} {text(f[1])})"
    if op in BINARY:
        return f"({text(f[1])} {op} {text(f[2])})"
    raise ValueError(f"unknown formula {f!r}")


def term_vars(t: tuple) -> set[str]:
    if t[0] == "var":
        return {t[1]}
    if t[0] == "num":
        return set()
    return set().union(*(term_vars(c) for c in t[1:] if isinstance(c, tuple)))


def variables(f: tuple) -> set[str]:
    if f[0] == "atom":
        return term_vars(f[2]) | term_vars(f[3])
    return set().union(set(), *(variables(c) for c in f[1:] if isinstance(c, tuple)))


def propositions(f: tuple) -> set[str]:
    if f[0] == "ap":
        return {f[1]}
    if f[0] == "atom":
        return set()
    return set().union(set(), *(propositions(c) for c in f[1:] if isinstance(c, tuple)))


def bounded(f: tuple, lo: int, hi: int) -> tuple:
    """f & G(v >= lo & v <= hi) for each of its variables: the solver's domain made the reference's."""
    out = f
    for v in sorted(variables(f)):
        box = ("G", ("&", ("atom", ">=", ("var", v), ("num", lo)), ("atom", "<=", ("var", v), ("num", hi))))
        out = ("&", out, box)
    return out


# --------------------------------------------------------------------------- evaluation

@dataclass
class States:
    """N traces of n instants: `values[v]` int64 (N, n), `props[p]` bool (N, n)."""

    n: int
    values: Mapping[str, np.ndarray]
    props: Mapping[str, np.ndarray]

    @property
    def count(self) -> int:
        arrays = list(self.values.values()) + list(self.props.values())
        return arrays[0].shape[0] if arrays else 1


def occurrences(t: tuple, offset: int = 0, strong: bool = False) -> Iterator[tuple[str, int, bool]]:
    op = t[0]
    if op == "var":
        yield t[1], offset, strong
    elif op == "num":
        return
    elif op in SHIFTS:
        step, s = SHIFTS[op]
        yield from occurrences(t[1], offset + step, strong or s)
    else:
        for c in t[1:]:
            if isinstance(c, tuple):
                yield from occurrences(c, offset, strong)


def term_values(t: tuple, st: States, offset: int) -> np.ndarray:
    """The term's value at every instant i, each occurrence read at i + its offset (clipped to
    the trace: where it falls outside, the atom's value is decided by `atom_values` instead)."""
    op = t[0]
    n = st.n
    if op == "var":
        cols = np.clip(np.arange(n) + offset, 0, n - 1)
        return st.values[t[1]][:, cols]
    if op == "num":
        return np.full((st.count, n), t[1], dtype=np.int64)
    if op == "+":
        return term_values(t[1], st, offset) + term_values(t[2], st, offset)
    if op == "-":
        return term_values(t[1], st, offset) - term_values(t[2], st, offset)
    if op == "neg":
        return -term_values(t[1], st, offset)
    if op == "*":
        return t[1] * term_values(t[2], st, offset)
    if op == "*r":
        return term_values(t[1], st, offset) * t[2]
    if op in SHIFTS:
        return term_values(t[1], st, offset + SHIFTS[op][0])
    raise ValueError(f"unknown term {t!r}")


_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}


def atom_values(f: tuple, st: States) -> np.ndarray:
    _, rel, a, b = f
    n = st.n
    occ = list(occurrences(a)) + list(occurrences(b))
    strong_missing = np.array([any(s and not 0 <= i + o < n for _, o, s in occ) for i in range(n)])
    weak_missing = np.array([any(not s and not 0 <= i + o < n for _, o, s in occ) for i in range(n)])
    cmp = _CMP[rel](term_values(a, st, 0), term_values(b, st, 0)).astype(bool)  # object arrays (Fractions) too
    cmp = np.broadcast_to(cmp, (st.count, n))
    return np.where(strong_missing, False, np.where(weak_missing, True, cmp))


def evaluate_all(f: tuple, st: States) -> np.ndarray:
    """f's truth value at every instant of every trace: bool (N, n), by the definitions."""
    n, N = st.n, st.count
    op = f[0]
    if op == "true":
        return np.ones((N, n), dtype=bool)
    if op == "false":
        return np.zeros((N, n), dtype=bool)
    if op == "ap":
        return st.props[f[1]]
    if op == "atom":
        return atom_values(f, st)
    a = evaluate_all(f[1], st)
    b = evaluate_all(f[2], st) if op in BINARY else None
    out = np.zeros((N, n), dtype=bool)
    if op == "!":
        return ~a
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "->":
        return ~a | b
    if op == "<->":
        return a == b
    for i in range(n):
        if op == "X":  # strong next: i+1 exists and f there
            out[:, i] = a[:, i + 1] if i + 1 < n else False
        elif op == "wX":  # weak next: no instant i+1, or f there
            out[:, i] = a[:, i + 1] if i + 1 < n else True
        elif op == "Y":
            out[:, i] = a[:, i - 1] if i > 0 else False
        elif op == "Z":
            out[:, i] = a[:, i - 1] if i > 0 else True
        elif op == "F":
            out[:, i] = a[:, i:].any(axis=1)
        elif op == "G":
            out[:, i] = a[:, i:].all(axis=1)
        elif op == "O":
            out[:, i] = a[:, : i + 1].any(axis=1)
        elif op == "H":
            out[:, i] = a[:, : i + 1].all(axis=1)
        elif op in ("U", "R"):  # f U g: some j >= i with g at j and f at i..j-1; f R g = !(!f U !g)
            f1, g1 = (a, b) if op == "U" else (~a, ~b)
            acc = np.zeros(N, dtype=bool)
            for j in range(i, n):
                acc |= g1[:, j] & f1[:, i:j].all(axis=1)
            out[:, i] = acc if op == "U" else ~acc
        elif op in ("S", "T"):  # f S g: some j <= i with g at j and f at j+1..i; f T g = !(!f S !g)
            f1, g1 = (a, b) if op == "S" else (~a, ~b)
            acc = np.zeros(N, dtype=bool)
            for j in range(0, i + 1):
                acc |= g1[:, j] & f1[:, j + 1: i + 1].all(axis=1)
            out[:, i] = acc if op == "S" else ~acc
        else:
            raise ValueError(f"unknown formula {f!r}")
    return out


def evaluate(f: tuple, st: States) -> np.ndarray:
    """Whether each of the N traces satisfies f (at instant 0): bool (N,)."""
    return evaluate_all(f, st)[:, 0]


def holds_on(f: tuple, trace: Sequence[Mapping[str, Number | bool]]) -> bool:
    """f on one concrete trace: a list of states, each a dict of every variable's value (an int,
    or a Fraction: exact rational arithmetic) and every proposition's bool (a proposition a state
    leaves out is false)."""
    n = len(trace)
    assert n > 0, "finite traces are non-empty"
    vs, ps = variables(f), propositions(f)
    values = {}
    for v in vs:
        column = [s[v] for s in trace]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in column):
            values[v] = np.array([column], dtype=np.int64)
        else:
            values[v] = np.array([[Fraction(x) for x in column]], dtype=object)
    props = {p: np.array([[bool(s.get(p, False)) for s in trace]], dtype=bool) for p in ps}
    return bool(evaluate(f, States(n, values, props))[0])


# --------------------------------------------------------------------------- exhaustive search

def value_range(lo: int, hi: int, halves: bool = False) -> list[Number]:
    """lo..hi, with the halves between them too when `halves` (exact Fractions)."""
    if not halves:
        return list(range(lo, hi + 1))
    return [Fraction(k, 2) for k in range(2 * lo, 2 * hi + 1)]


def _column(values: Sequence[Number]) -> np.ndarray:
    if all(isinstance(v, int) or (isinstance(v, Fraction) and v.denominator == 1) for v in values):
        return np.array([int(v) for v in values], dtype=np.int64)
    return np.array([Fraction(v) for v in values], dtype=object)


def all_traces(n: int, vs: Sequence[str], ps: Sequence[str], domain: Sequence[Number]) -> States:
    """Every trace of n instants over the values `domain` for `vs` and both values for `ps`."""
    letters = list(itertools.product(range(len(domain)), repeat=len(vs)))
    letters = [(vals, bits) for vals in letters for bits in itertools.product((False, True), repeat=len(ps))]
    S = len(letters)
    idx = np.arange(S ** n, dtype=np.int64)
    digits = np.stack([(idx // S ** i) % S for i in range(n)], axis=1)  # (N, n): letter index per instant
    column = _column(domain)
    val_table = np.array([vals for vals, _ in letters], dtype=np.int64).reshape(S, len(vs))
    bit_table = np.array([bits for _, bits in letters], dtype=bool).reshape(S, len(ps))
    values = {v: column[val_table[:, k][digits]] for k, v in enumerate(vs)}
    props = {p: bit_table[:, k][digits] for k, p in enumerate(ps)}
    return States(n, values, props)


def letters_count(f: tuple, size: int) -> int:
    """How many states a trace of f's variables (over `size` values) and propositions has."""
    return size ** len(variables(f)) * 2 ** len(propositions(f))


def max_length(f: tuple, size: int, cap: int = 5, limit: int = 200_000) -> int:
    """The longest length whose every trace (values from a domain of `size`) the search can
    afford (at least 1)."""
    S = letters_count(f, size)
    n = 1
    while n < cap and S ** (n + 1) <= limit:
        n += 1
    return n


def search(f: tuple, domain: Sequence[Number], L: int) -> list[dict] | None:
    """A shortest model of f of length <= L with values from `domain`, or None when there is none."""
    vs, ps = sorted(variables(f)), sorted(propositions(f))
    for n in range(1, L + 1):
        st = all_traces(n, vs, ps, domain)
        good = np.flatnonzero(evaluate(f, st))
        if good.size:
            k = int(good[0])
            return [{**{v: _plain(st.values[v][k, i]) for v in vs}, **{p: bool(st.props[p][k, i]) for p in ps}}
                    for i in range(n)]
    return None


def scaled_numerals(f: tuple, k: int) -> tuple:
    """f with every numeral multiplied by k > 0 (the plain-int coefficients of `*` left alone:
    they are not `num` nodes). Terms are affine in the variables, so f holds of values v exactly
    when this holds of k * v: a search over the integers of this is a search over the multiples
    of 1/k for f, in int64 arithmetic."""
    assert k > 0
    if f[0] == "num":
        return ("num", f[1] * k)
    return (f[0],) + tuple(scaled_numerals(c, k) if isinstance(c, tuple) else c for c in f[1:])


def _plain(v) -> Number:
    return Fraction(v) if isinstance(v, Fraction) else int(v)


# --------------------------------------------------------------------------- witnesses

_VALUE = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)\s*=\s*(.*[0-9].*)$")
#: A value as a witness writes it: `3`, `-2`, `2.5`, `7.0`, `1 / 3`, `-(1.0 / 3)`, `(-2 / 3)`.
_NUMBER = re.compile(r"^(-?)\s*\(?\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?))?\s*\)?$")


def parse_number(text: str) -> Number:
    """An int when the witness writes an integer numeral, otherwise an exact Fraction."""
    m = _NUMBER.match(text.strip())
    if not m or text.count("(") != text.count(")"):
        raise ValueError(f"unexpected value {text!r}")
    sign, num, den = m.groups()
    if den is None and "." not in num:
        value: Number = int(num)
    else:
        value = Fraction(num) / (Fraction(den) if den is not None else 1)
    return -value if sign else value
_LITERAL = re.compile(r"^(!?)\s*([A-Za-z_][A-Za-z_0-9]*)$")


def parse_step(step: str) -> tuple[dict[str, Number], dict[str, bool]]:
    """`p & !q & x = 3 & y = -1` -> ({x: 3, y: -1}, {p: True, q: False}); `true`/`1` is empty;
    Real values (`x = 2.5`, `x = -(1.0 / 3)`) become Fractions. Anything else raises ValueError."""
    values: dict[str, Number] = {}
    props: dict[str, bool] = {}
    body = step.strip()
    if body in ("true", "1", ""):
        return values, props
    for lit in body.split("&"):
        lit = lit.strip()
        m = _VALUE.match(lit)
        if m:
            value = parse_number(m.group(2))
            if m.group(1) in values and values[m.group(1)] != value:
                raise ValueError(f"two values for {m.group(1)} in step {step!r}")
            values[m.group(1)] = value
            continue
        m = _LITERAL.match(lit)
        if m and m.group(2) not in ("true", "false"):
            props[m.group(2)] = m.group(1) != "!"
            continue
        raise ValueError(f"unexpected literal {lit!r} in witness step {step!r}")
    return values, props


#: Free propositions (step, name) a witness may leave out before its completions are sampled
#: rather than all enumerated.
EXACT_FREE = 16


def witness_holds(f: tuple, steps: Sequence[str], samples: int = 1 << 14, seed: int = 0) -> bool:
    """Whether every concrete trace the symbolic witness (its steps' text) stands for satisfies
    f: each step must give every variable of f a value (ValueError otherwise); a proposition a
    step leaves out may be either: every completion is checked when there are at most
    2^EXACT_FREE of them, otherwise all-false, all-true and `samples` random ones (seeded)."""
    parsed = [parse_step(s) for s in steps]
    vs, ps = sorted(variables(f)), sorted(propositions(f))
    n = len(parsed)
    for i, (values, _) in enumerate(parsed):
        missing = [v for v in vs if v not in values]
        if missing:
            raise ValueError(f"witness step {i} ({steps[i]!r}) gives no value to {', '.join(missing)}")
    free = [(i, p) for i, (_, props) in enumerate(parsed) for p in ps if p not in props]
    if len(free) <= EXACT_FREE:
        codes = np.arange(1 << len(free), dtype=np.int64)
        bits = ((codes[:, None] >> np.arange(len(free))) & 1).astype(bool)  # (N, free)
    else:
        rng = np.random.default_rng(seed)
        bits = np.concatenate([np.zeros((1, len(free)), dtype=bool), np.ones((1, len(free)), dtype=bool),
                               rng.random((samples, len(free))) < 0.5])
    N = bits.shape[0]
    values = {}
    for v in vs:
        row = _column([values_at[v] for values_at, _ in parsed])
        values[v] = np.repeat(row[None, :], N, axis=0)
    props = {}
    for p in ps:
        column = np.array([[bool(props_at.get(p, False)) for _, props_at in parsed]], dtype=bool).repeat(N, axis=0)
        for k, (i, q) in enumerate(free):
            if q == p:
                column[:, i] = bits[:, k]
        props[p] = column
    return bool(evaluate(f, States(n, values, props)).all())


def _number_text(v: Number) -> str:
    v = Fraction(v)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{v.numerator} / {v.denominator}"


def trace_text(trace: Sequence[Mapping[str, int | bool]]) -> str:
    """A concrete trace in the tool's trace syntax: `x = 1 & p; x = -2 & !p`."""
    steps = []
    for state in trace:
        lits = [k if v is True else f"!{k}" if v is False else f"{k} = {_number_text(v)}"
                for k, v in sorted(state.items())]
        steps.append(" & ".join(lits) if lits else "true")
    return "; ".join(steps)


# --------------------------------------------------------------------------- random formulas

class Generator:
    """Seeded random formulas over the integer variables `vs` and the propositions `ps`."""

    def __init__(self, rng: random.Random, vs: Sequence[str], ps: Sequence[str]) -> None:
        self.rng, self.vs, self.ps = rng, list(vs), list(ps)

    def term(self, depth: int) -> tuple:
        r = self.rng
        if depth <= 0 or r.random() < 0.35:
            return ("var", r.choice(self.vs)) if r.random() < 0.75 else ("num", r.randint(-2, 2))
        kind = r.choices(["+", "-", "neg", "*", "*r", "next", "wnext", "prev", "wprev"],
                         weights=[2, 2, 1, 1, 1, 3, 3, 3, 3])[0]
        if kind in ("+", "-"):
            return (kind, self.term(depth - 1), self.term(depth - 1))
        if kind == "*":
            return ("*", r.randint(-2, 3), self.term(depth - 1))
        if kind == "*r":
            return ("*r", self.term(depth - 1), r.randint(-2, 3))
        return (kind, self.term(depth - 1))

    def atom(self) -> tuple:
        r = self.rng
        rel = r.choice(RELS)
        left = self.term(2)
        right = self.term(1) if r.random() < 0.6 else ("num", r.randint(-2, 2))
        return ("atom", rel, left, right)

    def formula(self, size: int) -> tuple:
        r = self.rng
        if size <= 0:
            x = r.random()
            if x < 0.05:
                return (r.choice(["true", "false"]),)
            if self.ps and x < 0.3:
                return ("ap", r.choice(self.ps))
            return self.atom()
        if r.random() < 0.5:
            return (r.choice(UNARY), self.formula(size - 1))
        left = r.randint(0, size - 1)
        return (r.choice(BINARY), self.formula(left), self.formula(size - 1 - left))
