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

FRET's `preInt(init, e)` / `preReal(init, e)` (e at the previous instant, init at instant 0,
decided at the instant the call is read after the shifts and `pre`s around it), in random terms
under shifts, over shifts and inside each other: the Int domain with `preInt` and the Real
domain with `preReal`, bounded as above (finite semantics), and in `holds`' pairs.

Infinite semantics (lassos, `semantics="infinite"`), B bounded as above: the reference searches
every lasso of length <= 3 (4 where affordable), every loop start; a lasso model rules Unsat out
(Unknown is allowed: the tool only finds lassos); a Sat witness must be a lasso that the
reference (the infinite word, exactly) and `ltl.holds` both accept. Over Int (with and without
`preInt`) and over Real (with `preReal`; halves searched where the tool says Unsat). And `holds`
agrees with the reference on random data lassos, many of the formulas reading the loop start on
the first and later passes.

Each test collects every disagreement and fails listing them all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import data_reference as R
import pytest
from ltl_reference import satisfies as satisfies_lasso
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


def _random_cases(seed: int, count: int, pre: str | None = None, infinite: bool = False) -> list[Case]:
    """Random cases; `pre`: their terms take that `pre` call too (`R.Generator`); `infinite`:
    for lassos (no `X X ... true` conjunct, which every infinite word satisfies)."""
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        vs = ["x"] if rng.random() < 0.45 else ["x", "y"]
        ps = [] if rng.random() < 0.5 else ["p"]
        f = R.Generator(rng, vs, ps, pre).formula(rng.randint(1, 8))
        if not R.variables(f):
            continue  # a data formula: at least one variable
        if not infinite and rng.random() < 0.4:  # demand a few instants: the shifts then meet both ends of the trace
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
    Case(
        _and(_atom("=", X_, _n(0)), ("G", _atom("=", ("wnext", X_), ("+", X_, _n(1)))), ("F", _atom("=", X_, _n(5)))),
        0,
        5,
        longest=6,
    ),
    # the same count backwards, read with wprev: 4, 3, 2, 1, 0 and then the end
    Case(
        _and(
            _atom("=", X_, _n(4)),
            ("G", _atom("=", ("wprev", X_), ("+", X_, _n(1)))),
            ("F", _and(_atom("=", X_, _n(0)), LAST)),
        ),
        0,
        4,
        longest=6,
    ),
    # strictly increasing forever: no finite model (the last instant has no next)
    Case(("G", _atom("<", X_, ("next", X_))), -1, 2),
    # weakly: the last instant is fine, and values in -1..2 allow 4 instants, not 5
    Case(_and(("G", _atom("<", X_, ("wnext", X_))), _xs(3)), -1, 2),
    Case(_and(("G", _atom("<", X_, ("wnext", X_))), _xs(4)), -1, 2),
    # prev at instant 0 is false (strong): no model; wprev there is true
    Case(_atom("=", ("prev", X_), X_), -1, 1),
    Case(_and(_atom("=", ("wprev", X_), _n(7)), _atom("=", X_, _n(0))), -1, 1),
    # prev(next(x)) at instant 0 reads the missing instant -1 on its way (strong): false, so no
    # model for the atom, and one for its negation
    Case(_atom("!=", ("prev", ("next", X_)), X_), -1, 1),
    Case(("!", _atom("=", ("prev", ("next", X_)), X_)), -1, 1),
    # next of a numeral at the last instant: a strong next there, false
    Case(_and(LAST, _atom("=", ("next", _n(1)), _n(1)), _atom("=", X_, X_)), -1, 1),
    # next(wnext(x)) is strong: false where there is no instant after the next
    Case(_and(_xs(2), ("G", ("|", _atom("=", ("next", ("wnext", X_)), X_), ("!", _xs(2))))), -1, 1),
    Case(("F", _and(LAST, _atom("=", ("wprev", ("next", ("wnext", X_))), ("wprev", ("next", ("wnext", X_)))))), -1, 1),
    # two variables tied across instants
    Case(
        _and(("G", _atom("=", ("wnext", Y_), ("+", Y_, X_))), _atom("=", Y_, _n(0)), ("F", _atom(">=", Y_, _n(3)))),
        -1,
        3,
        longest=3,
    ),
    # since and once with data
    Case(("F", _and(("S", _atom(">", X_, ("prev", X_)), _atom("=", X_, _n(-1))), _atom("=", X_, _n(2)))), -1, 2),
]


CASES = HANDWRITTEN + _random_cases(SEED, COUNT)


@cache
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


def _solve(tree: tuple, declarations: Declarations, semantics: str = "finite"):
    return ltl.solve(
        parse_formula(R.text(tree)), ltl.Budget(seconds=BUDGET_SECONDS), semantics=semantics, declarations=declarations
    )


