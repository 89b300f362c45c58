"""Both model families: exact alpha-invariance of the symbol-invariant model (float64), the
dual-part embedding matrix and its β draws, AdaCos, KV-cache decoding, configs."""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from neural_support import DATA, one_thread, trained  # noqa: F401 - one_thread is a fixture
from strategies import formulas, traces

from ltlwit.logic.formula import TRUE, Formula
from ltlwit.logic.rename import Renaming, slot_name
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.logic.trace import Trace
from ltlwit.neural.backbone import MAX_SCALE, adacos_loss
from ltlwit.neural.beam import beam_hypotheses
from ltlwit.neural.config import DualConfig, SIConfig, config_from_dict, preset
from ltlwit.neural.dual import draw_betas, sampling_set_size
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, START, encode_formula, encode_trace

SLOTS = [slot_name(i) for i in range(10)]


def tiny(arch: str, task: str = "ltl", **changes) -> torch.nn.Module:
    cfg = preset(arch, task, "tiny")
    for k, v in changes.items():
        setattr(cfg, k, v)
    torch.manual_seed(0)
    return cfg.build()


@pytest.fixture(scope="module")
def si64() -> torch.nn.Module:
    return tiny("si").double().eval()


def pad(rows: list[list[int]]) -> torch.Tensor:
    width = max(map(len, rows))
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


def teacher_forced(model, formula_list, trace_list, n_slots=10):
    src = pad([encode_formula(f) for f in formula_list])
    tgt = pad([[START] + encode_trace(t) for t in trace_list])
    n_aps = max(len(f.aps()) for f in formula_list)
    with torch.no_grad():
        return model(src, tgt, n_slots, n_aps)


# -- symbol-invariant model: exact alpha-invariance ----------------------------------------------


def trace_over(draw, f: Formula) -> Trace:
    if not f.aps():
        return Trace((), (TRUE,))
    return draw(traces(f.aps(), max_prefix=2, max_cycle=2, max_leaves=3))


@st.composite
def renamed_pairs(draw):
    """A formula over slots a..f with a trace over its APs, a bijection of its APs into a..j,
    and a second input sharing the batch."""
    f = draw(formulas(SLOTS[:6], max_leaves=10))
    images = draw(st.permutations(SLOTS))[: len(f.aps())]
    g = draw(formulas(SLOTS[:3], max_leaves=6))
    return f, trace_over(draw, f), dict(zip(f.aps(), images)), g, trace_over(draw, g)


@settings(max_examples=25, deadline=None)
@given(renamed_pairs())
def test_si_logits_are_exactly_permuted(si64, pair) -> None:
    f, t, mapping, g, u = pair
    r = Renaming.permutation(mapping)
    a = teacher_forced(si64, [f, g], [t, u])[0]
    b = teacher_forced(si64, [r.apply(f), g], [r.apply_trace(t), u])[0]
    assert torch.allclose(a[:, :N_BASE], b[:, :N_BASE], atol=1e-5, rtol=0)
    for name, image in mapping.items():
        i, j = N_BASE + SLOTS.index(name), N_BASE + SLOTS.index(image)
        assert torch.allclose(a[:, i], b[:, j], atol=1e-5, rtol=0)
    absent = [N_BASE + k for k, s in enumerate(SLOTS) if s not in mapping.values()]
    assert torch.isneginf(b[:, absent]).all()


@pytest.fixture(scope="module")
def si_trained() -> torch.nn.Module:
    return copy.deepcopy(trained("si", "ltl")).double()  # beams of a trained model mostly finish


