"""Past operators in each stage of the engine on its own, not only through the portfolio (where
the first stage to answer would hide a wrong one behind it): the explicit search, the bounded
search and k-liveness must agree with each other and with every small lasso, on random LTL+P
formulas and on specifications whose past is what makes them (un)satisfiable."""

from __future__ import annotations

import itertools
import random

import pytest

from ltlwit.logic.assignment import cube
from ltlwit.logic.budget import Budget, Limit
from ltlwit.logic.formula import FALSE, TRUE, Formula, ap
from ltlwit.logic.ltl import holds
from ltlwit.logic.ltl.encoding.rewrite import simplify
from ltlwit.logic.ltl.encoding.xnf import step
from ltlwit.logic.ltl.searches.bounded import Unroller
from ltlwit.logic.ltl.searches.explore import Search, Unsatisfiable
from ltlwit.logic.ltl.searches.liveness import Liveness
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trace import Trace

UNARY = ("!", "X", "F", "G", "Y", "Z", "O", "H")
BINARY = ("&", "|", "->", "<->", "U", "R", "W", "M", "S", "T")


def random_formula(rng: random.Random, size: int, names: tuple[str, ...]) -> Formula:
    if size <= 1:
        x = rng.random()
        return ap(rng.choice(names)) if x < 0.85 else (TRUE if x < 0.93 else FALSE)
    if rng.random() < 0.4:
        return Formula(rng.choice(UNARY), (random_formula(rng, size - 1, names),))
    left = rng.randint(1, max(1, size - 2))
    return Formula(
        rng.choice(BINARY), (random_formula(rng, left, names), random_formula(rng, max(1, size - 1 - left), names))
    )


def small_lassos(names: tuple[str, ...], steps: int) -> list[Trace]:
    """Every lasso of full valuations with at most `steps` steps."""
    letters = [cube(zip(names, values)) for values in itertools.product((False, True), repeat=len(names))]
    out = []
    for n in range(1, steps + 1):
        for word in itertools.product(letters, repeat=n):
            out.extend(Trace(word[:loop], word[loop:]) for loop in range(n))
    return out


def explore_verdict(g: Formula, f: Formula) -> bool:
    try:
        witness = Search(g, Limit(Budget(seconds=30))).run()
    except Unsatisfiable:
        return False
    assert holds(f, witness), (f, witness)
    return True


def bounded_verdict(g: Formula, f: Formula, max_steps: int) -> bool:
    lassos = Unroller(step(g), Limit(None), max_steps=max_steps)
    try:
        witness = lassos.advance(1 << 40)
    finally:
        lassos.close()
    if witness is None:
        return False
    assert holds(f, witness), (f, witness)
    return True


def liveness_proves(g: Formula, seconds: float = float("inf")) -> bool:
    proof = Liveness(step(g), Limit(None))
    try:
        return proof.advance(seconds)
    finally:
        proof.close()


def test_the_stages_agree_with_each_other_and_with_small_lassos() -> None:
    """The explicit search decides (exhaustion or a verified witness); the bounded search finds
    a verified lasso exactly when one exists within its bound, which every lasso of up to 4
    steps is; k-liveness proves only unsatisfiable formulas."""
    names = ("a", "b")
    lassos = small_lassos(names, 4)
    rng = random.Random(18)
    sat = unsat = proofs = 0
    for _ in range(250):
        f = random_formula(rng, rng.randint(3, 12), names)
        g = simplify(f)
        if g is FALSE or not g.temporal:
            continue
        small = any(holds(f, t) for t in lassos)
        decided = explore_verdict(g, f)
        found = bounded_verdict(g, f, 12)
        assert decided or not small, f"explicit search: unsat, but a small lasso satisfies {f}"
        assert found or not small, f"bounded search: no lasso within 12 steps for {f}"
        assert decided or not found, f"explicit search: unsat, the bounded search has a witness for {f}"
        if decided:  # soundness only: a little time, and no proof may come
            assert not liveness_proves(g, 0.05), f"k-liveness proved a satisfiable formula unsat: {f}"
            sat += 1
        else:  # unbounded: it ends with a proof or having refuted every K up to its maximum
            unsat += 1
            proofs += liveness_proves(g)
    # both kinds were met, so the comparisons above were made; small formulas are within
    # k-liveness's reach
    assert sat > 50 and unsat > 20 and proofs == unsat


