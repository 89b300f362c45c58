"""The k-liveness prover (IC3 over the XNF step): its proofs are sound, and it proves what the
explicit search can only exhaust."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import formulas
from test_ltl_budget import counter
from test_ltl_sat_search import label_verdict

from ltlwit.logic.budget import Budget, Limit, OutOfBudget
from ltlwit.logic.formula import Formula
from ltlwit.logic.ltl import finite, solve
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.ltl.encoding.xnf import step
from ltlwit.logic.ltl.searches.explore import Search
from ltlwit.logic.ltl.searches.liveness import Liveness, _Ic3
from ltlwit.logic.result import Sat, Unsat
from ltlwit.logic.syntax import parse_formula


def lift(n: int, up: bool = False) -> Formula:
    """BLACK's alaska lift (lift_l_n) rebuilt: n floors, a call button per floor, the lift moves
    one floor at a time on every other step, and it may leave a floor only in its direction of
    travel, which it keeps while it stays. It starts at floor 0 not going up, so it never
    leaves: `G F b1` (every button pressed again and again, and served) is unsatisfiable.
    Starting up (`up`), it can serve them all."""
    floors = range(n)
    one = " & ".join(f"(f{i} -> ({' & '.join(f'!f{j}' for j in floors if j > i)}))" for i in floors[:-1])
    parts = [f"G({one})", "!u", "f0", "up" if up else "!up", "G(u <-> X !u)"] + [f"!b{i}" for i in floors]
    stay = " & ".join(f"(f{i} <-> X f{i})" for i in floors)
    move = " & ".join(f"(f{i} -> X({' | '.join(f'f{j}' for j in floors if abs(i - j) <= 1)}))" for i in floors)
    parts.append(f"G((u -> ({stay})) & {move})")
    hold = " & ".join(f"(b{i} <-> X b{i})" for i in floors)
    wait = " & ".join(f"((b{i} & !f{i}) -> X b{i})" for i in floors)
    parts.append(f"G((!u -> ({hold})) & {wait})")
    keep = [f"((f{i} & X f{i}) -> (up <-> X up))" for i in floors]
    way = [f"((f{i} & X f{i + 1}) -> up) & ((f{i + 1} & X f{i}) -> !up)" for i in floors[:-1]]
    parts.append(f"G({' & '.join(keep + way)})")
    parts += [f"G(b{i} -> F f{i})" for i in floors] + [f"G F b{i}" for i in floors]
    return parse_formula(" & ".join(parts))


def stuck_counter(n: int) -> Formula:
    """`test_ltl_budget.counter`, forbidden to reach all ones."""
    ones = " & ".join(f"b{i}" for i in range(n))
    return parse_formula(f"({counter(n)}) & G !({ones})")


def rozier_counter(n: int) -> Formula:
    """Rozier's n-bit counter (BLACK's `counter` family): a marker `a` every n steps and n
    bits `b` after each, counting up. Under finite semantics unsatisfiable (every instant owes
    a strong next), which aalta-f proves in a fraction of a second whatever n."""

    def later(k: int, f: str) -> str:
        return "X " * k + f"({f})"

    marker = " & ".join([later(i, "!a") for i in range(1, n)] + [later(n, "a")])
    zero = " & ".join(later(i, "!b") for i in range(n))
    carry = f"(!a & (b -> {later(n, 'b')}) & (!b -> {later(n, '!b')}))"
    return parse_formula(
        f"a & G(a -> ({marker})) & {zero} & G((a & !b) -> ({later(n, 'b')} & X({carry} U a)))"
        f" & G((a & b) -> ({later(n, '!b')} & X((b & !a & {later(n, '!b')})"
        f" U (a | (!a & !b & {later(n, 'b')} & X({carry} U a))))))"
    )


def prove(f: Formula, seconds: float = float("inf")) -> bool:
    g = simplify(f)
    proof = Liveness(step(g), Limit(None))
    try:
        return proof.advance(seconds)
    finally:
        proof.close()


@pytest.mark.parametrize(
    "text",
    [
        "G F p & F G !p",
        "!p & G(!p -> X !p) & F p",
        "G(p -> X !p) & G(!p -> X p) & G F (p & X p)",
        "G F a & G(a -> X G !a)",
    ],
)
def test_invariants_prove_these(text: str) -> None:
    assert prove(parse_formula(text))


def test_the_lift_is_proved_where_the_search_exhausts() -> None:
    """With 10 buttons the explicit search needs more than 250 states; k-liveness needs the
    invariant "floor 0, not going up"."""
    f = simplify(lift(10))
    with pytest.raises(OutOfBudget):
        Search(f, Limit(Budget(states=250))).run()
    assert prove(f)
    result = solve(lift(10), Budget(seconds=60))
    assert result == Unsat("k-liveness")


def test_a_counter_that_may_not_reach_all_ones() -> None:
    """24 bits counting from 0 must reach all ones and may not: the explicit search would
    exhaust 2**24 states; the invariant "never all ones" is found in a fraction of a second."""
    assert solve(stuck_counter(24), Budget(seconds=60)) == Unsat("k-liveness")


def test_a_satisfiable_lift_is_not_proved() -> None:
    """Starting at floor 0 going up, the lift can serve every floor: K grows past every bound
    tried (for a second)."""
    f = lift(3, up=True)
    assert isinstance(solve(f), Sat)
    assert not prove(f, seconds=1.0)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas(max_leaves=12))
def test_a_proof_is_never_given_for_a_satisfiable_formula(f: Formula) -> None:
    g = simplify(f)
    if not g.temporal:
        return
    if prove(g, seconds=0.05):  # a satisfiable formula would go on to every K
        assert not label_verdict(f), f


def test_the_proof_check_rejects_what_is_not_an_invariant() -> None:
    proof = Liveness(step(simplify(parse_formula("G F p & F G !p"))), Limit(None))
    first = proof.first

    def certified(invariant: list[list[int]]) -> bool:
        run = proof._certified(invariant)
        try:
            while True:
                next(run)
        except StopIteration as stop:
            return bool(stop.value)

    proof._until = float("inf")
    assert not certified([[-first]])  # false initially
    assert not certified([])  # true, but lets the bad edge through
    proof.close()


def test_the_finite_counter_is_proved_with_frames_of_bounded_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 12-bit counter's proof takes thousands of IC3 queries; each leaves an activation
    variable behind in its frame's solver, whose every call costs time in its variables. The
    frames are rebuilt instead of growing: never more than twice the system's variables."""
    seen: list[tuple[int, int]] = []
    original = _Ic3._activation

    def recorded(ic3: _Ic3, i: int) -> int:
        act = original(ic3, i)
        seen.append((ic3.solvers[i].nof_vars(), ic3.sys.acts_from))
        return act

    monkeypatch.setattr(_Ic3, "_activation", recorded)
    assert finite.solve(rozier_counter(12), Budget(seconds=120)) == Unsat("k-liveness")
    assert len(seen) > 4 * seen[0][1]  # enough queries that unrecycled variables would pass the bound
    assert all(held <= 2 * acts_from for held, acts_from in seen)


def test_a_rebuilt_frame_keeps_its_lemmas_and_the_initial_state() -> None:
    proof = Liveness(step(simplify(parse_formula("!p & G(!p -> X !p) & F p"))), Limit(None))
    ic3 = _Ic3(proof)
    ic3._level()
    lemma = [proof.first]  # any clause over the latches: the frame must keep it
    ic3._add(lemma, 1)
    frames = list(ic3.solvers)
    for _ in range(proof.acts_from + 1):
        ic3._activation(0)
        ic3._activation(1)
    assert all(new is not old for new, old in zip(ic3.solvers, frames))
    assert not ic3.solvers[1].solve(assumptions=[-proof.first])  # the lemma
    assert ic3.solvers[1].solve(assumptions=[proof.first])
    initial = [v if value else -v for v, value in proof.init.items()]
    assert ic3.solvers[0].solve(assumptions=initial)
    assert not any(ic3.solvers[0].solve(assumptions=[-l]) for l in initial)  # F_0 is the initial state
    proof.close()