def renamed_hypotheses(model, fs: list[Formula], perm: list[str]):
    renamings = [Renaming.permutation(dict(zip(f.aps(), perm))) for f in fs]
    original = beam_hypotheses(model, fs, beam=3, max_len=24)
    renamed = beam_hypotheses(model, [r.apply(f) for r, f in zip(renamings, fs)], beam=3, max_len=24)
    for f, hyps, hyps_r in zip(fs, original, renamed):
        token_map = {N_BASE + SLOTS.index(a): N_BASE + SLOTS.index(b) for a, b in zip(f.aps(), perm)}
        expected = sorted(((s, tuple(token_map.get(x, x) for x in seq)) for s, seq in hyps), key=lambda h: h[1])
        got = sorted(hyps_r, key=lambda h: h[1])
        assert [seq for _, seq in got] == [seq for _, seq in expected]
        assert all(math.isclose(s1, s2, abs_tol=1e-6) for (s1, _), (s2, _) in zip(got, expected))
    return original


@settings(max_examples=10, deadline=None)
@given(st.lists(formulas(SLOTS[:5], max_leaves=8), min_size=1, max_size=3), st.permutations(SLOTS))
def test_si_beam_search_returns_the_renamed_candidates(si_trained, fs: list[Formula], perm: list[str]) -> None:
    renamed_hypotheses(si_trained, fs, perm)


def test_si_beam_invariance_on_training_formulas(si_trained) -> None:
    fs = [s for s in parsed([line for line in (DATA / "ltl" / "train.txt").read_text().split("\n")[0:40:2]])]
    found = renamed_hypotheses(si_trained, fs, ["c", "j", "a", "e", "b", "h", "d", "f", "g", "i"])
    assert sum(map(len, found)) >= 2 * len(fs)  # not vacuous: most inputs have several finished beams


FORMULAS = ["&Uab!Xc", "XXa", "U&ab|!c&dXe", "1", "&!a0"]
TRACES = ["1;&a!b;{c}", "{a}", "a;b;{|cd}", "{1}", "{!a}"]


def parsed(texts: list[str], parse=parse_formula) -> list:
    return [parse(t, "polish") for t in texts]


def test_si_mixed_ap_counts_match_inputs_alone(si64) -> None:
    fs, ts = parsed(FORMULAS), parsed(TRACES, parse_trace)
    together = teacher_forced(si64, fs, ts)
    for i, (f, t) in enumerate(zip(fs, ts)):
        alone = teacher_forced(si64, [f], [t])[0]
        n = alone.shape[0]
        assert torch.equal(torch.isfinite(together[i, :n]), torch.isfinite(alone))
        finite = torch.isfinite(alone)
        assert torch.allclose(together[i, :n][finite], alone[finite], atol=1e-9)
        absent = [N_BASE + k for k, s in enumerate(SLOTS) if s not in f.aps()]
        assert torch.isneginf(alone[:, absent]).all()  # "1" has no AP: every AP logit is -inf
        assert torch.isneginf(alone[:, [PAD, START]]).all()


# Decoding runs the symbol-invariant model over its live streams only, a layout of its own
# (`SIState`): every attention part, the aggregated ones (DA, CA) included, against the padded
# streams of teacher forcing.
SI_PARTS = ["EP-DP-EA-CP", "EP-DP-EA-DA-CP", "EP-DP-EA-DA-CP-CA", "EP-DA-CA"]


@pytest.mark.parametrize(
    "arch, cross_rope, parts",
    [("si", True, None), ("dual", True, None), ("si", False, None), ("dual", False, None)]
    + [("si", True, p) for p in SI_PARTS],
)
def test_kv_cache_decoding_matches_teacher_forcing(arch: str, cross_rope: bool, parts: str | None) -> None:
    model = tiny(arch, cross_rope=cross_rope, **({"attention": parts} if parts else {})).double().eval()
    assert all(layer.cross[0].rotary is not None for layer in model.decoder) == cross_rope
    fs, ts = parsed(FORMULAS), parsed(TRACES, parse_trace)
    full = teacher_forced(model, fs, ts, n_slots=5)
    src = pad([encode_formula(f) for f in fs])
    tgt = pad([[START] + encode_trace(t) for t in ts])
    state = model.encode(src, 5, 5)
    with torch.no_grad():
        steps = torch.stack([model.decode_step(state, tgt[:, i]) for i in range(tgt.shape[1])], 1)
    finite = torch.isfinite(full)
    assert torch.equal(finite, torch.isfinite(steps))
    assert torch.allclose(full[finite], steps[finite], atol=1e-10)


