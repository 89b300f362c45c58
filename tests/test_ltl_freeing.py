"""A solve that runs out of time frees what its searches built by reference counting, before
it answers: nothing is left for Python's cyclic collector, whose collection of a search's
million objects came after the answer, past the deadline (and `collector_paused` froze them for
good when a solve ended with enough of them alive)."""

from __future__ import annotations

import gc

from ltlwit.logic.ltl import Budget
from ltlwit.logic.ltl.solver import solve_builtin
from ltlwit.logic.result import Unknown
from ltlwit.logic.syntax import parse_formula


def _next(n: int, f: str) -> str:
    return "X(" * n + f + ")" * n


def counter(n: int) -> str:
    """Rozier's n-bit binary counter (BLACK's suite): satisfiable, by a lasso of period n * 2^n."""
    X = _next
    same = f"(b -> {X(n, 'b')}) & (!b -> {X(n, '!b')})"
    return (
        f"a & G(a -> {' & '.join(X(i, '!a') for i in range(1, n))} & {X(n, 'a')}) & !b & "
        + " & ".join(X(i, "!b") for i in range(1, n))
        + f" & G(a & !b -> {X(n, 'b')} & X((!a & {same}) U a))"
        + f" & G(a & b -> {X(n, '!b')} & X((b & !a & {X(n, '!b')}) U (a | !a & !b & {X(n, 'b')} & X((!a & {same}) U a))))"
    )


def test_a_search_out_of_time_leaves_no_cycles():
    f = parse_formula(counter(12))  # no search reaches its period in two seconds
    solve_builtin(parse_formula("G F a & G(a -> Y !a)"))  # the searches' modules imported (their classes' cycles)
    gc.collect()
    gc.disable()  # so that no collection meets the garbage before it is counted
    try:
        result = solve_builtin(f, Budget(seconds=2.0))
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert isinstance(result, Unknown)
    # the exception that stopped the search and its frames (a few dozen objects) may be in a
    # cycle; the search's states, iterators and solvers (hundreds to millions) must not be
    assert left < 200, left