def _witness_problems(tree: tuple, result: Sat, declarations: Declarations, infinite: bool = False) -> list[str]:
    """What is wrong with a Sat witness of `tree` (empty when nothing): under finite semantics it
    must be a finite non-empty trace, under infinite ones a lasso (a non-empty cycle)."""
    witness = result.witness
    prefix, cycle = [str(s) for s in witness.prefix], [str(s) for s in witness.cycle]
    steps = prefix + cycle
    shown = "; ".join(prefix + ["cycle{" + "; ".join(cycle) + "}"]) if cycle else "; ".join(steps)
    problems = []
    if infinite and not cycle:
        problems.append(f"not a lasso: prefix {prefix}, no cycle")
        return problems
    if not infinite and (cycle or not steps):
        problems.append(f"not a finite non-empty trace: prefix {prefix}, cycle {cycle}")
        return problems
    try:
        if not R.witness_holds(tree, steps, loop=len(prefix) if infinite else None):
            problems.append(f"the reference rejects the witness {shown}")
    except ValueError as e:
        problems.append(f"unreadable witness {shown}: {e}")
    try:
        if not ltl.holds(parse_formula(R.text(tree)), witness, declarations=declarations):
            problems.append(f"ltl.holds rejects the tool's own witness {shown}")
    except ValueError as e:
        problems.append(f"ltl.holds raised on the tool's own witness {shown}: {e}")
    return problems


def _report(failures: list[str], total: int) -> str:
    return f"{len(failures)} of {total} cases disagree:\n" + "\n".join(failures)


def _judge(
    where: str,
    tree: tuple,
    declarations: Declarations,
    model: str | None,
    wider,
    failures: list[str],
    unknown: list[str],
    semantics: str = "finite",
) -> None:
    """Solve `tree` and file what the tool says against the reference: `model` the reference's
    model in the bound, as text (None: none there); `wider()` one outside it (text or None),
    looked for only where the tool says Unsat. An Unsat against a model, a witness either
    judge rejects, an exception: a failure; Unknown: listed apart (a rate is allowed)."""
    try:
        result = _solve(tree, declarations, semantics)
    except Exception as e:  # noqa: BLE001 - listed with the other disagreements
        failures.append(f"{where}: raised {type(e).__name__}: {e}")
        return
    if isinstance(result, Unsat) and model is None and wider is not None:
        model = wider()
    if isinstance(result, Unsat) and model is not None:
        failures.append(f"{where}: expected SAT (model {model}), got Unsat")
    elif isinstance(result, Sat):
        failures += [f"{where}: {p}" for p in _witness_problems(tree, result, declarations, semantics == "infinite")]
    elif isinstance(result, Unknown):
        unknown.append(f"{where}: Unknown ({result.reason}); reference: {model or 'no model in the bound'}")
    elif not isinstance(result, Unsat):
        failures.append(f"{where}: unexpected result {result!r}")


def _text(model: list[dict] | None) -> str | None:
    return R.trace_text(model) if model is not None else None


def _lasso_text(found: tuple[list[dict], int] | None) -> str | None:
    return R.trace_text(*found) if found is not None else None


# --------------------------------------------------------------------------- the reference itself


def test_reference_atoms_by_hand():
    x, p = ("var", "x"), ("ap", "p")
    t = [{"x": 1}, {"x": 2}, {"x": 2}]
    assert R.holds_on(("G", ("|", _atom("<=", x, ("next", x)), ("!", ("X", ("true",))))), t)
    assert not R.holds_on(("G", _atom("<=", x, ("next", x))), t)  # strong next at the end: false
    assert R.holds_on(("G", _atom("<=", x, ("wnext", x))), t)  # weak next at the end: true
    assert not R.holds_on(("X", ("X", _atom("=", ("next", ("wnext", x)), _n(9)))), t)  # strong wins
    assert R.holds_on(("X", ("X", _atom("=", ("wnext", ("wnext", x)), _n(9)))), t)
    assert not R.holds_on(_atom("=", ("prev", ("next", x)), _n(1)), t)  # prev at 0 reads the missing -1
    assert R.holds_on(("X", _atom("=", ("prev", ("next", x)), _n(2))), t)  # offsets add up: at 1, x at 1
    assert not R.holds_on(_atom("=", ("prev", x), ("prev", x)), t)
    assert R.holds_on(_atom("!=", ("wprev", x), ("wprev", x)), t)
    assert R.holds_on(("X", _atom("=", ("-", ("*", 3, x), ("*r", ("prev", x), -2)), _n(8))), t)  # 6 - (-2)
    assert R.holds_on(("F", ("&", p, _atom("=", ("neg", x), _n(-2)))), [{"x": 1, "p": True}, {"x": 2, "p": True}])
    assert R.text(("U", p, _atom("<", ("next", x), ("neg", _n(1))))) == "(p U (next(x) < (- 1)))"
    assert R.search(("&", ("G", _atom("<", x, ("wnext", x))), ("X", ("X", ("true",)))), [0, 1, 2], 4) == [
        {"x": 0},
        {"x": 1},
        {"x": 2},
    ]
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