@pytest.mark.parametrize("arch, parts", [("dual", None)] + [("si", p) for p in SI_PARTS])
def test_a_reordered_and_shrunk_decoding_state_decodes_the_histories_it_holds(arch: str, parts: str | None) -> None:
    """Beam search moves each beam's cache rows to the beams that continue it (`reorder`) and
    drops finished inputs (`keep`). After random moves and drops, every row's next-token
    cosines must be those of teacher forcing on the history that row now stands for."""
    model = tiny(arch, **({"attention": parts} if parts else {})).double().eval()
    fs = parsed(FORMULAS)
    beams, n = 3, len(fs)
    gen = torch.Generator().manual_seed(1)
    state = model.encode(pad([encode_formula(f) for f in fs]), 5, 5, beams=beams)
    history = torch.zeros((n * beams, 0), dtype=torch.long)
    inputs = list(range(n))
    with torch.no_grad():
        for step in range(5):
            tokens = torch.randint(3, N_BASE + 5, (len(inputs) * beams,), generator=gen)
            if step == 0:
                tokens[:] = START
            model.decode_step(state, tokens)
            history = torch.cat((history, tokens[:, None]), 1)
            rows = (
                torch.arange(len(inputs))[:, None] * beams + torch.randint(beams, (len(inputs), beams), generator=gen)
            ).flatten()
            state.reorder(rows)
            history = history[rows]
            if step in (1, 3):  # drop the second input, twice: "XXa", then "U&ab|!c&dXe"
                keep = torch.tensor([i for i in range(len(inputs)) if i != 1])
                state = state.keep(len(inputs), keep)
                history = history.unflatten(0, (len(inputs), beams))[keep].flatten(0, 1)
                inputs = [inputs[i] for i in keep.tolist()]
        tokens = torch.randint(3, N_BASE + 5, (len(inputs) * beams,), generator=gen)
        got = model.decode_step(state, tokens)
        kept = [fs[i] for i in inputs for _ in range(beams)]
        src = pad([encode_formula(f) for f in kept])
        full = model(src, torch.cat((history, tokens[:, None]), 1), 5, 5)[:, -1]
    assert inputs == [0, 3, 4]
    finite = torch.isfinite(full)
    assert torch.equal(finite, torch.isfinite(got))
    assert torch.allclose(full[finite], got[finite], atol=1e-10)


def test_the_feed_forward_skips_only_rows_that_nothing_reads(si64) -> None:
    """At inference the feed-forward sublayer computes the real tokens of live streams only
    (`counted_rows`); with gradients on it computes every row. Same outputs."""
    fs, ts = parsed(FORMULAS), parsed(TRACES, parse_trace)
    src = pad([encode_formula(f) for f in fs])
    tgt = pad([[START] + encode_trace(t) for t in ts])
    with torch.enable_grad():
        every = si64(src, tgt, 10, 3)
    with torch.no_grad():
        counted = si64(src, tgt, 10, 3)
    finite = torch.isfinite(every)
    assert torch.equal(finite, torch.isfinite(counted))
    assert torch.allclose(every[finite], counted[finite], atol=1e-12)


# -- dual-part model ------------------------------------------------------------------------------


def test_dual_table_rows_are_unit_and_split() -> None:
    model = tiny("dual")
    cfg = model.cfg
    for mode in (True, False):
        model.train(mode)
        table = model.table(8)
        assert torch.allclose(table.norm(dim=-1), torch.ones(N_BASE + 8), atol=1e-6)
        assert not table[:N_BASE, -cfg.d_beta :].any()  # base tokens: zero β part
        alpha = table[N_BASE:, : -cfg.d_beta]
        assert torch.allclose(alpha, alpha[:1].expand_as(alpha))  # one shared α
        assert torch.allclose(alpha.norm(dim=-1), torch.full((8,), 2**-0.5), atol=1e-6)  # halves balanced
        beta = table[N_BASE:, -cfg.d_beta :]
        assert len({tuple(b) for b in beta.tolist()}) == 8


