"""The SAT-based searches (`explore`: aalta's explicit search; `bounded`: lasso BMC) and the
label-free cube checker, against the label-based engine and the independent reference
semantics (`ltl_reference`)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ltl_reference import random_completions, satisfies
from strategies import formulas
from test_ltl_budget import arbiter

from ltlwit.logic.budget import Limit
from ltlwit.logic.formula import FALSE, And, Formula
from ltlwit.logic.ltl import holds, solve
from ltlwit.logic.ltl.check import CubeEvaluator, cube_of, labels_for
from ltlwit.logic.ltl.encoding.expand import Translator
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.ltl.encoding.xnf import step
from ltlwit.logic.ltl.searches import explore
from ltlwit.logic.ltl.searches.bounded import Unroller, shortest_loop
from ltlwit.logic.ltl.searches.emptiness import accepting_scc
from ltlwit.logic.ltl.searches.explore import Search, Unsatisfiable
from ltlwit.logic.result import Sat
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trace import Trace

RANDOM = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def label_verdict(f: Formula) -> bool:
    """Satisfiability by the label-based automaton and Couvreur's check (the other engine)."""
    g = simplify(f)
    if g is FALSE:
        return False
    tr = Translator(g, labels_for(f.aps()))
    return accepting_scc(tr.initial, tr.edges, tr.all_marks)[0] is not None


def search(f: Formula) -> Trace | None:
    g = simplify(f)
    if g is FALSE:
        return None
    try:
        return Search(g).run()
    except Unsatisfiable:
        return None


def assert_witness(f: Formula, trace: Trace) -> None:
    """Our checker accepts it, and so does the reference semantics on concrete words matching
    it (random ones over few APs; over many, the word completing every step with false)."""
    assert holds(f, trace), (f, trace)
    names = sorted(set(f.aps()) | set(trace.aps()))
    if len(names) <= 8:
        words = random_completions(trace, names, random.Random(0), 5)
    else:
        cubes = [cube_of(s) for s in trace.steps]
        assert all(c is not None for c in cubes)
        letters = [{n: c.get(n, False) for n in names} for c in cubes]  # type: ignore[union-attr]
        words = [(letters[: len(trace.prefix)], letters[len(trace.prefix) :])]
    for prefix, cycle in words:
        assert satisfies(f, prefix, cycle), (f, trace, prefix, cycle)


@RANDOM
@given(formulas(max_leaves=10))
def test_explicit_search_agrees_with_the_label_engine(f: Formula) -> None:
    trace = search(f)
    assert (trace is not None) == label_verdict(f), f
    if trace is not None:
        assert_witness(f, trace)


@pytest.mark.parametrize("work", [1 << 30, 16], ids=["one call", "small rounds"])
@RANDOM
@given(f=formulas(max_leaves=10))
def test_bounded_lassos_are_witnesses(f: Formula, work: int) -> None:
    """With unlimited work one call decides; in rounds of doubling work from 16 units the
    probes past a stalled bound take part too."""
    g = simplify(f)
    if not g.temporal:
        return
    lassos = Unroller(step(g), Limit(None), max_steps=5)
    trace, rounds = None, 0
    try:
        while trace is None and not lassos.done:
            trace = lassos.advance(work << rounds)
            rounds += 1
    finally:
        lassos.close()
    assert work < 1 << 30 or rounds == 1
    if trace is not None:
        assert label_verdict(f)
        assert_witness(f, trace)


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_bounded_search_finds_a_shortest_lasso(n: int) -> None:
    """A token passed round n places: no lasso shorter than n steps, and one of n is found."""
    ring = [f"G(t{i} -> X t{(i + 1) % n})" for i in range(n)]
    alone = [f"G(t{i} -> !t{j})" for i in range(n) for j in range(n) if i != j]
    f = parse_formula(" & ".join(ring + alone + ["t0"] + [f"G F t{i}" for i in range(n)]))
    lassos = Unroller(step(simplify(f)), Limit(None))
    try:
        trace = lassos.advance(1 << 30)
    finally:
        lassos.close()
    assert trace is not None and len(trace.steps) == n
    assert_witness(f, trace)


def test_bounded_search_probes_past_a_hard_bound() -> None:
    """n clients granted in turn: no lasso has fewer than n steps, and refuting n - 1 steps is a
    pigeonhole problem. In rounds of doubling work (as the portfolio runs it) a probe at a
    longer bound finds a lasso first, in its own solver, and it is a witness."""
    f = arbiter(8)
    lassos = Unroller(step(simplify(f)), Limit(None))
    work = 1000
    try:
        while (trace := lassos.advance(work)) is None:
            work *= 2
    finally:
        lassos.close()
    assert lassos.low < 7 < len(trace.steps) - 1  # found beyond the shortest bound not refuted
    assert_witness(f, trace)


