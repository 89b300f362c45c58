"""Differential test of LTLf modulo theories (`ltl.solve(..., semantics="finite",
declarations=...)` and `ltl.holds` on data traces) against the brute-force oracle in
`data_reference`, which shares no code with ltlwit: it generates its own formula trees, prints
them as text for `parse_formula`, and decides them by enumerating every trace of length 1..L over
a small value range.

Per random formula f (seeded, so every run checks the same ones), with B the bounded formula
f & G(lo <= v <= hi) for each variable v (the solver's domain made the reference's):
- Int domain, B: Unsat only when the reference finds no model of length <= L; a Sat witness is a
  finite trace that the reference and `ltl.holds` both accept; a model of length <= L rules Unsat
  out; Unknown is allowed, but rare.
- Int domain, f (no bound): a model the reference found (a model of f too) rules Unsat out; a Sat
  witness satisfies f by the reference and by `ltl.holds`.
- Real domain, B: an integer model is a real one, so it rules Unsat out; a Sat witness (rational
  values) satisfies B by the reference (exact Fractions) and by `ltl.holds`.
And `ltl.holds` agrees with the reference on a few hundred random (formula, concrete trace) pairs.
Each test collects every disagreement and fails listing them all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import pytest

import data_reference as R
from ltlf_reference import satisfies_finite
from ltlwit.logic import ltl
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.theory.sorts import INT, REAL, Declarations

SEED = 20240611
COUNT = 180  # random formulas
PAIRS = 400  # random (formula, trace) pairs for `holds`
BUDGET_SECONDS = 3
MAX_UNKNOWN_RATE = 0.10


def ints() -> Declarations:
    return Declarations(domain=INT)


def reals() -> Declarations:
    return Declarations(domain=REAL)


@dataclass(frozen=True)
class Case:
    formula: tuple  # the reference's tree, without the bound
    lo: int
    hi: int
    longest: int | None = None  # reference search length; None: as long as affordable

    @property
    def bounded(self) -> tuple:
        return R.bounded(self.formula, self.lo, self.hi)

    @property
    def length(self) -> int:
        return self.longest or R.max_length(self.bounded, self.hi - self.lo + 1)


def _and(*fs: tuple) -> tuple:
    out = fs[0]
    for f in fs[1:]:
        out = ("&", out, f)
    return out


def _xs(k: int) -> tuple:
    """X X ... X true (k times): at least k + 1 instants."""
    out: tuple = ("true",)
    for _ in range(k):
        out = ("X", out)
    return out


def _random_cases(seed: int, count: int) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        vs = ["x"] if rng.random() < 0.45 else ["x", "y"]
        ps = [] if rng.random() < 0.5 else ["p"]
        f = R.Generator(rng, vs, ps).formula(rng.randint(1, 8))
        if not R.variables(f):
            continue  # a data formula: at least one variable
        if rng.random() < 0.4:  # demand a few instants: the shifts then meet both ends of the trace
            f = ("&", f, _xs(rng.randint(1, 3)))
        lo, hi = (-1, 1) if len(R.variables(f)) == 2 else (-1, 2)
        cases.append(Case(f, lo, hi))
    return cases


def _atom(rel: str, a, b) -> tuple:
    return ("atom", rel, a, b)


X_, Y_ = ("var", "x"), ("var", "y")


def _n(k: int) -> tuple:
    return ("num", k)


# Hand-written cases: models longer than the random ones need, and proofs across shifts. Each
# has a model of length <= its search length, or none at all (the comments say why).
LAST = ("!", _xs(1))  # the last instant

HANDWRITTEN = [
    # x counts 0, 1, ..., 5: the shortest model has 6 instants
    Case(_and(_atom("=", X_, _n(0)), ("G", _atom("=", ("wnext", X_), ("+", X_, _n(1)))),
              ("F", _atom("=", X_, _n(5)))), 0, 5, longest=6),
    # the same count backwards, read with wprev: 4, 3, 2, 1, 0 and then the end
    Case(_and(_atom("=", X_, _n(4)), ("G", _atom("=", ("wprev", X_), ("+", X_, _n(1)))),
              ("F", _and(_atom("=", X_, _n(0)), LAST))), 0, 4, longest=6),
    # strictly increasing forever: no finite model (the last instant has no next)
    Case(("G", _atom("<", X_, ("next", X_))), -1, 2),
    # weakly: the last instant is fine, and values in -1..2 allow 4 instants, not 5
    Case(_and(("G", _atom("<", X_, ("wnext", X_))), _xs(3)), -1, 2),
    Case(_and(("G", _atom("<", X_, ("wnext", X_))), _xs(4)), -1, 2),
    # prev at instant 0 is false (strong): no model; wprev there is true
    Case(_atom("=", ("prev", X_), X_), -1, 1),
    Case(_and(_atom("=", ("wprev", X_), _n(7)), _atom("=", X_, _n(0))), -1, 1),
    # prev(next(x)) reads x's own instant, even at instant 0: no model
    Case(_atom("!=", ("prev", ("next", X_)), X_), -1, 1),
    # next(wnext(x)) is strong: false where there is no instant after the next
    Case(_and(_xs(2), ("G", ("|", _atom("=", ("next", ("wnext", X_)), X_), ("!", _xs(2))))), -1, 1),
    Case(("F", _and(LAST, _atom("=", ("wprev", ("next", ("wnext", X_))), ("wprev", ("next", ("wnext", X_)))))), -1, 1),
    # two variables tied across instants
    Case(_and(("G", _atom("=", ("wnext", Y_), ("+", Y_, X_))), _atom("=", Y_, _n(0)), ("F", _atom(">=", Y_, _n(3)))),
         -1, 3, longest=3),
    # since and once with data
    Case(("F", _and(("S", _atom(">", X_, ("prev", X_)), _atom("=", X_, _n(-1))), _atom("=", X_, _n(2)))), -1, 2),
]


CASES = HANDWRITTEN + _random_cases(SEED, COUNT)


@lru_cache(maxsize=None)
def reference_model(k: int) -> list[dict] | None:
    case = CASES[k]
    return R.search(case.bounded, R.value_range(case.lo, case.hi), case.length)


def wider_model(tree: tuple, halves: bool) -> list[dict] | None:
    """A model of `tree` over a wider domain than the cases': -3..3 for one variable, -2..2 for
    two; or, for the Real domain (`halves`), the multiples of 1/2 in -1..2 or -1..1, searched as
    the integers -2..4 or -2..2 with every numeral doubled (`scaled_numerals`). As long as
    affordable."""
    two = len(R.variables(tree)) > 1
    if halves:
        lo, hi = (-1, 1) if two else (-1, 2)
        domain = R.value_range(2 * lo, 2 * hi)
        tree = R.scaled_numerals(tree, 2)
    else:
        lo, hi = (-2, 2) if two else (-3, 3)
        domain = R.value_range(lo, hi)
    model = R.search(tree, domain, R.max_length(tree, len(domain), limit=100_000))
    if model is not None and halves:
        model = [{k: v if isinstance(v, bool) else Fraction(v, 2) for k, v in state.items()} for state in model]
    return model


def _solve(tree: tuple, declarations: Declarations):
    return ltl.solve(parse_formula(R.text(tree)), ltl.Budget(seconds=BUDGET_SECONDS), semantics="finite",
                     declarations=declarations)


def _witness_problems(tree: tuple, result: Sat, declarations: Declarations) -> list[str]:
    """What is wrong with a Sat witness of `tree` (empty when nothing)."""
    witness = result.witness
    steps = [str(s) for s in witness.prefix]
    problems = []
    if witness.cycle != () or not steps:
        problems.append(f"not a finite non-empty trace: prefix {steps}, cycle {[str(s) for s in witness.cycle]}")
        return problems
    try:
        if not R.witness_holds(tree, steps):
            problems.append(f"the reference rejects the witness {'; '.join(steps)}")
    except ValueError as e:
        problems.append(f"unreadable witness {'; '.join(steps)}: {e}")
    try:
        if not ltl.holds(parse_formula(R.text(tree)), witness, declarations=declarations):
            problems.append(f"ltl.holds rejects the tool's own witness {'; '.join(steps)}")
    except ValueError as e:
        problems.append(f"ltl.holds raised on the tool's own witness {'; '.join(steps)}: {e}")
    return problems


def _report(failures: list[str], total: int) -> str:
    return f"{len(failures)} of {total} cases disagree:\n" + "\n".join(failures)


# --------------------------------------------------------------------------- the reference itself

def test_reference_atoms_by_hand():
    x, p = ("var", "x"), ("ap", "p")
    t = [{"x": 1}, {"x": 2}, {"x": 2}]
    assert R.holds_on(("G", ("|", _atom("<=", x, ("next", x)), ("!", ("X", ("true",))))), t)
    assert not R.holds_on(("G", _atom("<=", x, ("next", x))), t)  # strong next at the end: false
    assert R.holds_on(("G", _atom("<=", x, ("wnext", x))), t)  # weak next at the end: true
    assert not R.holds_on(("X", ("X", _atom("=", ("next", ("wnext", x)), _n(9)))), t)  # strong wins
    assert R.holds_on(("X", ("X", _atom("=", ("wnext", ("wnext", x)), _n(9)))), t)
    assert R.holds_on(_atom("=", ("prev", ("next", x)), _n(1)), t)  # offsets add up: reads instant 0
    assert not R.holds_on(_atom("=", ("prev", x), ("prev", x)), t)
    assert R.holds_on(_atom("!=", ("wprev", x), ("wprev", x)), t)
    assert R.holds_on(("X", _atom("=", ("-", ("*", 3, x), ("*r", ("prev", x), -2)), _n(8))), t)  # 6 - (-2)
    assert R.holds_on(("F", ("&", p, _atom("=", ("neg", x), _n(-2)))), [{"x": 1, "p": True}, {"x": 2, "p": True}])
    assert R.text(("U", p, _atom("<", ("next", x), ("neg", _n(1))))) == "(p U (next(x) < (- 1)))"
    assert R.search(("&", ("G", _atom("<", x, ("wnext", x))), ("X", ("X", ("true",)))), [0, 1, 2], 4) \
        == [{"x": 0}, {"x": 1}, {"x": 2}]
    assert R.search(("&", ("G", _atom("<", x, ("wnext", x))), ("X", ("X", ("X", ("true",))))), [0, 1, 2], 5) is None
    halves = R.value_range(0, 1, halves=True)
    assert R.search(_atom("=", ("*", 2, x), _n(1)), halves, 1) == [{"x": Fraction(1, 2)}]
    assert R.search(_atom("=", ("*", 2, x), _n(1)), R.value_range(-3, 3), 2) is None
    assert R.holds_on(_atom("<", ("-", x, ("wnext", x)), _n(0)), [{"x": Fraction(1, 3)}, {"x": Fraction(1, 2)}])
    # numerals scaled by 2 over the integers = the formula over the halves
    half = _and(_atom("=", ("+", ("*", 2, x), ("next", x)), _n(1)), _atom(">", ("*r", x, 3), ("neg", _n(1))))
    assert R.holds_on(half, [{"x": Fraction(0)}, {"x": Fraction(1)}])
    assert R.holds_on(R.scaled_numerals(half, 2), [{"x": 0}, {"x": 2}])
    assert not R.holds_on(R.scaled_numerals(half, 2), [{"x": 0}, {"x": 1}])
    model = wider_model(half, halves=True)
    assert model is not None and R.holds_on(half, model)
    odd = _and(_atom("=", ("*", 2, x), _n(1)), ("G", _atom(">=", x, _n(0))))  # x = 1/2: no integer model
    assert R.search(odd, R.value_range(-3, 3), 3) is None and wider_model(odd, halves=True) == [{"x": Fraction(1, 2)}]
    assert R.search(("G", _atom("<", x, ("next", x))), [0, 1, 2], 4) is None


def test_reference_matches_the_ltlf_oracle_on_propositional_formulas():
    """The temporal operators of the vectorised reference, against the suite's LTLf oracle."""
    rng = random.Random(SEED + 1)
    failures = []
    for _ in range(300):
        gen = R.Generator(rng, ["x"], ["p", "q"])
        f = _propositional(gen, rng.randint(1, 7))
        n = rng.randint(1, 5)
        word = [{"p": rng.random() < 0.5, "q": rng.random() < 0.5} for _ in range(n)]
        mine = R.holds_on(f, word)
        theirs = satisfies_finite(parse_formula(R.text(f)), word)
        if mine != theirs:
            failures.append(f"{R.text(f)} on {R.trace_text(word)}: reference {mine}, ltlf_reference {theirs}")
    assert not failures, _report(failures, 300)


