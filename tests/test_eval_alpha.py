"""Alpha-covariance with a model that is invariant and one that is not (known answers), the
random-variant path (each copy inverted with its own permutation), and a real symbol-invariant
network, which is invariant by construction."""

from __future__ import annotations

import math
import random

import pytest

from ltlwit.eval import Invalid, alpha_covariance, alpha_of, variant_maps
from ltlwit.logic.formula import TRUE, ap
from ltlwit.logic.syntax import parse_formula
from ltlwit.logic.trace import Trace


def first_ap(formulas):
    """Invariant: answers `cycle{x}` for the formula's first AP, whatever it is called."""
    return [[Trace((), (ap(f.aps()[0]) if f.aps() else TRUE,))] for f in formulas]


def smallest_name(formulas):
    """Not invariant: answers `cycle{x}` for the alphabetically smallest AP name."""
    return [[Trace((), (ap(min(f.aps())),))] for f in formulas]


FORMULAS = [parse_formula(t, "polish") for t in ("Uab", "&b!a", "U&abXc", "&U&abXc!d", "X1", "Xa")]


def test_an_invariant_model_scores_one_everywhere():
    cov = alpha_covariance(FORMULAS, first_ap)
    assert {k: (r.samples, r.variants, r.alpha, r.invariant) for k, r in cov.rows.items()} == {
        2: (2, 4, 1.0, 2),
        3: (1, 6, 1.0, 1),
        4: (1, 24, 1.0, 1),
    }
    assert cov.mean == 1.0 and cov.invariant == 1.0 and cov.samples == 4  # X1, Xa: nothing to permute


def test_a_name_dependent_model_scores_the_known_values():
    # Under the k! permutations of a..: the smallest name is always `a`; mapped back it is each
    # of the k APs in turn: |U| = k, |P| = k!, alpha = 1 - (k - 1) / (k! - 1).
    cov = alpha_covariance(FORMULAS, smallest_name)
    for k in (2, 3, 4):
        assert cov.rows[k].alpha == pytest.approx(1 - (k - 1) / (math.factorial(k) - 1))
        assert cov.rows[k].invariant == 0
    assert cov.rows[2].alpha == 0.0 and cov.rows[3].alpha == pytest.approx(0.6)


def test_a_larger_pool_uses_injections_as_in_the_paper():
    # 2 APs into 5 slots: 5 * 4 = 20 variants; mapped back, the answer is a or b: |U| = 2
    cov = alpha_covariance([parse_formula("Uab", "polish")], smallest_name, pool=5, max_variants=50)
    assert cov.rows[2].variants == 20
    assert cov.rows[2].alpha == pytest.approx(1 - 1 / 19)
    # with a pool, even a one-AP formula has alpha-equivalent copies
    assert alpha_covariance([parse_formula("Xa", "polish")], first_ap, pool=5).rows[1].variants == 5


def test_random_variants_are_inverted_with_the_permutation_actually_used():
    rng = random.Random(4)
    formulas = []
    for _ in range(30):
        names = [chr(ord("a") + i) for i in rng.sample(range(9), 7)]
        formulas.append(parse_formula(" & ".join(f"X {n}" for n in names)))
    cov = alpha_covariance(formulas, first_ap, max_variants=12, seed=1)
    assert cov.rows[7].samples == 30 and cov.rows[7].variants == 30 * 12
    assert cov.mean == 1.0  # any mix-up of the permutations would break the invariant model
    bad = alpha_covariance(formulas, smallest_name, max_variants=12, seed=1)
    # smallest_name answers slot a's preimage: recompute it from the same draws
    rng = random.Random(1)
    expected = [1 - (len({m.index(0) for m in variant_maps(7, 0, 12, rng)}) - 1) / 11 for _ in formulas]
    assert bad.mean == pytest.approx(sum(expected) / 30) and bad.mean < 0.75


def test_variant_maps():
    rng = random.Random(0)
    everything = variant_maps(3, 0, 24, rng)
    assert everything[0] == (0, 1, 2) and len(everything) == 6 == len(set(everything))
    sampled = variant_maps(5, 0, 24, rng)
    assert sampled[0] == tuple(range(5)) and len(sampled) == 24 == len(set(sampled))
    assert all(sorted(p) == list(range(5)) for p in sampled)
    assert len(variant_maps(2, 4, 100, rng)) == 12


def test_alpha_of_and_its_domain():
    assert alpha_of(["x", "x", "x"]) == 1.0
    assert alpha_of(["x", "y", "z"]) == 0.0
    assert alpha_of(["x", "y", "x", "x", "x"]) == 0.75
    with pytest.raises(ValueError):
        alpha_of(["x"])
    with pytest.raises(ValueError):
        alpha_covariance(FORMULAS, first_ap, max_variants=1)


def test_malformed_and_missing_outputs_are_compared_renamed_back():
    def invalid_first(formulas):
        return [[Invalid(("&", f.aps()[0], "!"))] for f in formulas]

    assert alpha_covariance(FORMULAS, invalid_first).mean == 1.0
    assert alpha_covariance(FORMULAS, lambda fs: [[] for _ in fs]).mean == 1.0

    def invalid_smallest(formulas):
        return [[Invalid((min(f.aps()),))] for f in formulas]

    assert alpha_covariance(FORMULAS, invalid_smallest).rows[3].alpha == pytest.approx(0.6)


def _tiny(arch: str):
    import torch

    from ltlwit.neural.config import preset

    torch.manual_seed(0)
    return preset(arch, "ltl", "tiny").build().eval()


def ap_probe(model, steps: int = 6):
    """A name-sensitive probe of a real network: greedy decoding restricted to AP tokens, so
    every output is a string of APs the network chose (an untrained network's unrestricted
    output rarely names an AP, which would make any model look invariant)."""
    import torch

    from ltlwit.logic.rename import slot_name
    from ltlwit.neural.beam import encode_inputs
    from ltlwit.neural.tokenizer import N_BASE

    @torch.no_grad()
    def predict(formulas):
        src, n_slots, n_aps = encode_inputs(formulas, "cpu")
        state = model.encode(src, n_slots, n_aps)
        tokens = torch.full((len(formulas),), 2, dtype=torch.long)  # <start>
        rows = []
        for _ in range(steps):
            tokens = N_BASE + model.decode_step(state, tokens)[:, N_BASE:].argmax(-1)
            rows.append(tokens)
        return [[Invalid(tuple(slot_name(t - N_BASE) for t in row))] for row in torch.stack(rows, 1).tolist()]

    return predict


NET_FORMULAS = ("Uab", "&X!ab", "U&abXc", "&U&abXc!d", "UaUbUcUd!e")


def test_a_symbol_invariant_network_is_alpha_invariant():
    formulas = [parse_formula(t, "polish") for t in NET_FORMULAS]
    cov = alpha_covariance(formulas, ap_probe(_tiny("si")), max_variants=8)
    assert cov.samples == 5 and cov.mean == 1.0


def test_a_dual_part_network_is_not_invariant_by_construction():
    formulas = [parse_formula(t, "polish") for t in NET_FORMULAS]
    cov = alpha_covariance(formulas, ap_probe(_tiny("dual")), max_variants=8)
    assert cov.mean < 1.0


def test_the_beam_search_predictor_returns_ranked_witnesses():
    from ltlwit.eval import NeuralPredictor

    formulas = [parse_formula(t, "polish") for t in NET_FORMULAS]
    out = NeuralPredictor(_tiny("si"), beam=2, max_len=8)(formulas)
    assert len(out) == len(formulas)
    assert all(isinstance(c, Trace) for cands in out for c in cands) and all(len(c) <= 2 for c in out)