@pytest.mark.parametrize("lasso", [False, True], ids=["finite", "lasso"])
def test_reference_matches_the_oracles_on_propositional_formulas(lasso: bool):
    """The temporal operators of the vectorised reference, against the suite's LTLf oracle on
    finite words and its textbook LTL oracle on lassos."""
    rng = random.Random(SEED + (31 if lasso else 1))
    failures = []
    for _ in range(300):
        gen = R.Generator(rng, ["x"], ["p", "q"])
        f = _propositional(gen, rng.randint(1, 7))
        loop, period = (rng.randint(0, 3), rng.randint(1, 3)) if lasso else (None, rng.randint(1, 5))
        word = [{"p": rng.random() < 0.5, "q": rng.random() < 0.5} for _ in range((loop or 0) + period)]
        mine = R.holds_on(f, word, loop)
        formula = parse_formula(R.text(f))
        theirs = satisfies_lasso(formula, word[:loop], word[loop:]) if lasso else satisfies_finite(formula, word)
        if mine != theirs:
            failures.append(f"{R.text(f)} on {R.trace_text(word, loop)}: reference {mine}, oracle {theirs}")
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
        _judge(
            f"[{k}] {R.text(case.bounded)} (values {case.lo}..{case.hi}, L={case.length})",
            case.bounded,
            ints(),
            _text(reference_model(k)),
            None,
            failures,
            unknown,
        )
    assert not failures, _report(failures, len(CASES))
    assert len(unknown) <= MAX_UNKNOWN_RATE * len(CASES), _report(unknown, len(CASES))


def test_exact_length_probes_agree_with_reference():
    """A probe (`smt_bounded.Probe`: one exact length, the values its equalities force computed
    exactly before z3 is asked, `theory.forced`) finds a model of n instants exactly when the
    reference does, n = 1..4: a refutation there may end the bounded search in an Unsat proof."""
    from ltlwit.logic.budget import Budget, Limit
    from ltlwit.logic.ltl import finite as finite_traces
    from ltlwit.logic.ltl.encoding.rewrite import simplify
    from ltlwit.logic.ltl.encoding.xnf import step
    from ltlwit.logic.ltl.searches.smt_bounded import Probe
    from ltlwit.logic.theory.smt import Encoder

    failures, asked = [], 0
    for k, case in enumerate(CASES):
        tree = case.bounded
        abstraction = ltl.abstraction(ltl.as_declared(parse_formula(R.text(tree)), ints()), ints(), True)
        limit = Limit(Budget(seconds=30))
        guarded, alive = finite_traces.guarded(abstraction.formula)
        encoding = step(simplify(guarded, limit), limit=limit)
        if alive.name not in encoding.aps:
            continue  # rewritten to a constant: no unrolling to probe
        vs, ps = sorted(R.variables(tree)), sorted(R.propositions(tree))
        domain = R.value_range(case.lo, case.hi)
        for n in range(1, min(case.length, 4) + 1):
            expected = bool(R.evaluate(tree, R.all_traces(n, vs, ps, domain)).any())
            probe = Probe(
                encoding, abstraction, Encoder(abstraction.signature), limit, -encoding.aps[alive.name], alive.name
            )
            probe._build(n)
            found = probe.ask(n)
            asked += 1
            if found is not expected:
                failures.append(f"[{k}] {R.text(tree)} at exactly {n} instants: reference {expected}, probe {found}")
            elif found:
                witness = probe.witness(n)
                if not ltl.holds(parse_formula(R.text(tree)), witness, declarations=ints()):
                    failures.append(f"[{k}] {R.text(tree)}: the probe's model {witness} fails its check")
            probe.close()
    assert asked > 300
    assert not failures, _report(failures, asked)


def test_handwritten_models_are_found():
    """The hand-written cases are decided, not just not contradicted: Sat where the reference
    knows a model (some longer than any random case needs), Unsat where it finds none (each of
    those has no model of any length, by the comment beside it)."""
    failures = []
    for k, case in enumerate(HANDWRITTEN):
        model = reference_model(k)
        result = _solve(case.bounded, ints())
        if not isinstance(result, Sat if model is not None else Unsat):
            failures.append(
                f"[{k}] {R.text(case.bounded)}: reference "
                f"{R.trace_text(model) if model else f'no model up to {case.length}'}, got {result!r}"
            )
    assert not failures, _report(failures, len(HANDWRITTEN))


def test_solve_int_unbounded_agrees_with_reference():
    """Without the bound the tool may pick any integers; a model in the bound is still one, and
    where the tool says Unsat the reference also searches a wider range."""
    failures, unknown = [], []
    for k, case in enumerate(CASES):
        _judge(
            f"[{k}] {R.text(case.formula)}",
            case.formula,
            ints(),
            _text(reference_model(k)),
            lambda tree=case.formula: _text(wider_model(tree, halves=False)),
            failures,
            unknown,
        )
    assert not failures, _report(failures, len(CASES))
    assert len(unknown) <= MAX_UNKNOWN_RATE * len(CASES), _report(unknown, len(CASES))


