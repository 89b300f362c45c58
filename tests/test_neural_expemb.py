"""ExpEmb (`ltlwit.neural.expemb`): the fifth paper's GRU encoder-decoder learns to write an
equivalent formula by teacher forcing, its beam returns it, and its embedding is the encoder's
last state."""

from __future__ import annotations

import torch

from ltlwit.api import parse
from ltlwit.neural.expemb import ExpEmb, ExpEmbConfig
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, decode_formula, encode_formula

PAIRS = [("F a", "!G !a"), ("a U b", "!(!a R !b)"), ("!(a | b)", "!a & !b")]


def _padded(rows: list[list[int]]) -> torch.Tensor:
    n = max(map(len, rows))
    return torch.tensor([r + [PAD] * (n - len(r)) for r in rows])


def test_it_learns_pairs_and_its_beam_writes_them() -> None:
    torch.manual_seed(0)
    src = _padded([encode_formula(parse(a)) for a, _ in PAIRS])
    tgt = _padded([encode_formula(parse(b)) + [EOS] for _, b in PAIRS])
    model = ExpEmb(ExpEmbConfig(vocab=N_BASE + 4, hidden=32))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    first = model.loss(src, tgt).item()
    for _ in range(120):
        loss = model.loss(src, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < first / 20
    model.eval()
    for a, b in PAIRS:
        (best, score), *_ = model.beam(torch.tensor([encode_formula(parse(a))]), width=3)
        assert decode_formula(best) == parse(b) and score <= 0.0


def test_the_embedding_is_the_last_state_whatever_the_padding() -> None:
    torch.manual_seed(0)
    model = ExpEmb(ExpEmbConfig(vocab=N_BASE + 4, hidden=16)).eval()
    short, long = encode_formula(parse("F a")), encode_formula(parse("a U (b & !a)"))
    together = model.embed(_padded([short, long]))
    assert together.shape == (2, 16)
    alone = model.embed(torch.tensor([short]))
    assert torch.allclose(together[0], alone[0], atol=1e-6)  # padding does not reach it