@pytest.mark.parametrize("method, d_beta", [("hypercube", 5), ("neighbours", 3), ("hypercube", 1)])
def test_discrete_betas_are_distinct_up_to_the_set_size(method: str, d_beta: int) -> None:
    size = sampling_set_size(method, d_beta)
    betas = draw_betas(method, d_beta, size, torch.Generator().manual_seed(1))
    rows = {tuple(int(x) for x in b) for b in betas.tolist()}
    assert len(rows) == size
    assert all(set(r) <= ({-1, 1} if method == "hypercube" else {-1, 0, 1}) for r in rows)
    assert tuple([0] * d_beta) not in rows
    with pytest.raises(ValueError, match=f"at most {size} APs"):
        draw_betas(method, d_beta, size + 1)


def test_beta_draws_are_prefix_stable_and_wide_ones_unchecked() -> None:
    g = lambda: torch.Generator().manual_seed(5)  # noqa: E731
    assert torch.equal(draw_betas("hypercube", 5, 4, g()), draw_betas("hypercube", 5, 9, g())[:4])
    wide = draw_betas("hypercube", 40, 3)
    assert wide.shape == (3, 40) and set(wide.flatten().tolist()) <= {-1.0, 1.0}
    assert draw_betas("normal", 6, 3).shape == (3, 6)


def test_beta_redrawn_while_training_fixed_at_inference() -> None:
    model = tiny("dual")
    model.train()
    assert not torch.equal(model.table(5), model.table(5))
    model.eval()
    first = model.table(5)
    assert torch.equal(first, model.table(5))
    assert torch.equal(first[: N_BASE + 3], model.table(3))  # fewer APs: the same rows
    model.cfg.beta_seed += 1
    assert not torch.equal(first, model.table(5))
    with pytest.raises(ValueError, match="at most 32 APs"):
        model.table(33)


def test_calibration_picks_the_median_draw() -> None:
    model = tiny("dual")
    losses = {seed: float((seed * 7) % 10) for seed in range(10)}  # a permutation of 0..9
    results = model.calibrate(lambda: losses[model.cfg.beta_seed])
    assert [loss for loss, _ in results] == sorted(losses.values())
    assert losses[model.cfg.beta_seed] == 4.0  # lower median of ten


# -- loss and configs -----------------------------------------------------------------------------