@pytest.mark.parametrize(
    ("text", "satisfiable"),
    [
        ("G(grant -> O req) & F grant", True),
        ("G(grant -> O req) & F grant & G !req", False),
        ("Y a", False),
        ("Z a & G !a", True),
        ("X Y a & !a", False),
        ("G(p <-> Y !p) & X !p", False),
        ("G(p <-> Z !p) & GF p & GF !p", True),
        ("F H p & F !p & G(p -> Y p)", False),  # p can never start, so it never holds at all
        ("G F (q S p) & G !p", False),
        ("G(r -> (!q S p)) & G F r & G(p -> X G !p) & G F q", False),  # q after the only p, then r
        ("G(a -> Y Y Y b) & F a & G(b -> X X X X !a) & G(b -> X X X a)", True),
    ],
)
def test_each_stage_on_specifications(text: str, satisfiable: bool) -> None:
    f = parse_formula(text)
    g = simplify(f)
    assert explore_verdict(g, f) is satisfiable
    if satisfiable:
        assert bounded_verdict(g, f, 16)
        assert not liveness_proves(g, 0.5)
    else:
        assert not bounded_verdict(g, f, 16)


@pytest.mark.parametrize(
    "text",
    [
        "G(p -> Y p) & F p",  # p needs a p before it, back to the first instant, where Y is false
        "G(q -> (p S r)) & G !r & G F q",
        "G(busy -> (!reset S start)) & G F busy & G(start -> X reset) & G(busy -> !start)",
    ],
)
def test_k_liveness_proves_past_specifications_unsat(text: str) -> None:
    """Unsatisfiable for a reason in the past that a short invariant states: IC3's cubes hold the
    past requests monotonically (`liveness`), and the proof is certified afresh."""
    g = simplify(parse_formula(text))
    assert liveness_proves(g)
    with pytest.raises(Unsatisfiable):
        Search(g).run()


def test_a_counter_of_the_past_is_state_not_an_unrolled_chain() -> None:
    """A 4-bit counter stepped by `Y`: the lasso that reaches 15 is 16 steps long; the bounded
    search finds it, and the explicit search's states carry the counter in its past requests."""
    bits = [f"c{i}" for i in range(4)]
    inc = []
    for i, b in enumerate(bits):
        lower = " & ".join(f"Y {c}" for c in bits[:i]) or "1"
        inc.append(f"({b} <-> (Y {b} xor ({lower})))")
    zero = " & ".join(f"!{b}" for b in bits)
    full = " & ".join(bits)
    f = parse_formula(f"{zero} & G(Y 1 -> ({' & '.join(inc)})) & F({full})")
    g = simplify(f)
    assert explore_verdict(g, f)
    assert bounded_verdict(g, f, 20)
    assert not bounded_verdict(g, f, 14)


@pytest.mark.parametrize("op, satisfiable", [("Y", False), ("Z", True)])
def test_a_chain_of_twenty_thousand_past_requests_is_encoded(op: str, satisfiable: bool) -> None:
    """`Y Y ... Y a`: each request makes the next as its latch is added (the fuzzer's
    `Y` * 20,000, once quadratic in the requests): the first instant has no yesterday, so the
    strong chain is false there and the weak one true."""
    import ltlwit

    answer = ltlwit.solve(f"{op} " * 20000 + "a", model="none")
    assert answer.status == ("sat" if satisfiable else "unsat")