def _propositional(gen: R.Generator, size: int) -> tuple:
    r = gen.rng
    if size <= 0:
        return ("ap", r.choice(gen.ps)) if r.random() < 0.9 else (r.choice(["true", "false"]),)
    if r.random() < 0.5:
        return (r.choice(R.UNARY), _propositional(gen, size - 1))
    left = r.randint(0, size - 1)
    return (r.choice(R.BINARY), _propositional(gen, left), _propositional(gen, size - 1 - left))


# --------------------------------------------------------------------------- the tool

def test_solve_int_bounded_agrees_with_reference():
    failures, unknown = [], []
    for k, case in enumerate(CASES):
        tree = case.bounded
        model = reference_model(k)
        result = _solve(tree, ints())
        where = f"[{k}] {R.text(tree)} (values {case.lo}..{case.hi}, L={case.length})"
        if isinstance(result, Unsat) and model is not None:
            failures.append(f"{where}: expected SAT (model {R.trace_text(model)}), got Unsat")
        elif isinstance(result, Sat):
            failures += [f"{where}: {p}" for p in _witness_problems(tree, result, ints())]
        elif isinstance(result, Unknown):
            unknown.append(f"{where}: Unknown ({result.reason}); reference: "
                           f"{R.trace_text(model) if model else f'no model up to {case.length}'}")
        elif not isinstance(result, (Sat, Unsat)):
            failures.append(f"{where}: unexpected result {result!r}")
    assert not failures, _report(failures, len(CASES))
    assert len(unknown) <= MAX_UNKNOWN_RATE * len(CASES), _report(unknown, len(CASES))