def test_solve_real_bounded_agrees_with_reference():
    """Over the reals: an integer model is a real model (no division is generated), and so is
    one in halves, which the reference looks for where the tool says Unsat; a witness may take
    rational values, judged exactly."""
    failures, unknown = [], []
    for k, case in enumerate(CASES):
        _judge(
            f"[{k}] {R.text(case.bounded)} (Real)",
            case.bounded,
            reals(),
            _text(reference_model(k)),
            lambda tree=case.bounded: _text(wider_model(tree, halves=True)),
            failures,
            unknown,
        )
    assert not failures, _report(failures, len(CASES))
    assert len(unknown) <= MAX_UNKNOWN_RATE * len(CASES), _report(unknown, len(CASES))


def _random_pairs(seed: int, count: int, pre: bool = False):
    """(formula, concrete trace, real?) triples: a third over the reals, with values in thirds
    and halves; with `pre`, terms take `preReal` (over the reals) or `preInt` calls too."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        vs = ["x"] if rng.random() < 0.4 else ["x", "y"]
        ps = [] if rng.random() < 0.4 else ["p", "q"][: rng.randint(1, 2)]
        if pre:
            real = rng.random() < 1 / 3
            f = R.Generator(rng, vs, ps, "preReal" if real else "preInt").formula(rng.randint(1, 8))
        else:
            f = R.Generator(rng, vs, ps).formula(rng.randint(1, 8))
        if not R.variables(f):
            continue
        if not pre:
            real = rng.random() < 1 / 3

        def value(real=real):
            if real and rng.random() < 0.5:
                return Fraction(rng.randint(-9, 9), rng.choice([2, 3]))
            return rng.randint(-3, 3)

        n = rng.randint(1, 6)
        trace = [{**{v: value() for v in vs}, **{p: rng.random() < 0.5 for p in ps}} for _ in range(n)]
        out.append((f, trace, real))
    return out


@pytest.mark.parametrize("pre", [False, True], ids=["plain", "pre"])
def test_holds_agrees_with_reference_on_random_traces(pre):
    failures = []
    pairs = _random_pairs(SEED + 2 + 100 * pre, PAIRS, pre)
    for f, trace, real in pairs:
        _compare_holds(f, R.trace_text(trace), real, R.holds_on(f, trace), failures)
    assert not failures, _report(failures, len(pairs))


def _compare_holds(f: tuple, text: str, real: bool, expected: bool, failures: list[str]) -> None:
    """The tool's checker on the trace `text` against the reference's verdict `expected`."""
    try:
        got = ltl.holds(parse_formula(R.text(f)), parse_trace(text), declarations=reals() if real else ints())
    except ValueError as e:
        got = f"ValueError: {e}"
    if got != expected:
        failures.append(f"{R.text(f)} on [{text}]{' (Real)' if real else ''}: expected {expected}, got {got}")


@pytest.mark.parametrize("value", [0, 1, -1, 2, -3])
def test_holds_reads_negative_and_positive_values(value):
    """A small fixed check of the trace syntax the differential tests rely on."""
    f = _atom("=", ("+", X_, ("neg", ("wprev", X_))), _n(0))
    text = f"x = {value}; x = {value}"
    assert ltl.holds(parse_formula(R.text(("X", f))), parse_trace(text), declarations=ints())
    assert R.holds_on(("X", f), [{"x": value}, {"x": value}])


# --------------------------------------------------------------------------- pre (finite traces)

PRE_COUNT = 140  # random formulas with preInt (Int) and with preReal (Real) each
PRE_INT_CASES = _random_cases(SEED + 10, PRE_COUNT, pre="preInt")
PRE_REAL_CASES = _random_cases(SEED + 11, PRE_COUNT, pre="preReal")


def _terms(t: tuple):
    yield t
    for c in t[1:]:
        if isinstance(c, tuple):
            yield from _terms(c)


def _atoms(f: tuple):
    if f[0] == "atom":
        yield f
    else:
        for c in f[1:]:
            if isinstance(c, tuple):
                yield from _atoms(c)


def _shapes(f: tuple) -> set[str]:
    """Which of the nestings of `pre` the formula's terms have."""
    out = set()
    for a in _atoms(f):
        for t in [*_terms(a[2]), *_terms(a[3])]:
            if t[0] in R.SHIFTS and any(u[0] in R.PRES for u in _terms(t[1])):
                out.add("pre under a shift")
            if t[0] in R.PRES:
                inner = [*_terms(t[1]), *_terms(t[2])]
                if any(u[0] in R.SHIFTS for u in inner):
                    out.add("shift under pre")
                if any(u[0] in R.PRES for u in inner):
                    out.add("pre inside pre")
    return out


def test_pre_cases_cover_the_nestings():
    """The generated `pre` formulas do nest: many of each kind, in both domains."""
    for cases in (PRE_INT_CASES, PRE_REAL_CASES):
        counts = {
            k: sum(k in _shapes(c.formula) for c in cases)
            for k in ("pre under a shift", "shift under pre", "pre inside pre")
        }
        assert min(counts.values()) >= 10, counts


