"""`solve --all` names each set of words once (`same_words`): witnesses that differ only in how
their steps are written, or in how far the loop is unrolled, are one witness."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import formulas
from test_pipeline import Fake, run

from ltlwit.logic.assignment import Assignment
from ltlwit.logic.formula import Formula
from ltlwit.logic.syntax import parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.logic.witness import same_words


def test_the_same_words_written_differently() -> None:
    same = [
        ("cycle{!a | b}", "cycle{b | !a}"),
        ("a; cycle{a}", "cycle{a}"),
        ("cycle{a; b}", "a; b; cycle{a; b}"),
        ("cycle{a; b}", "a; cycle{b; a}"),
        ("cycle{a}", "cycle{a; a; a}"),
        ("a & (b | !b); c", "a; c"),
    ]
    for x, y in same:
        assert same_words(parse_trace(x), parse_trace(y)), (x, y)
        assert same_words(parse_trace(y), parse_trace(x)), (y, x)
    different = [
        ("cycle{a}", "cycle{b}"),
        ("cycle{a; b}", "cycle{b; a}"),
        ("a; cycle{b}", "cycle{b}"),
        ("a; b", "a; b; b"),
        ("a; b", "cycle{a; b}"),
        ("cycle{a; a; b}", "cycle{a; b}"),
    ]
    for x, y in different:
        assert not same_words(parse_trace(x), parse_trace(y)), (x, y)
    assert same_words(Assignment.of({"a": True}), Assignment.of({"a": True}))
    assert not same_words(Assignment.of({"a": True}), Assignment.of({"a": True, "b": False}))


def unrolled(t: Trace, times: int, rotate: int) -> Trace:
    """The same lasso with its loop unrolled `times` more times and then `rotate` of its steps
    moved from the loop's head into the prefix."""
    prefix = list(t.prefix) + list(t.cycle) * times
    cycle = list(t.cycle)
    for _ in range(rotate):
        prefix.append(cycle[0])
        cycle = cycle[1:] + cycle[:1]
    return Trace(tuple(prefix), tuple(cycle))


steps = formulas(("a", "b"), max_leaves=3, temporal=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(steps, max_size=3), st.lists(steps, min_size=1, max_size=3), st.integers(0, 2), st.integers(0, 3))
def test_unrolling_a_lasso_keeps_its_words(
    prefix: list[Formula], cycle: list[Formula], times: int, rotate: int
) -> None:
    t = Trace(tuple(prefix), tuple(cycle))
    assert same_words(t, unrolled(t, times, rotate))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(steps, min_size=1, max_size=2), st.lists(steps, min_size=1, max_size=2), formulas(("a", "b"), max_leaves=5)
)
def test_witnesses_of_the_same_words_agree_on_every_formula(c1: list[Formula], c2: list[Formula], f: Formula) -> None:
    """Where two lassos are said to have the same words, no formula tells them apart (each
    is judged by the engine-free reference on its concrete words)."""
    t1, t2 = Trace((), tuple(c1)), Trace((), tuple(c2))
    if same_words(t1, t2):
        from ltlwit.logic.ltl import holds

        assert holds(f, t1) == holds(f, t2), (t1, t2, f)


def test_all_lists_each_set_of_words_once() -> None:
    model = Fake(
        lambda f: [
            parse_trace("cycle{!a | b}"),
            parse_trace("cycle{b | !a}"),
            parse_trace("b; cycle{b}"),
            parse_trace("cycle{b}"),
        ]
    )
    answers = run(["G(a -> F b)"], model, all=True, top=4)
    witnesses = [a.witness for a in answers]
    assert len(witnesses) >= 2
    assert not any(same_words(x, y) for i, x in enumerate(witnesses) for y in witnesses[i + 1 :]), witnesses