def test_handwritten_models_are_found():
    """The hand-written cases are decided, not just not contradicted: Sat where the reference
    knows a model (some longer than any random case needs), Unsat where it finds none (each of
    those has no model of any length, by the comment beside it)."""
    failures = []
    for k, case in enumerate(HANDWRITTEN):
        model = reference_model(k)
        result = _solve(case.bounded, ints())
        if not isinstance(result, Sat if model is not None else Unsat):
            failures.append(f"[{k}] {R.text(case.bounded)}: reference "
                            f"{R.trace_text(model) if model else f'no model up to {case.length}'}, got {result!r}")
    assert not failures, _report(failures, len(HANDWRITTEN))


def test_solve_int_unbounded_agrees_with_reference():
    """Without the bound the tool may pick any integers; a model in the bound is still one, and
    where the tool says Unsat the reference also searches a wider range."""
    failures, unknown = [], 0
    for k, case in enumerate(CASES):
        tree = case.formula
        model = reference_model(k)
        result = _solve(tree, ints())
        where = f"[{k}] {R.text(tree)}"
        if isinstance(result, Unsat) and model is None:
            model = wider_model(tree, halves=False)
        if isinstance(result, Unsat) and model is not None:
            failures.append(f"{where}: expected SAT (model {R.trace_text(model)}), got Unsat")
        elif isinstance(result, Sat):
            failures += [f"{where}: {p}" for p in _witness_problems(tree, result, ints())]
        elif isinstance(result, Unknown):
            unknown += 1
    assert not failures, _report(failures, len(CASES))
    assert unknown <= MAX_UNKNOWN_RATE * len(CASES), f"{unknown} of {len(CASES)} Unknown"


