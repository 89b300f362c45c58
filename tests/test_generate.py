"""The random formula generator (Spot randltl's algorithm) and DeepLTL's size gate."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltlwit.logic.formula import BINARY, UNARY
from ltlwit.train.generate import PRIORITIES, RandomFormulas, SizeGate


@settings(max_examples=60, deadline=None)
@given(
    alphabet=st.sampled_from(sorted(PRIORITIES)),
    n=st.integers(1, 80),
    n_aps=st.integers(1, 12),
    seed=st.integers(0, 2**32),
)
def test_formula_has_exactly_the_size_asked_and_only_the_alphabets_tokens(alphabet, n, n_aps, seed):
    f = RandomFormulas(n_aps, alphabet).formula(n, random.Random(seed))
    assert f.size == n
    allowed = {op for op, w in PRIORITIES[alphabet].items() if w > 0}
    slots = {chr(ord("a") + i) for i in range(n_aps)}
    for node in f.walk():
        if node.op == "ap":
            assert node.name in slots
        else:
            assert node.op in allowed


def test_same_seed_same_formulas_other_seed_others():
    gen = RandomFormulas(5, "ltl35")
    draw = lambda seed: [gen.formula(20, r) for r in [random.Random(seed)] for _ in range(50)]  # noqa: E731
    assert draw(7) == draw(7)
    assert draw(7) != draw(8)


def test_leaves_follow_the_ap_priority_and_pick_aps_uniformly():
    gen, rng = RandomFormulas(4, "ltl35"), random.Random(0)
    leaves = Counter(gen.formula(1, rng).to_str("polish") for _ in range(8000))
    # ap weight 3 against 1 + 1 for the constants: 60% APs, 20% each constant
    assert abs(sum(leaves[x] for x in "abcd") / 8000 - 0.6) < 0.03
    assert abs(leaves["1"] / 8000 - 0.2) < 0.03
    assert all(abs(leaves[x] / 8000 - 0.15) < 0.02 for x in "abcd")


def test_size_two_is_a_unary_operator_over_a_leaf():
    gen, rng = RandomFormulas(3, "ltl35"), random.Random(1)
    roots = Counter(gen.formula(2, rng).op for _ in range(2000))
    assert set(roots) == {"!", "X"}
    assert abs(roots["!"] - roots["X"]) < 200


def test_operators_follow_priorities_and_binary_splits_are_uniform():
    gen, rng = RandomFormulas(5, "prop"), random.Random(2)
    formulas = [gen.formula(9, rng) for _ in range(12000)]
    roots = Counter(f.op for f in formulas)
    # ! & | weight 2, <-> xor weight 1
    for op in ("!", "&", "|"):
        assert abs(roots[op] / 12000 - 0.25) < 0.02
    for op in ("<->", "xor"):
        assert abs(roots[op] / 12000 - 0.125) < 0.02
    left = Counter(f.children[0].size for f in formulas if f.op in BINARY)
    assert set(left) == set(range(1, 8))  # 8 tokens below the root, left gets 1..7
    assert max(left.values()) / min(left.values()) < 1.25


def test_binary_only_alphabets_have_only_odd_sizes():
    gen = RandomFormulas(2, {"ap": 1, "&": 1})
    assert gen.feasible(7) and not gen.feasible(6) and not gen.feasible(2)
    assert gen.formula(7, random.Random(0)).size == 7
    with pytest.raises(ValueError):
        gen.formula(6, random.Random(0))


def test_bad_priorities_are_rejected():
    with pytest.raises(ValueError, match="unknown alphabet"):
        RandomFormulas(3, "ctl")
    with pytest.raises(ValueError, match="unknown operators"):
        RandomFormulas(3, {"ap": 1, "A": 1})
    with pytest.raises(ValueError, match="leaf"):
        RandomFormulas(3, {"!": 1, "&": 1})


def test_gate_caps_every_size_at_deepltls_target():
    gate = SizeGate(max_size=35, count=2600, uniform_from=10, alpha=0.112)
    assert gate.cap == 89  # ceil(2600 * 0.888 / 26)
    for _ in range(88):
        gate.accept(12)
    assert gate.is_open(12)
    assert not gate.is_open(12, pending={12: 1})
    gate.accept(12)
    assert not gate.is_open(12) and 12 not in gate.open_sizes()
    assert not gate.is_open(36) and not gate.is_open(0)


def test_gate_is_full_when_the_uniform_range_is_full_or_exhausted():
    gate = SizeGate(max_size=12, count=30, uniform_from=11, alpha=0.0, patience=3)
    assert gate.cap == 15 and not gate.full()
    for _ in range(15):
        gate.accept(11)
    assert not gate.full()
    for _ in range(2):
        gate.accept(12)
    for _ in range(3):
        gate.fail(12)  # three failures in a row close the bin: it ran out of distinct formulas
    assert 12 in gate.closed and gate.cap == 28 and not gate.full()  # size 11 takes what 12 left
    for _ in range(13):
        gate.accept(11)
    assert gate.full()
    assert gate.is_open(5)  # small sizes do not keep the gate open


def test_water_filling_shares_out_what_exhausted_sizes_leave():
    gate = SizeGate(max_size=4, count=100, uniform_from=1, alpha=0.0, patience=2)
    assert gate.cap == 25
    gate.accept(1)
    gate.fail(1), gate.fail(1)  # size 1 held one formula
    assert gate.cap == 33  # (100 - 1) / 3, rounded up
    gate.close([2])
    assert gate.cap == 50 and gate.open_sizes() == [3, 4]


def test_failures_in_a_row_only():
    gate = SizeGate(max_size=5, count=100, uniform_from=1, patience=3)
    gate.fail(4)
    gate.fail(4)
    gate.accept(4)
    gate.fail(4)
    gate.fail(4)
    assert gate.is_open(4)


def test_unary_children_stay_unary():
    gen, rng = RandomFormulas(2, "ltl"), random.Random(3)
    for _ in range(200):
        for node in gen.formula(15, rng).walk():
            assert len(node.children) == (1 if node.op in UNARY else 2 if node.op in BINARY else 0)


def test_size_shares_set_each_sizes_cap_and_share_out_what_a_closed_size_leaves():
    gate = SizeGate(max_size=3, count=100, shares={1: 1, 2: 2, 3: 1, 9: 5}, patience=2)  # 9: out of range
    assert [gate.cap_of(s) for s in (1, 2, 3, 9)] == [25, 50, 25, 0]
    for _ in range(5):
        gate.accept(1)
    gate.fail(1), gate.fail(1)  # size 1 ran out after 5 formulas
    assert [gate.cap_of(s) for s in (1, 2, 3)] == [5, 64, 32]  # 95 left, shared 2:1
    assert gate.open_sizes() == [2, 3] and not gate.full()
    with pytest.raises(ValueError, match="shares"):
        SizeGate(max_size=3, count=10, shares={5: 1})
