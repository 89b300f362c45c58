"""The engine's API: budgets, engine selection, propositional formulas, AP names, depth."""

from __future__ import annotations

import random

import pytest
from ltl_reference import random_completions, satisfies

from ltlwit.logic.formula import TRUE, And, Formula, Not, ap, binop, unop
from ltlwit.logic.ltl import Budget, holds, solve
from ltlwit.logic.ltl import spot as spot_backend
from ltlwit.logic.result import Sat, Unknown, Unsat
from ltlwit.logic.syntax import parse_formula, print_trace


def _gf_alternating(n: int) -> Formula:
    """GF p0 & ... & GF p(n-1) & G(p0 -> X!p0): no constant word, a real search."""
    fs = [unop("G", unop("F", ap(f"p{i}"))) for i in range(n)]
    fs.append(unop("G", binop("->", ap("p0"), unop("X", Not(ap("p0"))))))
    return And(*fs)


def _alternating_but_settling(n: int):
    """Unsatisfiable (a alternates forever, yet F G a), with a large automaton: only an
    exhaustive search proves it."""
    return parse_formula(
        "G(a -> X!a) & G(!a -> Xa) & " + " & ".join(f"GF(p{i} xor Xp{i})" for i in range(n)) + " & F(G a)"
    )


def test_state_budget_gives_unknown_never_unsat() -> None:
    f = _alternating_but_settling(6)
    assert isinstance(solve(f, Budget(states=1)), Unknown)
    assert isinstance(solve(f), Unsat)
    assert isinstance(solve(_gf_alternating(6), Budget(states=10_000)), Sat)


def test_time_budget_gives_unknown() -> None:
    f = _alternating_but_settling(6)
    assert isinstance(solve(f, Budget(seconds=0.0)), Unknown)
    assert isinstance(solve(f), Unsat)


def test_budget_does_not_affect_easy_formulas() -> None:
    assert isinstance(solve(parse_formula("G(req -> F grant)"), Budget(seconds=0.0, states=1)), Sat)


def test_engine_selection() -> None:
    f = parse_formula("a U b")
    assert solve(f, engine="builtin") == solve(f, engine="auto")
    with pytest.raises(ValueError, match="unknown engine"):
        solve(f, engine="nusmv")
    with pytest.raises(ValueError, match="unknown engine"):
        holds(f, solve(f).witness, engine="")


def test_spot_engine_without_spot_is_a_clear_error() -> None:
    if spot_backend.available():
        pytest.skip("Spot is importable here; tests/test_ltl_spot.py covers it")
    with pytest.raises(ValueError, match="import spot"):
        solve(parse_formula("a"), engine="spot")


def test_propositional_formulas_use_the_sat_path() -> None:
    f = parse_formula("(a -> b) & (b xor c) & !(a <-> c)")
    result = solve(f)
    assert isinstance(result, Sat)
    trace = result.witness
    assert not trace.prefix and len(trace.cycle) == 1
    assert holds(f, trace)
    assert isinstance(solve(parse_formula("(a xor b) & (a <-> b)")), Unsat)
    wide = And(*[binop("|", ap(f"x{i}"), ap(f"y{i}")) for i in range(15)])
    result = solve(wide)
    assert isinstance(result, Sat) and holds(wide, result.witness)
    assert len(result.witness.cycle[0].aps()) == 15  # subset-minimal: one literal per clause


def test_many_aps_temporal() -> None:
    f = And(_gf_alternating(14), unop("F", unop("G", Not(ap("p13")))))
    assert isinstance(solve(f), Unsat)
    f = _gf_alternating(14)
    result = solve(f)
    assert isinstance(result, Sat) and holds(f, result.witness)


def test_arbitrary_ap_names() -> None:
    f = parse_formula('G("x < 3" -> F "say \\"hi\\"") & F "x < 3"')
    result = solve(f)
    assert isinstance(result, Sat)
    assert set(result.witness.aps()) <= set(f.aps())
    for prefix, cycle in random_completions(result.witness, f.aps(), random.Random(0)):
        assert satisfies(f, prefix, cycle)


def test_witness_mentions_only_needed_aps() -> None:
    f = parse_formula("(a | b | c) U (d & X G!d)")
    trace = solve(f).witness
    assert print_trace(trace) in ("d; cycle{!d}",)


def test_deep_formulas_do_not_crash() -> None:
    a = ap("a")
    f = a
    for _ in range(5000):
        f = unop("X", f)
    result = solve(And(f, Not(a)))
    assert isinstance(result, Sat) and len(result.witness.prefix) == 1
    g = a
    for i in range(3000):
        g = binop("U", ap(f"p{i % 3}"), g)
    assert isinstance(solve(g), Sat)
    h = a
    for i in range(1000):
        h = binop("&", h, unop("X", ap("b"))) if i % 2 else binop("|", Not(a), unop("F", h))
    assert isinstance(solve(h, Budget(seconds=20)), (Sat, Unknown))
    assert isinstance(solve(h, Budget(seconds=0.0)), (Sat, Unknown))


def test_constants() -> None:
    assert isinstance(solve(TRUE), Sat) and print_trace(solve(TRUE).witness) == "cycle{1}"
    assert solve(parse_formula("0")) == Unsat("rewriting")


def test_witnesses_do_not_depend_on_process_history() -> None:
    from ltlwit.logic.ltl import clear_caches
    from ltlwit.logic.syntax import parse_trace

    texts = [
        "G(a -> X!a) & GF a & F(b & X b)",
        "(a U b) U (c & X!c)",
        "!a W a",
        "G(req -> F grant)",
        "F((X(0) U (G(X!a W Xa) M !a)) & ((1 U a) W GXXa))",
    ]
    first = [solve(parse_formula(t)) for t in texts]
    for t in texts:  # unrelated work that fills every cache
        f = parse_formula(t)
        holds(f, parse_trace("cycle{a | b; !a}"))
        solve(parse_formula(f"X({t}) | G c"))
    assert [solve(parse_formula(t)) for t in texts] == first
    clear_caches()
    assert [solve(parse_formula(t)) for t in reversed(texts)] == list(reversed(first))
