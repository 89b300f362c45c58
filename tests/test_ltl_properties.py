"""Property tests of the LTL engine (hypothesis), judged by the independent reference evaluator."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ltl_reference import random_completions, satisfies
from strategies import formulas, traces

from ltlwit.logic.formula import Formula, Not, Or
from ltlwit.logic.ltl import Budget, holds, solve
from ltlwit.logic.ltl.check import counterexample
from ltlwit.logic.ltl.encoding.rewrite import negate, simplify
from ltlwit.logic.rename import Renaming
from ltlwit.logic.result import Sat, Unknown
from ltlwit.logic.trace import Trace

APS = ("a", "b", "c")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BUDGET = Budget(seconds=5)

small = formulas(APS, max_leaves=10)
letters = st.fixed_dictionaries({n: st.booleans() for n in APS})
lassos = st.tuples(st.lists(letters, max_size=3), st.lists(letters, min_size=1, max_size=3))


def _verdict(f: Formula) -> bool:
    result = solve(f, BUDGET)
    assert not isinstance(result, Unknown), (str(f), result)
    return isinstance(result, Sat)


@SETTINGS
@given(small)
def test_every_witness_holds(f: Formula) -> None:
    result = solve(f, BUDGET)
    assert not isinstance(result, Unknown)
    if isinstance(result, Sat):
        trace = result.witness
        assert holds(f, trace)
        for prefix, cycle in random_completions(trace, APS, random.Random(0), count=8):
            assert satisfies(f, prefix, cycle), (str(f), str(trace))


@SETTINGS
@given(small, lassos)
def test_unsat_formulas_have_no_model(f: Formula, word) -> None:
    """An Unsat verdict is refuted by any lasso satisfying the formula."""
    if satisfies(f, *word):
        assert isinstance(solve(f, BUDGET), Sat)


@SETTINGS
@given(small)
def test_formula_and_negation_never_both_unsat(f: Formula) -> None:
    assert _verdict(f) or _verdict(Not(f))


@SETTINGS
@given(small, small)
def test_disjunction_sat_iff_a_disjunct_is(f: Formula, g: Formula) -> None:
    assert _verdict(Or(f, g)) == (_verdict(f) or _verdict(g))


@SETTINGS
@given(small, st.permutations(APS))
def test_renaming_keeps_verdicts(f: Formula, perm: list[str]) -> None:
    names = dict(zip(APS, [f"p_{n}" for n in perm]))
    renaming = Renaming.permutation({n: names[n] for n in f.aps()})
    assert _verdict(renaming.apply(f)) == _verdict(f)


@SETTINGS
@given(small, lassos)
def test_rewriting_preserves_equivalence(f: Formula, word) -> None:
    value = satisfies(f, *word)
    assert satisfies(simplify(f), *word) == value
    assert satisfies(negate(f), *word) == (not value)


@SETTINGS
@given(small, traces(APS, max_prefix=2, max_cycle=2, max_leaves=3))
def test_unrolling_the_cycle_keeps_the_verdict(f: Formula, t: Trace) -> None:
    unrolled = Trace(t.prefix + t.cycle, t.cycle)
    doubled = Trace(t.prefix, t.cycle + t.cycle)
    assert holds(f, t) == holds(f, unrolled) == holds(f, doubled)


@SETTINGS
@given(small, traces(APS, max_prefix=2, max_cycle=2, max_leaves=3), st.data())
def test_weakening_a_failing_step_keeps_it_failing(f: Formula, t: Trace, data) -> None:
    # failing for a real reason: a matching word violates f (not an unsatisfiable step)
    assume(counterexample(f, t) is not None)
    steps = list(t.steps)
    i = data.draw(st.integers(0, len(steps) - 1))
    extra = data.draw(formulas(APS, max_leaves=3, temporal=False))
    steps[i] = Or(steps[i], extra)
    weaker = Trace(tuple(steps[: len(t.prefix)]), tuple(steps[len(t.prefix) :]))
    assert not holds(f, weaker)


@SETTINGS
@given(small, traces(APS, max_prefix=2, max_cycle=2, max_leaves=3))
def test_check_agrees_with_reference(f: Formula, t: Trace) -> None:
    """holds=True: random completions satisfy f. holds=False (satisfiable steps): the checker's
    counterexample is a concrete word matching the trace that the reference says violates f."""
    try:
        completions = random_completions(t, APS, random.Random(1), count=8)
    except ValueError:  # an unsatisfiable step
        assert not holds(f, t)
        return
    if holds(f, t):
        for prefix, cycle in completions:
            assert satisfies(f, prefix, cycle)
        assert counterexample(f, t) is None
    else:
        word = counterexample(f, t)
        assert word is not None
        assert not satisfies(f, *word)
        _assert_matches(t, *word)


def _assert_matches(t: Trace, prefix: list[dict], cycle: list[dict]) -> None:
    """The concrete lasso is a member of the symbolic trace (position by position)."""
    from ltl_reference import prop_value

    steps = t.steps
    loop = len(t.prefix)
    pos = 0
    for letter in prefix + cycle * 2:
        assert prop_value(steps[pos], letter)
        pos = pos + 1 if pos + 1 < len(steps) else loop


@SETTINGS
@given(small, lassos)
def test_automaton_reductions_preserve_the_language(f: Formula, word) -> None:
    """Implied-obligation removal and subsumption pruning change neither emptiness nor
    membership of a lasso (checked as the product with the full-valuation word)."""
    from ltlwit.logic.ltl.check import labels_for
    from ltlwit.logic.ltl.encoding.expand import Translator
    from ltlwit.logic.ltl.searches.emptiness import accepting_scc

    L = labels_for(APS)
    g = simplify(f)
    prefix, cycle = word
    steps = [L.cube([(APS.index(n), v) for n, v in letter.items()]) for letter in prefix + cycle]
    verdicts = []
    for optimise, implied in ((True, True), (True, False), (False, False)):
        tr = Translator(g, L, optimise=optimise, implied=implied)
        empty = accepting_scc(tr.initial, tr.edges, tr.all_marks)[0] is None

        def successors(state, tr=tr):
            pos, s = state
            nxt = pos + 1 if pos + 1 < len(steps) else len(prefix)
            return [(lab, (nxt, d), m) for lab, d, m in tr.edges_within(s, steps[pos])]

        accepts = accepting_scc((0, tr.initial), successors, tr.all_marks)[0] is not None
        verdicts.append((empty, accepts))
    assert verdicts[0] == verdicts[1] == verdicts[2]
    assert verdicts[0][1] == satisfies(f, prefix, cycle)