def test_explicit_search_meets_the_longest_postponed_eventuality_first() -> None:
    """The dive leans to granting the client that has waited longest, so that the 12-client
    arbiter's cycle is about as long as one round of grants (without the lean it wandered:
    117 steps for 8 clients, 1,150 for 16)."""
    f = arbiter(12)
    trace = Search(simplify(f), Limit(None)).run()
    assert len(trace.cycle) <= 4 * 12
    assert_witness(f, trace)


_SEARCH_IN_A_PROCESS = """
from ltlwit.logic.budget import Limit
from ltlwit.logic.ltl.searches.explore import Search
from ltlwit.logic.ltl.encoding.rewrite import simplify
from test_ltl_budget import arbiter
print(Search(simplify(arbiter(10)), Limit(None)).run())
"""


def test_explicit_search_finds_the_same_witness_in_every_process() -> None:
    """The search's order of work depends on nothing a process draws at random: formulas and
    the edge costs' keys hash alike under any string hash seed and memory layout, so the
    10-client arbiter's witness (and the work spent finding it) is the same in every run."""
    here = os.path.dirname(__file__)
    runs = {
        subprocess.run(
            [sys.executable, "-c", _SEARCH_IN_A_PROCESS],
            capture_output=True,
            text=True,
            check=True,
            cwd=here,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.pathsep.join([here, *sys.path])},
        ).stdout
        for seed in ("0", "1", "2")
    }
    assert len(runs) == 1 and runs.pop().strip()


@pytest.mark.parametrize(
    "todo_marks,pending,expected",
    [
        ([0b0001, 0b0010], 0b1111, [0b0100, 0b1000, 0b0001]),  # never met first, then the older
        ([0b0110, 0b0011], 0b1111, [0b1000, 0b0100, 0b0001]),  # 0b0001 and 0b0010 met together, last
        ([0b1111], 0b1111, [0b0001, 0b0010, 0b0100]),  # a tie at one edge: the lower bits
        ([0b0001], 0b1010, [0b0010, 0b1000]),  # no more than URGENT pending: all, lowest first
    ],
)
def test_oldest_orders_eventualities_by_how_long_they_waited(
    todo_marks: list[int], pending: int, expected: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(explore, "URGENT", 3)
    todo = [(None, None, None)] + [(None, None, ((), None, marks)) for marks in todo_marks]
    assert explore._oldest(todo, pending, 4) == expected


@RANDOM
@given(formulas(aps=("a", "b", "c"), max_leaves=10), st.data())
def test_cube_checker_is_sound(f: Formula, data) -> None:
    """Whenever the label-free pass decides a cube trace, every matching word agrees."""
    names = ("a", "b", "c")
    cube = st.dictionaries(st.sampled_from(names), st.booleans())
    prefix = data.draw(st.lists(cube, max_size=3))
    cycle = data.draw(st.lists(cube, min_size=1, max_size=3))
    verdict = CubeEvaluator(f).run(prefix + cycle, len(prefix))
    if verdict is None:
        return
    trace = Trace(*(tuple(_cube_formula(c) for c in part) for part in (prefix, cycle)))
    assert cube_of(trace.steps[0]) == (prefix + cycle)[0]
    for p, c in random_completions(trace, names, random.Random(1), 8):
        assert satisfies(f, p, c) == verdict, (f, trace)
    assert holds(f, trace) == verdict


def _cube_formula(cube: dict[str, bool]) -> Formula:
    return parse_formula(" & ".join(n if v else f"!{n}" for n, v in sorted(cube.items())) or "1")


def test_compacting_the_solver_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [
        "G F a & G F !a & G(a -> X(!a U b))",
        "G(a -> X !a) & G(!a -> X a) & F G a",
        "G F(a & X b) & G(b -> X X !a) & F G c",
        "(a U b) & G !b",
    ]
    before = [search(parse_formula(c)) for c in cases]
    monkeypatch.setattr(explore, "COMPACT_AFTER", 0)
    after = [search(parse_formula(c)) for c in cases]
    assert before == after
    assert [t is None for t in after] == [False, True, False, True]


def test_many_aps_stay_on_the_sat_path() -> None:
    """A 7-client arbiter and 100 independent alternating signals: answered with verified
    witnesses (past 12 APs, the label-based engine is not even tried)."""
    n = 7
    arbiter = parse_formula(
        " & ".join(
            [f"G(r{i} -> F g{i})" for i in range(n)]
            + [f"G F r{i}" for i in range(n)]
            + [f"G !(g{i} & g{j})" for i in range(n) for j in range(i + 1, n)]
        )
    )
    signals = parse_formula(" & ".join(f"G(p{i} <-> X !p{i})" for i in range(100)))
    for f in (arbiter, signals):
        result = solve(f)
        assert isinstance(result, Sat)
        assert_witness(f, result.witness)


def _recurrences() -> st.SearchStrategy[Formula]:
    """Conjunctions of what `shortest_loop` reads (`G F p`, `G(p -> F q)`, `G(p U q)`,
    propositional invariants under `G`) and of what it must ignore, over three APs."""
    literal = st.sampled_from([parse_formula(x) for x in ("a", "!a", "b", "!b", "c", "!c")])
    prop = st.one_of(literal, literal, formulas(("a", "b", "c"), max_leaves=3, temporal=False))

    def G(f: Formula) -> Formula:  # noqa: N802
        return Formula("G", (f,))

    recur = prop.map(lambda p: G(Formula("F", (p,))))
    part = st.one_of(
        st.tuples(prop, prop).map(lambda pq: G(Formula("->", (pq[0], Formula("F", (pq[1],)))))),
        st.tuples(prop, prop).map(lambda pq: G(Formula("U", pq))),
        prop.map(G),
        st.tuples(literal, literal).map(lambda pq: G(Formula("|", pq))),
        formulas(("a", "b", "c"), max_leaves=3),
    )
    return st.tuples(st.lists(recur, min_size=1, max_size=3), st.lists(part, max_size=4)).map(
        lambda parts: And(*parts[0], *parts[1])
    )


def _letters(names: tuple[str, ...]) -> list[dict[str, bool]]:
    return [dict(zip(names, bits)) for bits in product((False, True), repeat=len(names))]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_recurrences())