def _pre_hand() -> list[tuple[tuple, list[dict], bool]]:
    """(formula, finite trace, expected) by hand: each `pre` decided where it is read."""
    x = X_
    t = [{"x": 0}, {"x": 1}, {"x": 2}]
    pre = lambda init, e: ("preInt", init, e)
    return [
        (_atom("=", pre(_n(5), x), _n(5)), t, True),  # instant 0: init
        (("X", _atom("=", pre(_n(5), x), _n(0))), t, True),  # instant 1: x at 0
        (_atom("=", ("next", pre(_n(5), x)), _n(0)), t, True),  # pre read at 1
        (("X", ("X", _atom("=", ("next", pre(_n(5), x)), _n(2)))), t, False),  # next at the last instant: strong
        (("X", _atom("=", ("next", pre(_n(5), x)), _n(1))), t, True),  # pre at 2 reads x at 1
        (("X", ("X", _atom("=", ("next", pre(_n(5), ("next", x))), _n(9)))), t, False),  # reads x at 3: strong
        (("X", ("X", _atom("=", ("next", pre(_n(5), ("wnext", x))), _n(9)))), t, False),  # next on the way
        (("X", ("X", _atom("=", ("wnext", pre(_n(5), ("wnext", x))), _n(9)))), t, True),  # weak only
        (_atom("=", ("prev", pre(_n(5), x)), _n(5)), t, False),  # pre at -1: x at -2, strong
        (_atom("=", ("wprev", pre(_n(5), x)), _n(7)), t, True),  # ... weak
        (("X", _atom("=", ("wprev", pre(_n(5), x)), _n(5))), t, True),  # pre at 0: init
        (_atom("=", pre(("prev", x), x), _n(9)), t, False),  # init read at 0 through prev
        (_atom("=", pre(("wprev", x), x), _n(9)), t, True),
        (("X", _atom("=", pre(("prev", x), x), _n(0))), t, True),  # init not read at 1
        (("X", _atom("=", pre(_n(0), pre(_n(7), x)), _n(7))), t, True),  # inner pre at 0: its init
        (("X", ("X", _atom("=", pre(_n(0), pre(_n(7), x)), _n(0)))), t, True),  # inner at 1: x at 0
        (("X", _atom("=", pre(_n(3), ("prev", x)), _n(3))), t, False),  # e at 0 through prev: x at -1
        (("X", _atom("=", ("next", pre(_n(3), ("prev", x))), _n(0))), t, True),  # pre at 2: x at 0
    ]


def test_reference_pre_by_hand():
    failures = [
        f"{R.text(f)} on [{R.trace_text(t)}]: expected {want}" for f, t, want in _pre_hand() if R.holds_on(f, t) != want
    ]
    assert not failures, failures


def test_holds_pre_by_hand():
    failures = []
    for f, t, want in _pre_hand():
        got = ltl.holds(parse_formula(R.text(f)), parse_trace(R.trace_text(t)), declarations=ints())
        if got != want:
            failures.append(f"{R.text(f)} on [{R.trace_text(t)}]: expected {want}, got {got}")
    assert not failures, _report(failures, len(_pre_hand()))


@cache
def _pre_model(real: bool, k: int) -> list[dict] | None:
    case = (PRE_REAL_CASES if real else PRE_INT_CASES)[k]
    return R.search(case.bounded, R.value_range(case.lo, case.hi), case.length)


@pytest.mark.parametrize("real", [False, True], ids=["preInt-Int", "preReal-Real"])
def test_solve_pre_bounded_agrees_with_reference(real):
    """As the bounded tests above, for formulas with `pre`: over Int with `preInt`, over Real
    with `preReal` (a model in halves searched where the tool says Unsat)."""
    cases = PRE_REAL_CASES if real else PRE_INT_CASES
    failures, unknown = [], []
    for k, case in enumerate(cases):
        where = (
            f"[{k}] {R.text(case.bounded)} ({'Real' if real else 'Int'}, values {case.lo}..{case.hi}, L={case.length})"
        )
        wider = (lambda tree=case.bounded: _text(wider_model(tree, halves=True))) if real else None
        _judge(where, case.bounded, reals() if real else ints(), _text(_pre_model(real, k)), wider, failures, unknown)
    assert not failures, _report(failures, len(cases))
    assert len(unknown) <= MAX_UNKNOWN_RATE * len(cases), _report(unknown, len(cases))


# --------------------------------------------------------------------------- lassos (infinite traces)

INF_COUNT = 150  # random formulas over Int, half of them with preInt
INF_REAL_COUNT = 70  # over Real with preReal
MAX_INF_UNKNOWN_RATE = 0.15
LASSO_PAIRS = 600
LASSO_ATOMS = 1000