def test_solve_real_bounded_agrees_with_reference():
    """Over the reals: an integer model is a real model (no division is generated), and so is
    one in halves, which the reference looks for where the tool says Unsat; a witness may take
    rational values, judged exactly."""
    failures, unknown = [], 0
    for k, case in enumerate(CASES):
        tree = case.bounded
        model = reference_model(k)
        result = _solve(tree, reals())
        where = f"[{k}] {R.text(tree)} (Real)"
        if isinstance(result, Unsat) and model is None:
            model = wider_model(tree, halves=True)
        if isinstance(result, Unsat) and model is not None:
            failures.append(f"{where}: expected SAT (model {R.trace_text(model)}), got Unsat")
        elif isinstance(result, Sat):
            failures += [f"{where}: {p}" for p in _witness_problems(tree, result, reals())]
        elif isinstance(result, Unknown):
            unknown += 1
    assert not failures, _report(failures, len(CASES))
    assert unknown <= MAX_UNKNOWN_RATE * len(CASES), f"{unknown} of {len(CASES)} Unknown"


def _random_pairs(seed: int, count: int):
    """(formula, concrete trace, real?) triples: a third over the reals, with values in thirds
    and halves."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        vs = ["x"] if rng.random() < 0.4 else ["x", "y"]
        ps = [] if rng.random() < 0.4 else ["p", "q"][: rng.randint(1, 2)]
        f = R.Generator(rng, vs, ps).formula(rng.randint(1, 8))
        if not R.variables(f):
            continue
        real = rng.random() < 1 / 3

        def value():
            if real and rng.random() < 0.5:
                return Fraction(rng.randint(-9, 9), rng.choice([2, 3]))
            return rng.randint(-3, 3)

        n = rng.randint(1, 6)
        trace = [{**{v: value() for v in vs}, **{p: rng.random() < 0.5 for p in ps}} for _ in range(n)]
        out.append((f, trace, real))
    return out


def test_holds_agrees_with_reference_on_random_traces():
    failures = []
    pairs = _random_pairs(SEED + 2, PAIRS)
    for f, trace, real in pairs:
        text = R.trace_text(trace)
        expected = R.holds_on(f, trace)
        try:
            got = ltl.holds(parse_formula(R.text(f)), parse_trace(text), declarations=reals() if real else ints())
        except ValueError as e:
            got = f"ValueError: {e}"
        if got != expected:
            failures.append(f"{R.text(f)} on [{text}]{' (Real)' if real else ''}: expected {expected}, got {got}")
    assert not failures, _report(failures, len(pairs))


@pytest.mark.parametrize("value", [0, 1, -1, 2, -3])
def test_holds_reads_negative_and_positive_values(value):
    """A small fixed check of the trace syntax the differential tests rely on."""
    f = _atom("=", ("+", X_, ("neg", ("wprev", X_))), _n(0))
    text = f"x = {value}; x = {value}"
    assert ltl.holds(parse_formula(R.text(("X", f))), parse_trace(text), declarations=ints())
    assert R.holds_on(("X", f), [{"x": value}, {"x": value}])