def test_adacos_scale_update_and_padding() -> None:
    torch.manual_seed(0)
    cos = torch.tanh(torch.randn(2, 3, 7))
    target = torch.tensor([[3, 4, PAD], [5, EOS, PAD]])
    scale = torch.tensor(4.0)
    loss = adacos_loss(cos, target, scale, update=True)
    keep = target != PAD
    c, y = cos[keep], target[keep]
    b_avg = sum(math.exp(4.0 * float(c[i, j])) for i in range(len(y)) for j in range(7) if j != y[i]) / len(y)
    theta = sorted(math.acos(float(c[i, y[i]])) for i in range(len(y)))
    expected = math.log(b_avg) / math.cos(min(math.pi / 4, theta[(len(theta) - 1) // 2]))
    assert float(scale) == pytest.approx(expected, rel=1e-5)
    assert float(loss) == pytest.approx(float(F.cross_entropy(expected * c, y)), rel=1e-5)
    frozen = scale.clone()
    adacos_loss(cos, target, scale, update=False)
    assert torch.equal(scale, frozen)
    big = torch.tensor(80.0)  # log B_avg ~ 80 * 0.99, theta_med = pi/2 -> 114, clipped
    adacos_loss(torch.full((1, 2, 7), 0.99).index_fill(-1, torch.tensor([3]), 0.0), torch.tensor([[3, 3]]), big, True)
    assert float(big) == MAX_SCALE


def test_presets_and_configs() -> None:
    paper = preset("si", "ltl", "paper")
    assert (paper.d_model, paper.n_layers, paper.n_heads, paper.d_ff, paper.attention) == (
        64,
        8,
        4,
        1024,
        "EP-DP-EA-CP",
    )
    assert preset("si", "prop", "paper").attention == "EP-DP-EA-DA-CP"
    dual = preset("dual", "prop", "paper")
    assert (dual.d_model, dual.n_layers, dual.n_heads, dual.d_ff) == (132, 6, 6, 512)
    model = preset("dual", "ltl", "paper").build()
    assert len(model.encoder) == len(model.decoder) == 8  # "8 layers": 8 encoder + 8 decoder layers
    for cfg in (paper, dual, preset("si", "prop", "small")):
        assert config_from_dict(cfg.to_dict()) == cfg
    with pytest.raises(ValueError):
        SIConfig(attention="EP-DP")  # no cross-attention
    with pytest.raises(ValueError):
        SIConfig(attention="EP-XX-CP")
    with pytest.raises(ValueError):
        DualConfig(d_model=30, n_heads=4)
    with pytest.raises(ValueError):
        config_from_dict({"arch": "si", "colour": 1})
    assert tiny("si", attention="EA-DA-CA").encoder[0].self_attn is None


def test_paper_details_are_on_for_fresh_models_off_for_old_configs() -> None:
    """Presets build with embedding dropout and cross-attention RoPE; a manifest's config
    without those keys (the bundled weights) keeps the behaviour it was trained with."""
    for arch, task in (("si", "ltl"), ("dual", "prop")):
        fresh = preset(arch, task, "paper")
        assert fresh.emb_dropout == 0.1 and fresh.cross_rope
        old = fresh.to_dict()
        del old["emb_dropout"], old["cross_rope"]
        cfg = config_from_dict(old)
        assert cfg.emb_dropout == 0.0 and not cfg.cross_rope
        assert all(layer.cross[0].rotary is None for layer in cfg.build().decoder)
    with pytest.raises(ValueError, match="dropout"):
        DualConfig(emb_dropout=1.0)


@pytest.mark.parametrize("arch", ["si", "dual"])
def test_embedding_dropout_acts_in_training_only(arch: str) -> None:
    fs, ts = parsed(FORMULAS), parsed(TRACES, parse_trace)
    src = pad([encode_formula(f) for f in fs])
    tgt = pad([[START] + encode_trace(t) for t in ts])
    model = tiny(arch, emb_dropout=0.5)
    plain = tiny(arch)  # same seed, same weights, no embedding dropout
    model.eval(), plain.eval()
    with torch.no_grad():
        assert torch.equal(model(src, tgt, 5, 5), plain(src, tgt, 5, 5))
        model.train(), plain.train()
        torch.manual_seed(3)
        a = model(src, tgt, 5, 5)
        torch.manual_seed(3)
        b = plain(src, tgt, 5, 5)
    finite = torch.isfinite(a) & torch.isfinite(b)
    assert not torch.allclose(a[finite], b[finite])


def test_cross_rope_makes_cross_attention_position_aware() -> None:
    """Without RoPE, cross-attention sees its memory as a set (only the tree encoding tells
    positions apart); with it, swapping two source positions' vectors changes the output."""
    torch.manual_seed(0)
    for rope, changes in ((False, False), (True, True)):
        layer = tiny("dual", cross_rope=rope).decoder[0].cross[0].eval()
        x, mem = torch.randn(1, 3, 32), torch.randn(1, 4, 32)
        swapped = mem[:, [1, 0, 2, 3]]
        with torch.no_grad():
            a, b = layer(x, mem, static=True), layer(x, swapped, static=True)
        assert torch.allclose(a, b, atol=1e-6) != changes