def test_no_lasso_loops_more_briefly_than_the_shortest_loop_says(f: Formula) -> None:
    """`shortest_loop` against the definition: no lasso whose loop is shorter (prefixes up to
    two letters, every letter over the three APs) satisfies the formula; and the engine's
    witnesses, whose every matching word is a model, loop at least that long."""
    bound = shortest_loop(simplify(f))
    letters = _letters(("a", "b", "c"))
    for loop in range(1, min(bound, 3)):
        for prefix_length in range(3):
            for word in product(letters, repeat=prefix_length + loop):
                assert not satisfies(f, word[:prefix_length], word[prefix_length:]), (f, bound, word)
    result = solve(f)
    if isinstance(result, Sat):
        assert len(result.witness.cycle) >= bound


def test_the_arbiter_loops_once_per_client_and_the_bounded_search_leaves_long_loops() -> None:
    """N mutually exclusive grants, each recurring through its request: a loop of N steps at
    least, whose shorter bounds are pigeonhole refutations; where twice that does not fit in
    the bounds tried there is no room for the probes, and the bounded search does not start."""
    assert [shortest_loop(simplify(arbiter(n))) for n in (2, 5, 9)] == [2, 5, 9]
    assert shortest_loop(simplify(parse_formula("G F a & G F !a & G F b"))) == 2
    assert shortest_loop(simplify(parse_formula("G(a -> F b) & G F a & G !b"))) == 1  # unsat
    f = simplify(arbiter(6))
    encoding = step(f, Search(f, Limit(None)).x)
    shortest = shortest_loop(f)
    assert not Unroller(encoding, Limit(None), max_steps=12, shortest=shortest).done
    assert Unroller(encoding, Limit(None), max_steps=11, shortest=shortest).done
    assert not Unroller(encoding, Limit(None), max_steps=11, shortest=shortest, end=1).done


def test_a_constant_word_is_found_before_the_closure_is_encoded(monkeypatch) -> None:
    """The portfolio asks for a constant word first, in a search of its own that encodes C of
    the formula only: a formula that one satisfies is answered without the closure's encoding
    (seconds on a multi-MB specification), and its witness is `cycle{σ}`."""
    from ltlwit.logic.ltl import solver
    from ltlwit.logic.ltl.check import holds
    from ltlwit.logic.ltl.searches import explore

    f = parse_formula(" & ".join(f"(F r{i} -> G(g{i} | !b{i})) & (G F r{i} -> X q{i})" for i in range(20)))
    assert simplify(f).size > solver.SMALL_SIZE  # past the small-formula automaton

    def refuse(self) -> None:
        raise AssertionError("the closure was encoded")

    monkeypatch.setattr(explore.Search, "encode", refuse)
    result = solver.solve_builtin(f)
    assert isinstance(result, Sat) and not result.witness.prefix and len(result.witness.cycle) == 1
    assert holds(f, result.witness)
