"""An independent brute-force oracle for LTL modulo (integer) theories, over finite traces and
over lassos (infinite, ultimately periodic traces).

Shares nothing with `ltlwit`: formulas are this module's own trees (tuples), printed to text
for the tool to parse; terms, atoms and every operator, future and past, are evaluated straight
from their definitions over concrete states (every variable an integer, or an exact Fraction
for the Real domain's witnesses; every proposition a Boolean).

A trace is n states s_0..s_{n-1}, finite (the instants 0..n-1), or a lasso with loop start l
(`States.loop`): the infinite word s_0..s_{l-1} (s_l..s_{n-1})^omega, whose instant p >= n holds
the state s_{l + (p - l) mod (n - l)}: the data repeat with the loop too. Formulas are evaluated
at the absolute instants 0..N-1 (`Frame`): N = n for a finite trace; for a lasso the loop is
unrolled K times (N = l + K(n - l), `frame_for`), the past read over the genuine history
(so `prev` at s_l reads s_{l-1} on the first pass and s_{n-1} on later ones), the future
operators computed as fixpoints with the successor of N-1 being N-(n-l) (the start of the last
copy), which is exact once every subformula is periodic from there (`unroll_passes` says why K
copies are enough).

Evaluation is vectorised: `evaluate(f, states)` judges one formula on many traces of the same
shape at once (arrays of shape (traces, n)), so `search` can enumerate *every* finite trace of
length 1..L over a small value range, and `search_lasso` every lasso of length 1..L with every
loop start, and decide "a model of length <= L exists" exactly.

Formula trees:
    ("true",) ("false",) ("ap", name) ("atom", rel, t1, t2)
    (op, f) for op in ! X wX F G Y Z O H
    (op, f, g) for op in & | -> <-> U R S T
Term trees:
    ("var", name) ("num", k) ("+", a, b) ("-", a, b) ("neg", a) ("*", k, a) (k a constant int,
    printed `k * a`) ("*r", a, k) (printed `a * k`), the shifts ("next"|"wnext"|"prev"|"wprev", a)
    and FRET's ("preInt"|"preReal", init, e).

An atom at instant i (BLACK's reading): each node of a term is read at an absolute instant p:
the atom's terms at i; a shift's operand at p + 1 (next/wnext) or p - 1 (prev/wprev); a
`pre(init, e)` read at p reads `init` at p when p == 0 and e at p - 1 otherwise (so how a `pre`
is decided depends on the shifts and `pre`s around it). Each shift reads the instant it moves
to, and a variable its own; a read is *strong* when some shift on its way (this one included,
through the `pre`s actually taken) is next or prev, weak otherwise. A strong
read of an instant that does not exist (outside 0..n-1 on a finite trace; below 0 on a lasso)
makes the atom false; otherwise such a weak read makes it true; otherwise the comparison of the
(exact) values.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

Number = int | Fraction

UNARY = ("!", "X", "wX", "F", "G", "Y", "Z", "O", "H")
BINARY = ("&", "|", "->", "<->", "U", "R", "S", "T")
RELS = ("=", "!=", "<", "<=", ">", ">=")
SHIFTS = {"next": (1, True), "wnext": (1, False), "prev": (-1, True), "wprev": (-1, False)}
PRES = ("preInt", "preReal")  # (op, init, e): init at instant 0, e at the previous instant elsewhere
PAST = ("Y", "Z", "O", "H", "S", "T")


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
    if op in PRES:
        return f"{op}({term_text(t[1])}, {term_text(t[2])})"
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
    """Traces of n states each: `values[v]` int64 or object (Fractions) (traces, n), `props[p]`
    bool (traces, n); finite, or lassos looping back to state `loop` after state n-1."""

    n: int
    values: Mapping[str, np.ndarray]
    props: Mapping[str, np.ndarray]
    loop: int | None = None

    @property
    def count(self) -> int:
        arrays = list(self.values.values()) + list(self.props.values())
        return arrays[0].shape[0] if arrays else 1


@dataclass(frozen=True)
class Frame:
    """The absolute instants 0..size-1 at which formulas are evaluated on traces of n states
    (finite: size = n; a lasso with loop start `loop`: the loop unrolled, `frame_for`)."""

    n: int
    loop: int | None
    size: int

    @property
    def period(self) -> int:
        assert self.loop is not None
        return self.n - self.loop

    def columns(self, p: np.ndarray) -> np.ndarray:
        """The state read at each absolute instant p (any index where p does not exist: the
        atoms decide those by `missing` first)."""
        if self.loop is None:
            return np.clip(p, 0, self.n - 1)
        q = np.maximum(p, 0)
        return np.where(q < self.n, q, self.loop + (q - self.loop) % self.period)

    def missing(self, p: np.ndarray) -> np.ndarray:
        """Whether the instant p does not exist: outside 0..n-1 on a finite trace, below 0 on a
        lasso (an infinite trace)."""
        if self.loop is None:
            return (p < 0) | (p >= self.n)
        return p < 0

    @property
    def succ(self) -> np.ndarray:
        """The lasso's successor of each evaluated instant: i + 1, and after the last the start
        of the last copy of the loop."""
        s = np.arange(1, self.size + 1)
        s[-1] = self.size - self.period
        return s


def term_lookback(t: tuple) -> int:
    """How far back in time (at most) the term reads from the instant it is read at: every
    prev/wprev and every `pre` one step (next/wnext counted as 0, an over-estimate)."""
    op = t[0]
    if op in ("var", "num"):
        return 0
    if op in ("prev", "wprev"):
        return 1 + term_lookback(t[1])
    if op in PRES:
        return max(term_lookback(t[1]), 1 + term_lookback(t[2]))
    return max((term_lookback(c) for c in t[1:] if isinstance(c, tuple)), default=0)


def lookback(f: tuple) -> int:
    if f[0] == "atom":
        return max(term_lookback(f[2]), term_lookback(f[3]))
    return max((lookback(c) for c in f[1:] if isinstance(c, tuple)), default=0)


def past_depth(f: tuple) -> int:
    """The most past operators (Y Z O H S T) on one path from the root to a leaf."""
    if f[0] in ("atom", "ap", "true", "false"):
        return 0
    return (f[0] in PAST) + max(past_depth(c) for c in f[1:])


def unroll_passes(f: tuple, period: int) -> int:
    """How many copies K of a loop of length `period` the evaluation of f unrolls.

    With b = lookback(f), an atom at instant p >= l + b reads states at instants >= l only, and
    every `pre` on its way at an instant >= 1 (its e one step before it): its value is
    periodic (p and p + period agree) from l + b. Boolean and future operators keep the start
    of periodicity; Y/Z move it by 1, S/T/O/H by at most `period` (the argument of
    `ltl_reference.satisfies`). So every subformula is periodic from l + b + d*period (d =
    past_depth(f)), and the last copy starts at l + (K-1)*period, which is beyond that with
    K = d + 2 + ceil((b + 1) / period): one copy (and one instant) of margin."""
    b = lookback(f)
    return past_depth(f) + 2 + -(-(b + 1) // period)


def frame_for(f: tuple, st: States, extra_passes: int = 0) -> Frame:
    if st.loop is None:
        return Frame(st.n, None, st.n)
    assert 0 <= st.loop < st.n, "a lasso's loop is non-empty"
    period = st.n - st.loop
    return Frame(st.n, st.loop, st.loop + (unroll_passes(f, period) + extra_passes) * period)


def term_values(t: tuple, st: States, fr: Frame, pos: np.ndarray) -> np.ndarray:
    """The term read at the absolute instants `pos` (one per evaluated instant): (traces, size).
    Where a variable's instant does not exist any state is read: `atom_values` decides those
    atoms by `read_misses` instead."""
    op = t[0]
    if op == "var":
        return st.values[t[1]][:, fr.columns(pos)]
    if op == "num":
        return np.full((st.count, pos.size), t[1], dtype=np.int64)
    if op == "+":
        return term_values(t[1], st, fr, pos) + term_values(t[2], st, fr, pos)
    if op == "-":
        return term_values(t[1], st, fr, pos) - term_values(t[2], st, fr, pos)
    if op == "neg":
        return -term_values(t[1], st, fr, pos)
    if op == "*":
        return t[1] * term_values(t[2], st, fr, pos)
    if op == "*r":
        return term_values(t[1], st, fr, pos) * t[2]
    if op in SHIFTS:
        return term_values(t[1], st, fr, pos + SHIFTS[op][0])
    if op in PRES:  # init where read at instant 0, e one instant earlier elsewhere
        return np.where(pos == 0, term_values(t[1], st, fr, pos), term_values(t[2], st, fr, pos - 1))
    raise ValueError(f"unknown term {t!r}")


def read_misses(t: tuple, fr: Frame, pos: np.ndarray, strong: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(strong, weak): per evaluated instant, whether the term, read at `pos`, reads a missing
    instant through a strong shift / through weak ones only; a `pre` passes `strong` on to the
    operand it actually reads there."""
    op = t[0]
    none = np.zeros(pos.size, dtype=bool)
    if op == "var":
        m = fr.missing(pos)
        return (m, none) if strong else (none, m)
    if op == "num":
        return none, none
    if op in SHIFTS:  # the shift reads its own instant, whatever its operand reads
        step, s = SHIFTS[op]
        m = fr.missing(pos + step)
        cs, cw = read_misses(t[1], fr, pos + step, strong or s)
        return (cs | m, cw) if strong or s else (cs, cw | m)
    if op in PRES:
        first = pos == 0
        si, wi = read_misses(t[1], fr, pos, strong)
        se, we = read_misses(t[2], fr, pos - 1, strong)
        return np.where(first, si, se), np.where(first, wi, we)
    sm, wm = none, none
    for c in t[1:]:
        if isinstance(c, tuple):
            s, w = read_misses(c, fr, pos, strong)
            sm, wm = sm | s, wm | w
    return sm, wm


