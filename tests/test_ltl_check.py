"""The trace checker: its three stages agree with each other and with the reference."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_reference import random_completions, satisfies
from strategies import formulas, traces

from ltlwit.logic.formula import TRUE, And, Formula, Not, ap, unop
from ltlwit.logic.ltl import holds
from ltlwit.logic.ltl.check import counterexample, cube_of, evaluator, labels_for, violated
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.trace import Trace

APS = ("a", "b", "c")
small = formulas(APS, max_leaves=10)
letters = st.fixed_dictionaries({n: st.booleans() for n in APS})


def _cube(letter: dict[str, bool]) -> Formula:
    f = TRUE
    for name, value in sorted(letter.items()):
        lit = ap(name) if value else Not(ap(name))
        f = lit if f is TRUE else Formula("&", (f, lit))
    return f


@settings(max_examples=200, deadline=None)
@given(small, st.lists(letters, max_size=3), st.lists(letters, min_size=1, max_size=3))
def test_full_valuations_are_evaluated_exactly(f: Formula, prefix, cycle) -> None:
    trace = Trace(tuple(map(_cube, prefix)), tuple(map(_cube, cycle)))
    L = labels_for(tuple(dict.fromkeys(f.aps() + APS)))
    steps = [L.of(s) for s in trace.steps]
    # full valuations: the three-valued pass alone decides, and decides right
    assert evaluator(f, L).run(steps, len(prefix)) == satisfies(f, prefix, cycle)
    assert holds(f, trace) == satisfies(f, prefix, cycle)


@settings(max_examples=200, deadline=None)
@given(small, traces(APS, max_prefix=2, max_cycle=2, max_leaves=3))
def test_three_valued_pass_agrees_with_the_product(f: Formula, t: Trace) -> None:
    names = tuple(dict.fromkeys(f.aps() + t.aps()))
    L = labels_for(names)
    steps = [L.of(s) for s in t.steps]
    if any(s == L.false for s in steps):
        return
    verdict = evaluator(f, L).run(steps, len(t.prefix))
    exact = not violated(f, t)
    if verdict is not None:
        assert verdict == exact
    for prefix, cycle in random_completions(t, names, random.Random(5), count=4):
        if exact:
            assert satisfies(f, prefix, cycle)


@settings(max_examples=150, deadline=None)
@given(small, traces(APS, max_prefix=2, max_cycle=2, max_leaves=1), st.randoms(use_true_random=False))
def test_names_outside_the_formula_change_no_verdict(f: Formula, t: Trace, draw: random.Random) -> None:
    """A trace's literals over forty names the formula does not use (as on a witness of a whole
    spec file) change neither stage's verdict: the checks label the formula's names alone."""
    if any(cube_of(s) is None for s in t.steps):  # a satisfiable cube per step, where the checks project
        return

    def wider(step: Formula) -> Formula:
        extra = [ap(f"x{k}") if draw.random() < 0.5 else Not(ap(f"x{k}")) for k in range(40)]
        return Formula("&", (step, And(*extra)))

    wide = Trace(tuple(map(wider, t.prefix)), tuple(map(wider, t.cycle)))
    word = counterexample(f, wide)  # labels over every name: the word is over them all
    assert holds(f, wide) == holds(f, t) == (word is None) == (counterexample(f, t) is None)
    assert violated(f, wide) == (word is not None)
    if word is not None:
        assert all("x39" in letter for part in word for letter in part)
        assert not satisfies(f, *word)


def test_stages() -> None:
    f = parse_formula("G(a -> F b)")
    assert not holds(f, parse_trace("cycle{a & !a}"))  # unsatisfiable step
    assert holds(f, parse_trace("a; cycle{b}"))  # three-valued
    assert not holds(f, parse_trace("cycle{a}"))  # product: a word never has b
    assert holds(f, parse_trace("cycle{(a & b) | !a}"))  # product: true
    assert not holds(f, parse_trace("cycle{a | b}"))
    assert counterexample(f, parse_trace("cycle{a | b}")) is not None
    assert counterexample(f, parse_trace("cycle{(a & b) | !a}")) is None


def test_aps_outside_the_formula() -> None:
    f = parse_formula("F a")
    assert holds(f, parse_trace("other; cycle{a & !other}"))
    assert not holds(f, parse_trace("cycle{other}"))
    assert not holds(f, parse_trace("cycle{other & !other}"))


def test_many_aps_use_bdds() -> None:
    names = [f"p{i}" for i in range(16)]
    f = parse_formula(" & ".join(f"GF {n}" for n in names))
    assert holds(f, parse_trace("cycle{" + " & ".join(names) + "}"))
    assert not holds(f, parse_trace("cycle{" + " & ".join(names[:-1]) + "}"))
    assert holds(f, parse_trace("cycle{" + " & ".join(names[:8]) + "; " + " & ".join(names[8:]) + "}"))


def test_deep_formula_and_long_trace() -> None:
    f = ap("a")
    for _ in range(5000):
        f = unop("X", f)
    prefix = tuple([TRUE] * 5000)
    assert holds(f, Trace(prefix, (ap("a"),)))
    assert not holds(f, Trace(prefix, (Not(ap("a")),)))
    assert not holds(f, Trace(prefix[:-1], (ap("a"), TRUE)))


def test_the_cube_evaluator_lists_the_aps_in_the_formulas_order() -> None:
    """`CubeEvaluator.names` stands in for `Formula.aps()` on big formulas (`minimise`): the
    same names in the same order (first appearances left to right), shared subformulas too."""
    from ltlwit.logic.ltl.check import CubeEvaluator
    from ltlwit.logic.syntax import parse_formula

    for text in (
        "G(b -> F a) & (c U (b & d))",
        "(x & y) U (z | (x & y)) & X(y & w)",
        "a",
        "1 U q",
        "((p2 & p1) | (p1 & p2)) -> G(p0 | (p2 & p1))",
    ):
        f = parse_formula(text)
        assert CubeEvaluator(f).names == f.aps()
