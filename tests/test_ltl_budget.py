"""Time budgets are honoured everywhere the engine can spend unbounded time (term products,
label computations, witness minimisation, the final check), an interrupted solve is Unknown and
never a wrong verdict, and no cache keeps a partial result computed under an aborted budget."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from ltlwit.logic import budget
from ltlwit.logic.budget import Limit, OutOfTime
from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl import Budget, clear_caches, holds, solve
from ltlwit.logic.ltl import solver as solver_module
from ltlwit.logic.ltl.check import labels_for
from ltlwit.logic.ltl.encoding import expand
from ltlwit.logic.ltl.encoding.expand import MAX_UNCHECKED_PAIRS, Translator
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.syntax import parse_formula


def arbiter(n: int) -> Formula:
    """n clients, each request eventually granted, infinitely many requests, grants exclusive."""
    text = (
        " & ".join(f"G(r{i} -> F g{i})" for i in range(n))
        + " & "
        + " & ".join(f"G F r{i}" for i in range(n))
        + " & G !("
        + " | ".join(f"(g{i} & g{j})" for i in range(n) for j in range(i + 1, n))
        + ")"
    )
    return parse_formula(text)


def untils(n: int) -> Formula:
    """n pending `p U qi`, q0 and q1 never together: no constant word, and every state's
    expansion is a product of 2**n terms for the label-based engine."""
    return parse_formula(" & ".join(f"(p U q{i})" for i in range(n)) + " & G !(q0 & q1)")


def counter(n: int) -> Formula:
    """An n-bit binary counter from 0 that must reach all ones: every witness is 2**n steps
    long, so any explicit search explores 2**n states (hours at n = 24)."""
    bits = [f"b{i}" for i in range(n)]
    steps = [f"G(X {b} <-> ({b} xor ({' & '.join(bits[:i]) or '1'})))" for i, b in enumerate(bits)]
    return parse_formula(" & ".join([f"!{b}" for b in bits] + steps + [f"F({' & '.join(bits)})"]))


def late_pigeons(n: int) -> Formula:
    """BLACK's phltl_n_n-1: n pigeons that, once seen, return every n - 1 steps, at most one at
    a time, each infinitely often: unsatisfiable, and a pigeonhole principle in time that
    neither the searches nor k-liveness (nor any of BLACK's peers within 300 s at n = 10)
    refute."""
    ps = [f"p{i}" for i in range(n)]
    alone = " & ".join(f"!({a} & {b})" for i, a in enumerate(ps) for b in ps[i + 1 :])
    back = " & ".join(f"G({p} -> {'X ' * (n - 1)}{p})" for p in ps)
    return parse_formula(f"G({alone}) & " + " & ".join(f"G F {p}" for p in ps) + f" & {back}")


@pytest.mark.parametrize("make, n", [(counter, 24), (late_pigeons, 10)], ids=["counter24", "late_pigeons10"])
@pytest.mark.parametrize("reads", [0, 5, 40])
def test_time_budget_stops_huge_expansions(monkeypatch: pytest.MonkeyPatch, make, n, reads: int) -> None:
    """Formulas hours away from an answer read the clock all along: a budget that runs out at
    any of its reads stops the solve right there, with Unknown."""
    formula = make(n)
    counter = Countdown(reads)
    monkeypatch.setattr(solver_module, "Limit", lambda budget: counter)
    assert solve(formula, Budget(seconds=0.5)) == Unknown("time budget exhausted")
    assert counter.left == [-1]  # stopped at exactly that read, never past it


def test_after_a_timeout_unbudgeted_solves_are_complete() -> None:
    assert isinstance(solve(late_pigeons(10), Budget(seconds=0.3)), Unknown)
    for n in (2, 3):
        f = arbiter(n)
        assert isinstance(solve(f, Budget(seconds=0.3)), (Sat, Unknown))
        result = solve(f)
        assert isinstance(result, Sat) and holds(f, result.witness)
    bad = parse_formula("G F r0 & G(r0 -> F g0) & G !g0")
    assert isinstance(solve(bad, Budget(seconds=0.0)), (Unsat, Unknown))
    assert solve(bad) == Unsat("emptiness")


# -- deterministic interruption at every clock read ----------------------------------------------


class Countdown(Limit):
    """A deadline that passes at the k-th clock read (shared with its bounded sub-proofs)."""

    def __init__(self, calls: int) -> None:
        super().__init__(None)
        self.deadline = math.inf
        self.left = [calls]

    def with_states(self, states: int | None) -> "Countdown":
        sub = Countdown(0)
        sub.states = states
        sub.left = self.left
        return sub

    def check_time(self) -> None:
        self.left[0] -= 1
        if self.left[0] < 0:
            raise OutOfTime("time budget exhausted")


def _sweep(monkeypatch: pytest.MonkeyPatch, f: Formula) -> int:
    """Interrupt the solve of f at its 0th, 1st, ... clock read; every interrupted solve must be
    Unknown, every finished one identical to the unbudgeted answer, and the unbudgeted answer
    must still be right after each interruption. Returns the number of clock reads."""
    clear_caches()
    expected = solve(f)
    counter = Countdown(10**9)
    monkeypatch.setattr(solver_module, "Limit", lambda budget: counter)
    assert solve(f, Budget(seconds=1)) == expected
    reads = 10**9 - counter.left[0]
    assert reads > 0
    clear_caches()
    interrupted = 0
    for k in range(reads + 1):
        monkeypatch.setattr(solver_module, "Limit", lambda budget, k=k: Countdown(k))
        result = solve(f, Budget(seconds=1))
        # warmer shared caches (the checker's automaton) can need fewer reads than counted
        assert result in (Unknown("time budget exhausted"), expected), k
        interrupted += isinstance(result, Unknown)
        if k == reads:
            assert result == expected
        # the same process, caches as the interrupted solve left them
        monkeypatch.setattr(solver_module, "Limit", Limit)
        assert solve(f) == expected, k
        if isinstance(expected, Sat):
            assert holds(f, expected.witness)
    assert interrupted >= min(reads, 3)
    return reads


@pytest.mark.parametrize(
    "text",
    [
        "G F a & G F b & G(a -> X !a) & G(b -> X(!b U a))",  # search, witness paths, minimisation
        "G(a -> X !a) & G(!a -> X a) & G F(b xor X b) & F G a",  # unsat: exhaustive search
        "(F c | F !c) & G F a & G(a -> X !a)",  # the final check needs the product with ¬φ
        "G(a -> X !a) & G F a & (X c U d | G !c) & F(d & X d)",
    ],
)
@pytest.mark.parametrize("dense", [False, True], ids=["real", "dense"])
def test_interrupted_at_every_check_never_a_wrong_verdict(
    monkeypatch: pytest.MonkeyPatch, text: str, dense: bool
) -> None:
    if dense:  # a clock read at every pair, term and BFS state: every check site gets hit
        monkeypatch.setattr(budget, "CHECK_EVERY", 1)
        monkeypatch.setattr(expand, "CHECK_EVERY", 1)
        monkeypatch.setattr(expand, "MAX_UNCHECKED_PAIRS", 0)
    reads = _sweep(monkeypatch, parse_formula(text))
    assert reads > (30 if dense else 5)


def test_interrupted_expansion_caches_nothing_partial() -> None:
    # 11 pending `p U qi`: the initial state's product has 2**11 > MAX_UNCHECKED_PAIRS terms,
    # so the checked product (and the term reduction) read the clock many times
    f = simplify(untils(11))
    assert 2**11 > MAX_UNCHECKED_PAIRS
    L = labels_for(tuple(f.aps()))
    reference = Translator(f, L)
    want = reference.edges(reference.initial)
    tr = Translator(f, L)
    k = 0
    while True:
        tr.limit = Countdown(k)
        try:
            got = tr.edges(tr.initial)
            break
        except OutOfTime:
            k += 1
    assert k > 3  # interrupted inside the expansion several times, not only at its start
    assert got == want
    tr.limit = None
    assert tr.edges(tr.initial) == want
    for _, dst, _ in want[:5]:
        assert tr.edges(dst) == reference.edges(dst)
    # the trace checker's restricted expansions, with a limit of their own
    tr2 = Translator(f, L)
    letters = L.of(parse_formula("p & !q0"))
    k = 0
    while True:
        try:
            got = tr2.edges_within(tr2.initial, letters, Countdown(k))
            break
        except OutOfTime:
            k += 1
    assert k > 0 and got == reference.edges_within(reference.initial, letters)


# -- hard limits inside C code, and the memory ceiling --------------------------------------------


def pigeons(n: int) -> Formula:
    """Always n pigeons in n - 1 holes, and infinitely often q: the constant-word check is one
    SAT call on the pigeonhole formula, exponential for resolution (minutes at n = 11)."""
    holes = range(n - 1)
    some = [" | ".join(f"p{i}_{h}" for h in holes) for i in range(n)]
    alone = [f"!(p{i}_{h} & p{j}_{h})" for h in holes for i in range(n) for j in range(i + 1, n)]
    return parse_formula(f"G(({') & ('.join(some)}) & {' & '.join(alone)}) & G F q")


def test_the_deadline_stops_a_single_long_sat_call() -> None:
    """No loop reads the clock inside a SAT call: the watchdog interrupts it."""
    assert solve(pigeons(11), Budget(seconds=0.3)) == Unknown("time budget exhausted")


@pytest.mark.parametrize(
    "make, n",
    [(counter, 24), (late_pigeons, 10), (pigeons, 11), (arbiter, 3)],
    ids=["counter24", "late_pigeons10", "pigeons11", "arbiter3"],
)
def test_memory_ceiling_gives_unknown_with_its_reason(make, n) -> None:
    """A ceiling below what the process already uses is reached at the first read of memory,
    in the Python loops and in a SAT call alike; arbiter(3) takes the label-based path."""
    result = solve(make(n), Budget(memory=1 << 20))
    assert result == Unknown("memory limit of 1 MiB reached")


def test_encoding_a_big_formula_reads_the_deadline() -> None:
    """A multi-MB formula's encoding takes seconds with no SAT call for the watchdog to stop:
    the explicit search's encoding reads the deadline as it goes (`Xnf.tick`), so a deadline
    that passes meanwhile ends it there, before any search."""
    from ltlwit.logic.budget import OutOfTime
    from ltlwit.logic.ltl.encoding.xnf import TICK
    from ltlwit.logic.ltl.searches.explore import Search

    f = simplify(parse_formula(" & ".join(f"G(p{i} -> F(q{i} & X r{i}))" for i in range(TICK // 4))))
    calls = []

    class Expiring(Limit):
        def check_time(self) -> None:
            calls.append(1)
            raise OutOfTime("time budget exhausted")

    with pytest.raises(OutOfTime):
        Search(f, Expiring(None))
    assert calls == [1]  # the first tick, while encoding


def test_the_check_of_a_big_witness_reads_the_deadline() -> None:
    """The final check's linear pass over a specification of more than `TIMED_PASS` nodes
    stops at a spent deadline (the solve answers UNKNOWN instead of a second late); with time
    left, or without a limit, it decides."""
    from ltlwit.logic.assignment import cube
    from ltlwit.logic.ltl import check
    from ltlwit.logic.trace import Trace

    n = check.TIMED_PASS // 2 + 1
    big = parse_formula(" & ".join(f"G(r{i} -> F g{i})" for i in range(n)))
    trace = Trace((), (cube((f"r{i}", False) for i in range(n)),))  # no request, ever
    assert len(check.cube_evaluator(big).plan) > check.TIMED_PASS
    assert check.holds(big, trace) is True
    assert check.holds(big, trace, Limit(Budget(seconds=60))) is True
    with pytest.raises(OutOfTime):
        check.holds(big, trace, Limit(Budget(seconds=0.0)))


def test_a_big_conjunction_build_reads_the_deadline(monkeypatch) -> None:
    """Rewriting reads the deadline every 1,024 nodes and, besides, in each n-ary build of more
    than `BIG_NARY` operands (one such build of a 70,000-conjunct root takes most of a second):
    with a spent deadline the root's build is where it stops, even with the per-node reads
    made too rare to catch it."""
    from ltlwit.logic.ltl.encoding import rewrite

    n = rewrite.BIG_NARY + 1
    big = parse_formula(" & ".join(f"G(r{i} -> F g{i})" for i in range(n)))
    rewrite.clear_memo()
    limit = Limit(Budget(seconds=0.0))
    read = []
    check_time = limit.check_time
    monkeypatch.setattr(limit, "check_time", lambda: (read.append(len(read)), check_time()))
    monkeypatch.setattr(rewrite, "_run", _rare_reads(rewrite._run))
    with pytest.raises(OutOfTime):
        rewrite.simplify(big, limit)
    assert read  # the build of the root read it
    assert rewrite.simplify(big) is not None  # no limit: rewritten whole


def _rare_reads(run):
    """`rewrite._run` with its per-node deadline reads left out (it is given no limit)."""

    def without(root, neg, limit=None):
        return run(root, neg, None)

    return without


def test_the_encodings_walk_reads_the_deadline_on_nodes_met_again() -> None:
    """`_bottom_up` reads the clock every `TICK` nodes it visits, those already encoded too: on
    a multi-MB formula the walks over encoded nodes took a second between two readings and the
    UNKNOWN came 1-2 s late. Here each node is listed 50 times as a child, so the walk meets
    the 200-odd nodes 10,000 times and builds each once."""
    from ltlwit.logic.ltl.encoding.xnf import TICK, _bottom_up

    f = parse_formula(" & ".join(f"(a{i} | b{i})" for i in range(70)))
    ticks = []
    memo: dict = {}
    clock = SimpleNamespace(visited=0, tick=lambda: ticks.append(1))
    _bottom_up(memo, f, lambda node: node.children * 50, lambda node, kids: 1, clock)
    assert len(memo) == f.size < TICK
    assert len(ticks) >= 2


def test_many_small_walks_read_the_deadline_together() -> None:
    """A multi-MB specification's encoding is 100,000s of walks of a few nodes each (its
    closure's formulas one by one): the count of nodes visited goes on from walk to walk, so
    the deadline is read every `TICK` nodes of all of them, not never."""
    from ltlwit.logic.ltl.encoding.xnf import TICK, Xnf

    x = Xnf()
    ticks = []
    x.tick = lambda: ticks.append(1)
    for i in range(TICK):
        x.now(parse_formula(f"G(!p{i} | F q{i})"))
    assert len(ticks) >= 4


def test_unrolling_a_big_step_reads_the_deadline() -> None:
    """The bounded search copies a step's clauses from Python (about 1 µs each): a step of a
    multi-MB formula took tenths of a second, the loop constraints of a bound as long, and the
    deadline passed unread. The copy reads it every `CHECK_CLAUSES` clauses, the loop
    constraints once per loop step, and a spent deadline stops either."""
    from ltlwit.logic.ltl.encoding.xnf import step
    from ltlwit.logic.ltl.searches import bounded
    from ltlwit.logic.ltl.searches.explore import Search

    f = simplify(parse_formula(" & ".join(f"G(p{i} -> F(q{i} & X r{i}))" for i in range(2000))))
    encoding = step(f, Search(f, Limit(None)).x)
    assert len(encoding.clauses) > 2 * bounded.CHECK_CLAUSES
    reads = []

    class Counting(Limit):
        def check_time(self) -> None:
            reads.append(1)

    unroller = bounded.Unroller(encoding, Counting(None))
    unroller.add_step()
    assert len(reads) == math.ceil(len(encoding.clauses) / bounded.CHECK_CLAUSES)
    unroller.close()

    class Expired(Limit):
        def check_time(self) -> None:
            raise OutOfTime("time budget exhausted")

    unroller = bounded.Unroller(encoding, Expired(None))
    with pytest.raises(OutOfTime):
        unroller.add_step()
    unroller.close()


def test_the_closure_walk_reads_the_deadline() -> None:
    """The walk collecting a formula's closure, before any encoding, reads it every 4,096 nodes
    (on a multi-MB specification it took 0.4 s, after rewriting had used up the time)."""
    from ltlwit.logic.ltl.encoding.expand import _closure

    f = simplify(parse_formula(" & ".join(f"G(p{i} -> F(q{i} & X r{i}))" for i in range(2000))))
    ticks = []
    closure = _closure(f, lambda: ticks.append(1))
    assert closure == _closure(f)
    assert len(ticks) >= len(closure) // 4096 >= 1


def test_the_final_check_of_a_long_lasso_reads_the_deadline() -> None:
    """A small formula over a lasso of 100,000s of steps is as long a pass as a multi-MB
    formula's (a machine word of each node's masks per 64 positions): it reads the deadline
    too, so a counter's witness found just before it is not checked a second after it."""
    from ltlwit.logic.assignment import cube
    from ltlwit.logic.ltl import check
    from ltlwit.logic.trace import Trace

    f = parse_formula("G(a -> F b)")
    plan = len(check.cube_evaluator(f).plan)
    n = 64 * (check.TIMED_PASS // plan + 1)
    steps = (cube([("a", True), ("b", False)]), cube([("a", False), ("b", True)]))
    trace = Trace((), steps * (n // 2))
    assert plan * (n // 64) > check.TIMED_PASS >= plan
    assert check.holds(f, trace, Limit(Budget(seconds=60))) is True
    with pytest.raises(OutOfTime):
        check.holds(f, trace, Limit(Budget(seconds=0.0)))


def test_minimise_does_not_repeat_the_final_checks_pass_when_it_cannot_drop(monkeypatch) -> None:
    """On a big formula and a witness of full valuations, a budget that affords no dropping
    gets no pass at all (the final check's is exact there: it would be done twice), judged by
    the evaluator's build, which the minimiser just timed; with the evaluator kept from an
    earlier check (a build of no time) and time to drop, the passes are made as before."""
    from ltlwit.logic.assignment import cube
    from ltlwit.logic.ltl import check, witness
    from ltlwit.logic.trace import Trace

    n = check.TIMED_PASS // 5 + 1
    big = parse_formula(" & ".join(f"G(r{i} -> F g{i})" for i in range(n)))
    assert big.size > check.TIMED_PASS
    trace = Trace((), (cube([(f"r{i}", False) for i in range(n)] + [(f"g{i}", True) for i in range(n)]),))
    clear_caches()  # the evaluator is built, and timed, by the minimiser
    passes = []
    run = check.CubeEvaluator.run
    monkeypatch.setattr(check.CubeEvaluator, "run", lambda self, *a, **k: (passes.append(1), run(self, *a, **k))[1])
    kept = witness.minimise(big, trace, Limit(None), seconds=0.0)
    assert passes == []
    assert check.holds(big, kept) and len(passes) == 1
    again = witness.minimise(big, trace, Limit(None), seconds=30.0)  # dropping for at most 2 s
    assert len(passes) >= 2 and check.holds(big, again)