_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def atom_values(f: tuple, st: States, fr: Frame) -> np.ndarray:
    _, rel, a, b = f
    pos = np.arange(fr.size)
    sa, wa = read_misses(a, fr, pos)
    sb, wb = read_misses(b, fr, pos)
    cmp = _CMP[rel](term_values(a, st, fr, pos), term_values(b, st, fr, pos)).astype(bool)  # object arrays too
    cmp = np.broadcast_to(cmp, (st.count, fr.size))
    return np.where(sa | sb, False, np.where(wa | wb, True, cmp))


def evaluate_all(f: tuple, st: States, fr: Frame | None = None) -> np.ndarray:
    """f's truth value at every evaluated instant of every trace: bool (traces, size), by the
    definitions (past operators over the genuine history; future ones to the end of a finite
    trace, or as fixpoints around the lasso)."""
    fr = fr or frame_for(f, st)
    N, size = st.count, fr.size
    op = f[0]
    if op == "true":
        return np.ones((N, size), dtype=bool)
    if op == "false":
        return np.zeros((N, size), dtype=bool)
    if op == "ap":
        return st.props[f[1]][:, fr.columns(np.arange(size))]
    if op == "atom":
        return atom_values(f, st, fr)
    a = evaluate_all(f[1], st, fr)
    b = evaluate_all(f[2], st, fr) if op in BINARY else None
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
    out = np.zeros((N, size), dtype=bool)
    if op in ("X", "wX"):  # the next instant; on a finite trace X is false and wX true at the last
        if fr.loop is not None:
            return a[:, fr.succ]
        out[:, :-1] = a[:, 1:]
        out[:, -1] = op == "wX"
        return out
    if op in ("Y", "Z"):  # the previous instant; Y false and Z true at instant 0
        out[:, 1:] = a[:, :-1]
        out[:, 0] = op == "Z"
        return out
    ones = np.ones((N, size), dtype=bool)
    if op in ("O", "H", "S", "T"):
        # f S g at i: g at some j <= i, f at j+1..i: g(i) | (f(i) & (f S g)(i-1)), false before 0;
        # f T g = !(!f S !g): g(i) & (f(i) | (f T g)(i-1)), true before 0; O g = true S g, H g = false T g
        f1, g1 = {"O": (ones, a), "H": (~ones, a), "S": (a, b), "T": (a, b)}[op]
        since = op in ("O", "S")
        before = np.full(N, not since)
        for i in range(size):
            before = (g1[:, i] | (f1[:, i] & before)) if since else (g1[:, i] & (f1[:, i] | before))
            out[:, i] = before
        return out
    # F g = true U g, G g = false R g; f U g: g at some j >= i, f at i..j-1; f R g = !(!f U !g)
    f1, g1 = {"F": (ones, a), "G": (~ones, a), "U": (a, b), "R": (a, b)}[op]
    until = op in ("F", "U")
    if fr.loop is None:  # backwards from the end: f U g false after the last instant, f R g true
        after = np.full(N, not until)
        for i in range(size - 1, -1, -1):
            after = (g1[:, i] | (f1[:, i] & after)) if until else (g1[:, i] & (f1[:, i] | after))
            out[:, i] = after
        return out
    # around the lasso: U the least fixpoint of u = g | (f & u∘succ), R the greatest of
    # r = g & (f | r∘succ); every instant reaches the loop within `size` steps
    succ = fr.succ
    cur = np.full((N, size), not until)
    for _ in range(size + 1):
        nxt = (g1 | (f1 & cur[:, succ])) if until else (g1 & (f1 | cur[:, succ]))
        if np.array_equal(nxt, cur):
            break
        cur = nxt
    else:
        raise AssertionError("no fixpoint within the lasso's length")
    return cur