# Hand-written lasso cases (each bounded in -1..2), whose answer is known: a lasso model of
# length <= 4, or none of any length (the comments say why).
_first = ("!", ("Y", ("true",)))  # instant 0
INF_HANDWRITTEN = [
    # strictly increasing forever: no lasso (the values would repeat)
    Case(("G", _atom("<", X_, ("next", X_))), -1, 2),
    # wnext is next on infinite words: strictly increasing again
    Case(("G", _atom("<", X_, ("wnext", X_))), -1, 2),
    # x alternates 0, 1 forever
    Case(
        _and(
            ("G", ("F", _atom("=", X_, _n(1)))),
            ("G", ("F", _atom("=", X_, _n(0)))),
            ("G", _atom("!=", X_, ("next", X_))),
        ),
        -1,
        2,
    ),
    # prev at the loop start differs between passes: x = 0, then 1 forever; prev(x) = 0 once only
    Case(
        _and(
            _atom("=", X_, _n(0)),
            ("X", ("G", _atom("=", X_, _n(1)))),
            ("F", _and(_atom("=", ("prev", X_), _n(0)), _atom("=", X_, _n(1)))),
            ("F", ("G", _atom("=", ("prev", X_), _n(1)))),
        ),
        -1,
        2,
    ),
    # prev at instant 0 is false on infinite words too; wprev true
    Case(_atom("=", ("prev", X_), X_), -1, 2),
    Case(_and(_atom("=", ("wprev", X_), _n(7)), _atom("=", X_, _n(0))), -1, 2),
    # preInt(2, x) = x + 1 everywhere but at the first instant, which fixes x = 1: then x
    # decreases by 1 each step, and must stay >= -1: no lasso
    Case(("G", _atom("=", ("+", ("preInt", _n(2), X_), _n(-1)), X_)), -1, 2),
    # ... unless it may restart at 1 when x = -1 was last: 1, 0, -1, 1, 0, -1, ...
    Case(
        (
            "G",
            (
                "|",
                _atom("=", ("+", ("preInt", _n(2), X_), _n(-1)), X_),
                _and(_atom("=", ("preInt", _n(2), X_), _n(-1)), _atom("=", X_, _n(1))),
            ),
        ),
        -1,
        2,
    ),
    # pre at the loop start on later passes reads the loop's last state: x = 0 then cycle{1, 2};
    # preInt(9, x) = 2 at x = 1 happens (second pass), and = 0 there once
    Case(
        _and(
            _atom("=", X_, _n(0)),
            ("X", ("G", _atom(">=", X_, _n(1)))),
            ("G", ("F", _and(_atom("=", X_, _n(1)), _atom("=", ("preInt", _n(9), X_), _n(2))))),
            ("F", _and(_atom("=", X_, _n(1)), _atom("=", ("preInt", _n(9), X_), _n(0)))),
        ),
        -1,
        2,
    ),
    # nested: preInt(0, preInt(5, x)) is 0 at instant 0 (the outer init), so not always 5; but it
    # is 5 at instant 1 (the inner init), where next(preInt(1, next(x))) = 2 reads x at 2
    Case(_and(("G", _atom("=", ("preInt", _n(0), ("preInt", _n(5), X_)), _n(5))), _first), -1, 2),
    Case(
        _and(
            ("X", _atom("=", ("preInt", _n(0), ("preInt", _n(5), X_)), _n(5))),
            _atom("=", ("next", ("preInt", _n(1), ("next", X_))), _n(2)),
            ("G", ("F", _atom("=", X_, _n(-1)))),
        ),
        -1,
        2,
    ),
    # since over the loop: from some point on, x has climbed since its last -1, and reaches 2
    # again and again: cycle{-1; 2}
    Case(
        _and(
            ("F", ("G", ("S", _atom(">", X_, ("prev", X_)), _atom("=", X_, _n(-1))))),
            ("G", ("F", _atom("=", X_, _n(2)))),
        ),
        -1,
        2,
    ),
    # ... but not when -1 is never left (then 2 comes no more; without -1, S has no start)
    Case(
        _and(
            ("F", ("G", ("S", _atom(">", X_, ("prev", X_)), _atom("=", X_, _n(-1))))),
            ("G", ("F", _atom("=", X_, _n(2)))),
            ("G", ("->", _atom("=", X_, _n(-1)), _atom("=", ("next", X_), _n(-1)))),
        ),
        -1,
        2,
    ),
]

