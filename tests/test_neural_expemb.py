"""ExpEmb (`ltlwit.neural.expemb`): the fifth paper's GRU encoder-decoder learns to write an
equivalent formula by teacher forcing, the shared greedy and beam searches decode it, and its
embedding is the encoder's last state."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from ltl_reference import lassos, satisfies

from ltlwit.api import parse
from ltlwit.logic import ltl
from ltlwit.logic.formula import Formula
from ltlwit.logic.rename import Renaming
from ltlwit.neural.beam import beam_hypotheses, greedy
from ltlwit.neural.config import AutoencoderConfig, ExpEmbConfig, InterchangeableConfig, config_from_dict, preset
from ltlwit.neural.expemb import ExpEmb
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, START, decode_formula, encode_formula
from ltlwit.neural.weights import save_weights
from ltlwit.pipeline.equivalents import Rewriter

PAIRS = [("F a", "!G !a"), ("a U b", "!(!a R !b)"), ("!(a | b)", "!a & !b")]


def _padded(rows: list[list[int]]) -> torch.Tensor:
    n = max(map(len, rows))
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows])


@pytest.fixture(scope="module")
def learned() -> tuple[ExpEmb, float, float]:
    """A tiny model taught PAIRS; (model, first loss, last loss)."""
    torch.manual_seed(0)
    src = _padded([encode_formula(parse(a)) for a, _ in PAIRS])
    tgt_in = _padded([[START] + encode_formula(parse(b)) for _, b in PAIRS])
    tgt_out = _padded([encode_formula(parse(b)) + [EOS] for _, b in PAIRS])
    model = ExpEmbConfig(task="ltl", d_model=32).build()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    first = model.loss(model(src, tgt_in), tgt_out).item()
    for _ in range(120):
        loss = model.loss(model(src, tgt_in), tgt_out)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval(), first, loss.item()


def test_it_learns_pairs_and_the_shared_searches_write_them(learned: tuple[ExpEmb, float, float]) -> None:
    model, first, last = learned
    assert last < first / 20
    src = _padded([encode_formula(parse(a)) for a, _ in PAIRS])
    with torch.no_grad():
        written = greedy(model, src, 0, 0, max_len=20)
    assert [decode_formula(w) for w in written] == [parse(b) for _, b in PAIRS]
    for (_, b), hyps in zip(PAIRS, beam_hypotheses(model, [parse(a) for a, _ in PAIRS], beam=3, max_len=20)):
        score, best = hyps[0]
        assert decode_formula(list(best)) == parse(b) and score <= 0.0
        assert len(hyps) == len({seq for _, seq in hyps})  # distinct


def test_the_embedding_is_the_last_state_whatever_the_padding() -> None:
    torch.manual_seed(0)
    model = ExpEmbConfig(task="ltl", d_model=16).build().eval()
    short, long = encode_formula(parse("F a")), encode_formula(parse("a U (b & !a)"))
    together = model.embed(_padded([short, long]))
    assert together.shape == (2, 16)
    alone = model.embed(torch.tensor([short]))
    assert torch.allclose(together[0], alone[0], atol=1e-6)  # padding does not reach it


def test_the_contrastive_term_pulls_a_pairs_embeddings_together() -> None:
    """With a contrastive weight the loss adds InfoNCE over the batch's input and output
    embeddings (training only; another row with the same input is no negative), and training
    on it makes each input's embedding nearest its own output's."""
    torch.manual_seed(0)
    pairs = [*PAIRS, ("G a", "!F !a")]
    src = _padded([encode_formula(parse(a)) for a, _ in pairs])
    tgt_in = _padded([[START] + encode_formula(parse(b)) for _, b in pairs])
    tgt_out = _padded([encode_formula(parse(b)) + [EOS] for _, b in pairs])
    model = ExpEmbConfig(task="ltl", d_model=32, contrastive=1.0).build()
    plain = ExpEmbConfig(task="ltl", d_model=32).build()
    plain.load_state_dict(model.state_dict())
    out = model(src, tgt_in)
    term = model._contrast
    assert term is not None and plain(src, tgt_in) is not None and plain._contrast is None
    assert torch.allclose(model.loss(out, tgt_out), plain.loss(out, tgt_out) + term)
    twice = torch.cat([src[:1], src]), torch.cat([tgt_in[:1], tgt_in])  # row 0 repeated
    model(*twice)
    assert model._contrast is not None and bool(torch.isfinite(model._contrast))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(60):
        loss = model.loss(model(src, tgt_in), tgt_out)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    assert model(src, tgt_in) is not None and model._contrast is None  # no term outside training
    with torch.no_grad():
        a = torch.nn.functional.normalize(model.embed(src), dim=-1)
        b = torch.nn.functional.normalize(model.embed(tgt_in[:, 1:].masked_fill(tgt_in[:, 1:] == EOS, PAD)), dim=-1)
    assert (a @ b.T).argmax(1).tolist() == list(range(len(pairs)))


def test_presets_and_manifests_name_the_two_models() -> None:
    e, a = preset("expemb-e", "ltl", "paper"), preset("expemb-a", "prop", "paper")
    assert (type(e), e.d_model, type(a), a.d_model) == (ExpEmbConfig, 1024, AutoencoderConfig, 128)  # the paper's H
    assert (e.pairs, a.pairs) == ("equivalent", "same")
    assert config_from_dict(a.to_dict()) == a and config_from_dict(e.to_dict()) == e


def test_equivalents_are_proved_and_in_the_formulas_own_names(
    learned: tuple[ExpEmb, float, float], tmp_path: Path
) -> None:
    model, _, _ = learned
    weights = save_weights(model, tmp_path / "e", training={"steps": 120, "device": "cpu"})
    rewriter = Rewriter(str(weights))
    found = rewriter.equivalents(parse("req U grant"), beam=5)
    assert parse("!(!req R !grant)") in found.formulas  # learned as a U b, renamed back
    for g in found.formulas:  # each proved: the reference agrees on every small lasso
        assert all(
            satisfies(g, p, c) == satisfies(parse("req U grant"), p, c) for p, c in lassos(2, 2, ("req", "grant"))
        )
    assert found.outputs <= 5 and [g.size for g in found.formulas] == sorted(g.size for g in found.formulas)
    with pytest.raises(ValueError, match="not 'Y'"):
        rewriter.equivalents(parse("Y a"))


def test_interchangeable_tokens_make_a_renaming_a_permutation_of_the_draw() -> None:
    """With interchangeable tokens, renaming the APs of a pair and permuting the drawn parts the
    same way gives the same base logits, the AP logits permuted, and the same embedding: the
    model cannot tell one slot from another (for any one draw, not only in expectation)."""
    torch.manual_seed(0)
    model = InterchangeableConfig(task="ltl", d_model=24, d_beta=8).build().eval()
    src_f, out_f = parse("a U (b & !c)"), parse("!(!a R !(b & !c))")
    rename = {"a": "c", "b": "a", "c": "b"}  # slot a -> c, b -> a, c -> b
    src_g, out_g = (Renaming.permutation(rename).apply(f) for f in (src_f, out_f))
    drawn = torch.randn(1, model.cfg.max_slots, 8)
    moved = drawn.clone()
    for old, new in rename.items():
        moved[0, ord(new) - ord("a")] = drawn[0, ord(old) - ord("a")]

    def run(src: Formula, out: Formula, betas: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        model._betas = lambda batch, device: betas  # type: ignore[method-assign]
        tgt_in = torch.tensor([[START] + encode_formula(out)])
        with torch.no_grad():
            return model(torch.tensor([encode_formula(src)]), tgt_in), model.embed(torch.tensor([encode_formula(src)]))

    (logits_f, emb_f), (logits_g, emb_g) = run(src_f, out_f, drawn), run(src_g, out_g, moved)
    assert torch.allclose(emb_f, emb_g, atol=1e-5)
    assert torch.allclose(logits_f[..., :N_BASE], logits_g[..., :N_BASE], atol=1e-5)
    order = [N_BASE + ord(rename.get(chr(ord("a") + k), chr(ord("a") + k))) - ord("a") for k in range(3)]
    assert torch.allclose(logits_f[..., N_BASE : N_BASE + 3], logits_g[..., order], atol=1e-5)
    plain = ExpEmbConfig(task="ltl", d_model=24).build().eval()  # the paper's slots: no such symmetry
    with torch.no_grad():
        assert not torch.allclose(
            plain.embed(torch.tensor([encode_formula(src_f)])), plain.embed(torch.tensor([encode_formula(src_g)]))
        )


def test_interchangeable_tokens_learn_pairs_and_keep_their_draw() -> None:
    torch.manual_seed(1)
    src = _padded([encode_formula(parse(a)) for a, _ in PAIRS])
    tgt_in = _padded([[START] + encode_formula(parse(b)) for _, b in PAIRS])
    tgt_out = _padded([encode_formula(parse(b)) + [EOS] for _, b in PAIRS])
    model = InterchangeableConfig(task="ltl", d_model=32, d_beta=16).build()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(150):  # a fresh draw every step: it learns to copy an AP by its drawn part
        loss = model.loss(model(src, tgt_in), tgt_out)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        written = greedy(model, src, 0, 0, max_len=20)
        again = model.embed(src)
    for (a, b), w in zip(PAIRS, written):  # an equivalent formula over the input's own APs
        assert ltl.equivalent(decode_formula(w), parse(b)) and decode_formula(w).aps() == parse(a).aps()
    assert torch.equal(again, model.embed(src))  # one seeded draw at inference
    cfg = preset("expemb-i", "ltl", "paper")
    assert (type(cfg), cfg.d_model, cfg.pairs) == (InterchangeableConfig, 1024, "equivalent")
    assert config_from_dict(cfg.to_dict()) == cfg