def evaluate(f: tuple, st: States, extra_passes: int = 0) -> np.ndarray:
    """Whether each trace satisfies f (at instant 0): bool (traces,). `extra_passes`: copies of
    a lasso's loop unrolled beyond `unroll_passes` (the answer is the same: a check of that)."""
    return evaluate_all(f, st, frame_for(f, st, extra_passes))[:, 0]


def states_of(f: tuple, trace: Sequence[Mapping[str, Number | bool]], loop: int | None = None) -> States:
    """One concrete trace as States: a list of states, each a dict of every variable's value (an
    int, or a Fraction: exact rational arithmetic) and every proposition's bool (a proposition a
    state leaves out is false); a lasso looping back to state `loop` when given."""
    n = len(trace)
    assert n > 0, "traces are non-empty"
    assert loop is None or 0 <= loop < n, "a lasso's loop is non-empty"
    values = {}
    for v in variables(f):
        column = [s[v] for s in trace]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in column):
            values[v] = np.array([column], dtype=np.int64)
        else:
            values[v] = np.array([[Fraction(x) for x in column]], dtype=object)
    props = {p: np.array([[bool(s.get(p, False)) for s in trace]], dtype=bool) for p in propositions(f)}
    return States(n, values, props, loop)


def holds_on(
    f: tuple, trace: Sequence[Mapping[str, Number | bool]], loop: int | None = None, extra_passes: int = 0
) -> bool:
    """f on one concrete trace (`states_of`): finite, or the lasso trace[:loop] trace[loop:]^omega."""
    return bool(evaluate(f, states_of(f, trace, loop), extra_passes)[0])


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
    idx = np.arange(S**n, dtype=np.int64)
    digits = np.stack([(idx // S**i) % S for i in range(n)], axis=1)  # (N, n): letter index per instant
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
            return [
                {**{v: _plain(st.values[v][k, i]) for v in vs}, **{p: bool(st.props[p][k, i]) for p in ps}}
                for i in range(n)
            ]
    return None


def lasso_max_length(f: tuple, size: int, least: int = 3, cap: int = 4, limit: int = 100_000) -> int:
    """The longest lasso length (at least `least`) whose every lasso (every loop start, values
    from a domain of `size`) the search affords, up to `cap`."""
    S = letters_count(f, size)
    n = least
    while n < cap and S ** (n + 1) * (n + 1) <= limit:
        n += 1
    return n


def search_lasso(f: tuple, domain: Sequence[Number], L: int) -> tuple[list[dict], int] | None:
    """A shortest lasso model (states, loop start) of f of length <= L with values from
    `domain` (every loop start tried), or None when there is none."""
    vs, ps = sorted(variables(f)), sorted(propositions(f))
    for n in range(1, L + 1):
        st = all_traces(n, vs, ps, domain)
        for loop in range(n - 1, -1, -1):
            lasso = States(n, st.values, st.props, loop)
            good = np.flatnonzero(evaluate(f, lasso))
            if good.size:
                k = int(good[0])
                return [
                    {**{v: _plain(st.values[v][k, i]) for v in vs}, **{p: bool(st.props[p][k, i]) for p in ps}}
                    for i in range(n)
                ], loop
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


def witness_holds(
    f: tuple, steps: Sequence[str], samples: int = 1 << 14, seed: int = 0, loop: int | None = None
) -> bool:
    """Whether every concrete trace the symbolic witness (its steps' text) stands for satisfies
    f: each step must give every variable of f a value (ValueError otherwise); a proposition a
    step leaves out may be either: every completion is checked when there are at most
    2^EXACT_FREE of them, otherwise all-false, all-true and `samples` random ones (seeded).
    With `loop`, the steps are a lasso looping back to step `loop` (prefix steps[:loop], cycle
    steps[loop:]); a free proposition of the cycle is completed alike on every pass (those
    words are some of the ones the witness stands for)."""
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
        bits = np.concatenate(
            [
                np.zeros((1, len(free)), dtype=bool),
                np.ones((1, len(free)), dtype=bool),
                rng.random((samples, len(free))) < 0.5,
            ]
        )
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
    return bool(evaluate(f, States(n, values, props, loop)).all())


def _number_text(v: Number) -> str:
    v = Fraction(v)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{v.numerator} / {v.denominator}"


def trace_text(trace: Sequence[Mapping[str, int | bool]], loop: int | None = None) -> str:
    """A concrete trace in the tool's trace syntax: `x = 1 & p; x = -2 & !p`; with `loop`, the
    lasso `x = 1 & p; cycle{x = -2 & !p}` (loop = 1)."""
    steps = []
    for state in trace:
        lits = [
            k if v is True else f"!{k}" if v is False else f"{k} = {_number_text(v)}" for k, v in sorted(state.items())
        ]
        steps.append(" & ".join(lits) if lits else "true")
    if loop is None:
        return "; ".join(steps)
    return "; ".join(steps[:loop] + ["cycle{" + "; ".join(steps[loop:]) + "}"])


# --------------------------------------------------------------------------- random formulas


class Generator:
    """Seeded random formulas over the integer variables `vs` and the propositions `ps`; with
    `pre` ("preInt" or "preReal"), terms take that `pre` call too, and atoms are a level deeper,
    so that `pre` comes under shifts, shifts under `pre` and `pre` inside `pre`."""

    def __init__(self, rng: random.Random, vs: Sequence[str], ps: Sequence[str], pre: str | None = None) -> None:
        assert pre is None or pre in PRES
        self.rng, self.vs, self.ps, self.pre = rng, list(vs), list(ps), pre

    def term(self, depth: int) -> tuple:
        r = self.rng
        if depth <= 0 or r.random() < 0.35:
            return ("var", r.choice(self.vs)) if r.random() < 0.75 else ("num", r.randint(-2, 2))
        if self.pre is None:
            kind = r.choices(
                ["+", "-", "neg", "*", "*r", "next", "wnext", "prev", "wprev"], weights=[2, 2, 1, 1, 1, 3, 3, 3, 3]
            )[0]
        else:
            kind = r.choices(
                ["+", "-", "neg", "*", "*r", "next", "wnext", "prev", "wprev", "pre"],
                weights=[2, 2, 1, 1, 1, 3, 3, 3, 3, 6],
            )[0]
        if kind in ("+", "-"):
            return (kind, self.term(depth - 1), self.term(depth - 1))
        if kind == "*":
            return ("*", r.randint(-2, 3), self.term(depth - 1))
        if kind == "*r":
            return ("*r", self.term(depth - 1), r.randint(-2, 3))
        if kind == "pre":
            init = ("num", r.randint(-2, 2)) if r.random() < 0.5 else self.term(depth - 1)
            return (self.pre, init, self.term(depth - 1))
        return (kind, self.term(depth - 1))

    def atom(self) -> tuple:
        r = self.rng
        rel = r.choice(RELS)
        deep = self.pre is not None
        left = self.term(3 if deep else 2)
        right = self.term(2 if deep else 1) if r.random() < 0.6 else ("num", r.randint(-2, 2))
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