INF_INT_CASES = (
    INF_HANDWRITTEN
    + _random_cases(SEED + 20, INF_COUNT // 2, infinite=True)
    + _random_cases(SEED + 21, INF_COUNT - INF_COUNT // 2, pre="preInt", infinite=True)
)
INF_REAL_CASES = _random_cases(SEED + 22, INF_REAL_COUNT, pre="preReal", infinite=True)


def _lasso_length(case: Case) -> int:
    return R.lasso_max_length(case.bounded, case.hi - case.lo + 1)


@cache
def _lasso_model(real: bool, k: int) -> tuple[list[dict], int] | None:
    case = (INF_REAL_CASES if real else INF_INT_CASES)[k]
    return R.search_lasso(case.bounded, R.value_range(case.lo, case.hi), _lasso_length(case))


def _lasso_in_halves(tree: tuple) -> tuple[list[dict], int] | None:
    """A lasso model of the bounded `tree` with values in the multiples of 1/2 (searched as the
    integers with every numeral doubled), length up to 3."""
    domain = R.value_range(-2, 4) if len(R.variables(tree)) == 1 else R.value_range(-2, 2)
    found = R.search_lasso(R.scaled_numerals(tree, 2), domain, 3)
    if found is None:
        return None
    states, loop = found
    return [{k: v if isinstance(v, bool) else Fraction(v, 2) for k, v in s.items()} for s in states], loop


def test_reference_lasso_hand_cases():
    """The hand-written lasso cases' answers, as their comments say (a model or none)."""
    expected = [False, False, True, True, False, True, False, True, True, False, True, True, False]
    got = [_lasso_model(False, k) is not None for k in range(len(INF_HANDWRITTEN))]
    assert got == expected


def test_handwritten_lassos_are_decided():
    """The hand-written lasso cases are decided, not just not contradicted (their domains are
    finite): Sat where the reference knows a lasso, Unsat where none exists."""
    failures = []
    for k, case in enumerate(INF_HANDWRITTEN):
        found = _lasso_model(False, k)
        try:
            result = _solve(case.bounded, ints(), "infinite")
        except Exception as e:  # noqa: BLE001 - listed with the other disagreements
            result = f"{type(e).__name__}: {e}"
        if not isinstance(result, Sat if found is not None else Unsat):
            failures.append(
                f"[{k}] {R.text(case.bounded)}: reference "
                f"{R.trace_text(*found) if found else 'no lasso'}, got {result!r}"
            )
        elif isinstance(result, Sat):
            failures += [f"[{k}] {p}" for p in _witness_problems(case.bounded, result, ints(), infinite=True)]
    assert not failures, _report(failures, len(INF_HANDWRITTEN))


@pytest.mark.parametrize("real", [False, True], ids=["Int", "preReal-Real"])
def test_solve_infinite_bounded_agrees_with_reference(real):
    cases = INF_REAL_CASES if real else INF_INT_CASES
    failures, unknown = [], []
    for k, case in enumerate(cases):
        where = (
            f"[{k}] {R.text(case.bounded)} (infinite, {'Real' if real else 'Int'}, values {case.lo}..{case.hi}, "
            f"lassos up to {_lasso_length(case)})"
        )
        wider = (lambda tree=case.bounded: _lasso_text(_lasso_in_halves(tree))) if real else None
        _judge(
            where,
            case.bounded,
            reals() if real else ints(),
            _lasso_text(_lasso_model(real, k)),
            wider,
            failures,
            unknown,
            "infinite",
        )
    assert not failures, _report(failures, len(cases))
    assert len(unknown) <= MAX_INF_UNKNOWN_RATE * len(cases), _report(unknown, len(cases))


def _lasso_value(rng: random.Random, real: bool):
    """A value of a random lasso's state: -2..2, or over the reals half the time thirds and halves."""
    if real and rng.random() < 0.5:
        return Fraction(rng.randint(-9, 9), rng.choice([2, 3]))
    return rng.randint(-2, 2)


def _random_lassos(seed: int, count: int):
    """(formula, states, loop start, real?) quadruples: a third over the reals (`preReal`,
    values in halves and thirds), the rest over Int (`preInt` in half of them); half the
    formulas under X^k for k the loop start on its first, second or third pass, a fifth under G;
    the loop starts at instant 0 in 40% of them (where the loop start is also the instant at
    which a `pre` reads its init, on the first pass only)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        vs = ["x"] if rng.random() < 0.4 else ["x", "y"]
        ps = [] if rng.random() < 0.4 else ["p", "q"][: rng.randint(1, 2)]
        real = rng.random() < 1 / 3
        pre = "preReal" if real else ("preInt" if rng.random() < 0.5 else None)
        f = R.Generator(rng, vs, ps, pre).formula(rng.randint(0, 5))
        if not R.variables(f):
            continue

        loop, period = rng.choice([0, 0, 1, 2, 3]), rng.randint(1, 3)
        states = [
            {**{v: _lasso_value(rng, real) for v in vs}, **{p: rng.random() < 0.5 for p in ps}}
            for _ in range(loop + period)
        ]
        wrap = rng.random()
        if wrap < 0.5:  # the loop start, on the first, second or third pass
            for _ in range(loop + period * rng.randint(0, 2)):
                f = ("X", f)
        elif wrap < 0.7:  # every instant
            f = ("G", f)
        out.append((f, states, loop, real))
    return out


def _random_lasso_atoms(seed: int, count: int):
    """As `_random_lassos`, for single atoms (shifts and, in all but a sixth, `pre`) read at
    one instant: 0, the loop start on its first, second (more often) or third pass, or any of
    the first ten instants; the loop starts at instant 0 in 60% of them."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        vs = ["x"] if rng.random() < 0.5 else ["x", "y"]
        real = rng.random() < 1 / 3
        pre = "preReal" if real else ("preInt" if rng.random() < 0.8 else None)
        f = R.Generator(rng, vs, [], pre).atom()
        if not R.variables(f):
            continue

        loop, period = rng.choice([0, 0, 0, 1, 2]), rng.randint(1, 3)
        states = [{v: _lasso_value(rng, real) for v in vs} for _ in range(loop + period)]
        at = rng.choice([0, loop, loop + period, loop + period, loop + 2 * period, rng.randint(0, 9)])
        for _ in range(at):
            f = ("X", f)
        out.append((f, states, loop, real))
    return out


@pytest.mark.parametrize("kind", ["formulas", "atoms"])
def test_holds_agrees_with_reference_on_random_lassos(kind):
    """`holds` on random data lassos, each also written with its loop twice (the same infinite
    word: the answer must not change)."""
    failures = []
    quads = (
        _random_lassos(SEED + 30, LASSO_PAIRS) if kind == "formulas" else _random_lasso_atoms(SEED + 32, LASSO_ATOMS)
    )
    for f, states, loop, real in quads:
        expected = R.holds_on(f, states, loop)
        for text in (R.trace_text(states, loop), R.trace_text(states + states[loop:], loop)):
            _compare_holds(f, text, real, expected, failures)
    assert not failures, _report(failures, 2 * len(quads))


def test_reference_lasso_unrolling_is_enough():
    """Unrolling the loop 3 more times than `unroll_passes` changes no answer, and neither does
    writing the same infinite word otherwise: one pass of the loop moved into the prefix, or the
    loop written twice (on the random lassos, whose formulas nest past operators and `pre`)."""
    failures = []
    for f, s, loop, _ in _random_lassos(SEED + 30, LASSO_PAIRS) + _random_lasso_atoms(SEED + 32, LASSO_ATOMS):
        cycle = s[loop:]
        answers = {
            R.holds_on(f, s, loop),
            R.holds_on(f, s, loop, extra_passes=3),
            R.holds_on(f, s + cycle, loop + len(cycle)),
            R.holds_on(f, s + cycle, loop),
        }
        if len(answers) > 1:
            failures.append(f"{R.text(f)} on [{R.trace_text(s, loop)}]")
    assert not failures, failures


def test_reference_lasso_by_hand():
    x = X_
    t = [{"x": 0}, {"x": 1}, {"x": 2}]  # x = 0; cycle{x = 1; x = 2}
    assert R.holds_on(("X", _atom("=", ("prev", x), _n(0))), t, 1)  # first pass: the prefix's state
    assert R.holds_on(("X", ("X", ("X", _atom("=", ("prev", x), _n(2))))), t, 1)  # later: the loop's last
    assert R.holds_on(("X", ("X", ("X", ("X", ("X", _atom("=", ("preInt", _n(9), x), _n(2))))))), t, 1)
    assert R.holds_on(("G", ("F", _atom("=", x, _n(1)))), t, 1)
    assert not R.holds_on(("G", _atom(">=", x, _n(1))), t, 1) and R.holds_on(("X", ("G", _atom(">=", x, _n(1)))), t, 1)
    assert R.holds_on(("G", _atom("=", ("next", ("next", x)), x)), [{"x": 1}, {"x": 2}], 0)  # data repeat
    assert R.holds_on(("G", _atom("=", ("wnext", x), ("+", x, _n(1)))), t, 1) is False
    # pre at the loop start (l = 0): init on the first pass, the loop's last state later
    assert R.holds_on(_atom("=", ("preInt", _n(5), x), _n(5)), [{"x": 1}, {"x": 2}], 0)
    assert R.holds_on(("X", ("X", _atom("=", ("preInt", _n(5), x), _n(2)))), [{"x": 1}, {"x": 2}], 0)
    # prev at 0 is missing on infinite words too; next never is
    assert not R.holds_on(_atom("=", ("prev", x), ("prev", x)), t, 1)
    assert R.holds_on(_atom("!=", ("wprev", x), ("wprev", x)), t, 1)
    assert R.holds_on(("G", _atom("<=", x, ("+", ("next", x), _n(1)))), t, 1)
    # past over the loop: H(x <= 1) fails from the first 2; once (x = 0) holds forever
    assert R.holds_on(("G", ("O", _atom("=", x, _n(0)))), t, 1)
    assert R.holds_on(("F", ("G", ("!", ("H", _atom("<=", x, _n(1)))))), t, 1)
    assert R.trace_text(t, 1) == "x = 0; cycle{x = 1; x = 2}"
    alternate = _and(("G", _atom("!=", x, ("next", x))), ("G", _atom(">=", x, _n(0))), ("G", _atom("<=", x, _n(1))))
    assert R.search_lasso(alternate, [0, 1], 3) in [([{"x": 0}, {"x": 1}], 0), ([{"x": 1}, {"x": 0}], 0)]
    assert R.search_lasso(_and(alternate, ("G", _atom("=", x, ("wprev", ("next", x))))), [0, 1], 3) is not None
    assert R.search_lasso(_and(alternate, ("G", _atom("=", x, ("prev", ("next", x))))), [0, 1], 3) is None  # at 0
    assert R.witness_holds(("G", ("F", ("&", ("ap", "p"), _atom("=", x, _n(1))))), ["x = 0", "x = 1 & p"], loop=1)
    assert not R.witness_holds(("G", ("F", ("&", ("ap", "p"), _atom("=", x, _n(1))))), ["x = 0", "x = 1"], loop=1)
