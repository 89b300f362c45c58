"""ExpEmb: the fifth paper's GRU encoder-decoder, whose encoder's last state is a formula's embedding.

"Semantic Representations of Mathematical Expressions in a Continuous Vector Space" (../shared
/papers/004_*, Appendix A) trains it to turn an expression into a different, equivalent one
(ExpEmb-E) or into itself (ExpEmb-A, the autoencoder baseline): the same network, other pairs.
Tokens (formulas in Polish order, `neural.tokenizer`) are embedded and read by a GRU; its last
hidden state h_N is the embedding and the decoder's first state. At each output step the decoder
attends additively over the encoder's states (Bahdanau: a_i = v^T tanh(W s_{t-1} + U h_i)),
combines the context with the previous output token's embedding (d_t = W_c [c_t, o_{t-1}]),
steps its GRU on d_t and predicts the next token (softmax(W_o s_t)).

It is a `WitnessModel` in everything the training loop and the decoders ask: `forward` gives
the teacher-forced logits, `loss` the paper's summed log-likelihood (eq. 7) where the witness
models use AdaCos, and `encode` / `decode_step` run the batched greedy and beam searches of
`neural.beam`, whose outputs here are formulas. Its tokens: the base vocabulary and
`max_slots` AP slots, each slot its own embedding (the classes it learns from are over a few
named APs, and equivalence does not survive renaming one AP alone).

With interchangeable tokens (`InterchangeableConfig`, `--arch expemb-i`), an AP's embedding is
the dual-part model's instead: a learned part and a part drawn at random per formula pair while
training (one seeded draw at inference), the same draw wherever the AP occurs in the input and
in the output; the decoder scores an AP by the dot product of a projection of its state with
that AP's drawn part, so that it names the APs of its input without knowing which they are
(the APs absent from the input are not candidates: it rewrites, it does not add names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor, nn

from ltlwit.logic.formula import Formula
from ltlwit.neural.backbone import WitnessModel, keep_rows
from ltlwit.neural.config import ExpEmbConfig, InterchangeableConfig
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, encode_formula


@dataclass
class ExpEmbState:
    """Decoding state: the encoder's states and their attention keys (each input's repeated
    once per beam), the padding mask, the decoder's hidden state (one row per beam), and with
    interchangeable tokens the APs' drawn parts (the inference draw, the same in every row) and
    which APs each input has."""

    states: Tensor
    keys: Tensor
    mask: Tensor
    hidden: Tensor
    betas: Tensor | None = None
    present: Tensor | None = None

    def keep(self, n: int, inputs: Tensor) -> "ExpEmbState":
        """The state of `inputs` alone, out of n."""
        states, keys, mask, hidden = (keep_rows(t, n, inputs) for t in (self.states, self.keys, self.mask, self.hidden))
        present = None if self.present is None else keep_rows(self.present, n, inputs)
        return ExpEmbState(states, keys, mask, hidden, self.betas, present)

    def reorder(self, rows: Tensor) -> None:
        """Row r continues row rows[r] (beam search; rows stay within their input, whose
        encoder states are the same in each of its rows)."""
        self.hidden = self.hidden.index_select(0, rows)


class ExpEmb(WitnessModel):
    cfg: ExpEmbConfig

    def __init__(self, cfg: ExpEmbConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h, vocab = cfg.d_model, N_BASE + cfg.max_slots
        self.d_beta = cfg.d_beta if isinstance(cfg, InterchangeableConfig) else 0
        rows = N_BASE if self.d_beta else vocab  # interchangeable APs: no row of their own
        self.embed_in = nn.Embedding(rows, h, padding_idx=PAD)
        self.encoder = nn.GRU(h, h, batch_first=True)
        self.embed_out = nn.Embedding(rows, h, padding_idx=PAD)
        self.attend_state = nn.Linear(h, h, bias=False)  # W_a
        self.attend_input = nn.Linear(h, h, bias=False)  # U_a
        self.score = nn.Linear(h, 1, bias=False)  # v_a
        self.combine = nn.Linear(2 * h, h)  # W_c
        self.decoder = nn.GRUCell(h, h)
        self.out = nn.Linear(h, rows)  # W_o
        # An interchangeable AP: the learned part, then the drawn one; its logit q(s_t) . beta.
        self.ap_in: nn.Parameter | None = nn.Parameter(torch.randn(h - self.d_beta)) if self.d_beta else None
        self.ap_out: nn.Parameter | None = nn.Parameter(torch.randn(h - self.d_beta)) if self.d_beta else None
        if self.d_beta:
            self.query = nn.Linear(h, self.d_beta)
        # logits are not cosines: decoding multiplies them by 1 (the AdaCos models' scale)
        self.register_buffer("logit_scale", torch.tensor(1.0))
        self._contrast: Tensor | None = None  # the last training batch's contrastive term

    @property
    def max_aps(self) -> int | None:
        return self.cfg.max_slots

    def _betas(self, batch: int, device: torch.device) -> Tensor | None:
        """The APs' drawn parts (batch×max_slots×d_beta): fresh per input while training, the
        `beta_seed` draw (on the CPU, the same on every device) at inference; None without
        interchangeable tokens."""
        if not self.d_beta:
            return None
        shape = (self.cfg.max_slots, self.d_beta)
        if self.training:
            return torch.randn(batch, *shape, device=device)
        assert isinstance(self.cfg, InterchangeableConfig)
        drawn = torch.randn(*shape, generator=torch.Generator().manual_seed(self.cfg.beta_seed))
        return drawn.to(device).expand(batch, -1, -1)

    def _embed(self, table: nn.Embedding, ap: Tensor | None, tokens: Tensor, betas: Tensor | None) -> Tensor:
        """The embeddings of `tokens` (B×S or N), an AP's `ap` then its drawn part in `betas`
        (one row per input) where tokens are interchangeable."""
        if betas is None or ap is None:
            return table(tokens)
        is_ap = tokens >= N_BASE
        base = table(torch.where(is_ap, PAD, tokens))
        slots = (tokens - N_BASE).clamp(min=0)
        rows = torch.arange(tokens.shape[0], device=tokens.device).view(-1, *([1] * (tokens.dim() - 1)))
        drawn = betas[rows.expand_as(slots), slots]
        aps = torch.cat((ap.expand(*tokens.shape, -1), drawn), dim=-1)
        return torch.where(is_ap[..., None], aps, base)

    def _present(self, src: Tensor) -> Tensor | None:
        """Which AP slots each input (B×S) has (B×max_slots); None without interchangeable tokens."""
        if not self.d_beta:
            return None
        return (src[:, :, None] == N_BASE + torch.arange(self.cfg.max_slots, device=src.device)).any(1)

    def _logits(self, hidden: Tensor, betas: Tensor | None, present: Tensor | None) -> Tensor:
        """The next token's logits (N×V): the base tokens' from W_o, an AP's from its drawn part,
        very low for the APs its input lacks (finite: a training pair may add one)."""
        if betas is None or present is None:
            return self.out(hidden)
        aps = torch.einsum("nd,nkd->nk", self.query(hidden), betas) / self.d_beta**0.5
        return torch.cat((self.out(hidden), aps.masked_fill(~present, -1e4)), dim=-1)

    def _encode(self, src: Tensor, betas: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """The encoder's states (B×S×H), each input's last state h_N (B×H: its embedding), and
        the padding mask (B×S, True at tokens); `src` is B×S, padded with PAD."""
        mask = src != PAD
        lengths = mask.sum(1).clamp(min=1)
        embedded = self._embed(self.embed_in, self.ap_in, src, betas)
        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths.cpu(), batch_first=True, enforce_sorted=False)
        states, last = self.encoder(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        return states, last[0], mask

    def embed(self, src: Tensor) -> Tensor:
        """Each input's embedding: the encoder's last hidden state (B×H)."""
        return self._encode(src, self._betas(src.shape[0], src.device))[1]

    def _step(
        self,
        prev: Tensor,
        hidden: Tensor,
        states: Tensor,
        keys: Tensor,
        mask: Tensor,
        betas: Tensor | None = None,
        present: Tensor | None = None,
    ) -> tuple[Tensor, Tensor]:
        """One decoder step from the previous tokens `prev` (N) and hidden state (N×H): the
        next tokens' logits (N×V) and the new hidden state."""
        energy = self.score(torch.tanh(self.attend_state(hidden)[:, None, :] + keys)).squeeze(-1)
        weights = torch.softmax(energy.masked_fill(~mask, float("-inf")), dim=-1)
        context = torch.bmm(weights[:, None, :], states).squeeze(1)
        previous = self._embed(self.embed_out, self.ap_out, prev, betas)
        hidden = self.decoder(self.combine(torch.cat([context, previous], dim=-1)), hidden)
        return self._logits(hidden, betas, present), hidden

    def forward(self, src: Tensor, tgt_in: Tensor, n_slots: int = 0, n_aps: int = 0) -> Tensor:
        """Teacher-forced logits (B×T×V) of `tgt_in` (START, then the output); `n_slots` and
        `n_aps` are unused (the witness models' signature)."""
        betas = self._betas(src.shape[0], src.device)  # one draw for the input and its output
        states, hidden, mask = self._encode(src, betas)
        keys, present = self.attend_input(states), self._present(src)
        self._contrast = self._contrastive(src, hidden, tgt_in, betas) if self.training else None
        logits = []
        for t in range(tgt_in.shape[1]):
            step, hidden = self._step(tgt_in[:, t], hidden, states, keys, mask, betas, present)
            logits.append(step)
        return torch.stack(logits, 1)

    def _contrastive(self, src: Tensor, embedded: Tensor, tgt_in: Tensor, betas: Tensor | None) -> Tensor | None:
        """The contrastive term of a training batch (`ExpEmbConfig.contrastive`), None at weight
        0: each input's embedding should be nearest its own output's among the batch's outputs,
        and each output's nearest its input's (symmetric InfoNCE). Another row with the same
        input or the same output is the same pair's class: not counted as a negative."""
        if not self.cfg.contrastive:
            return None
        out = tgt_in[:, 1:]
        out = out.masked_fill(out == EOS, PAD)
        other = self._encode(out, betas)[1]
        a, b = nn.functional.normalize(embedded.float(), dim=-1), nn.functional.normalize(other.float(), dim=-1)
        sim = a @ b.T / self.cfg.temperature
        same = (src[:, None, :] == src[None, :, :]).all(-1) | (out[:, None, :] == out[None, :, :]).all(-1)
        sim = sim.masked_fill(same & ~torch.eye(len(sim), dtype=torch.bool, device=sim.device), -1e4)
        labels = torch.arange(len(sim), device=sim.device)
        return (nn.functional.cross_entropy(sim, labels) + nn.functional.cross_entropy(sim.T, labels)) / 2

    def loss(self, out: Tensor, tgt_out: Tensor, update: bool = False) -> Tensor:
        """The negative log-likelihood of the outputs (the paper's eq. 7), per token as the
        loop's other models count it (the paper sums a pair's tokens; the optimum is the
        same), plus the contrastive term of the batch `forward` last read when training with
        one; `tgt_out` is the output then EOS, PAD after. `update` is the AdaCos models'."""
        nll = nn.functional.cross_entropy(out.flatten(0, 1).float(), tgt_out.flatten(), ignore_index=PAD)
        return nll if self._contrast is None else nll + self.cfg.contrastive * self._contrast

    def encode(self, src: Tensor, n_slots: int = 0, n_aps: int = 0, beams: int = 1) -> ExpEmbState:
        betas = self._betas(1, src.device)  # (inference: the same draw for every input)
        states, hidden, mask = self._encode(src, None if betas is None else betas.expand(src.shape[0], -1, -1))
        keys, present = self.attend_input(states), self._present(src)
        states, keys, mask, hidden = (t.repeat_interleave(beams, 0) for t in (states, keys, mask, hidden))
        present = None if present is None else present.repeat_interleave(beams, 0)
        return ExpEmbState(states, keys, mask, hidden, betas, present)

    def decode_step(self, state: ExpEmbState, tokens: Tensor) -> Tensor:
        """Logits (N, V) of the next token after feeding `tokens` (N,)."""
        betas = None if state.betas is None else state.betas.expand(tokens.shape[0], -1, -1)
        logits, state.hidden = self._step(
            tokens, state.hidden, state.states, state.keys, state.mask, betas, state.present
        )
        return logits


@torch.no_grad()
def embeddings(model: ExpEmb, formulas: Sequence[Formula], batch_size: int = 256) -> list[list[float]]:
    """Each formula's embedding (the encoder's last state), the formulas over AP slot names
    (`a`, `b`, ...: rename them first, the same way for every formula compared, since
    equivalence does not survive renaming one formula alone)."""
    was_training = model.training
    model.eval()
    try:
        device = next(model.parameters()).device
        out: list[list[float]] = []
        for start in range(0, len(formulas), batch_size):
            rows = [encode_formula(f) for f in formulas[start : start + batch_size]]
            width = max(map(len, rows))
            src = torch.tensor([r + [PAD] * (width - len(r)) for r in rows], dtype=torch.long, device=device)
            out += model.embed(src).float().tolist()
        return out
    finally:
        model.train(was_training)


def unreadable(formula: Formula) -> str | None:
    """The first operator of `formula` the model cannot read (it reads future-time LTL over
    propositions: no past, no data), or None."""
    from ltlwit.neural.tokenizer import BASE_TOKENS

    return next((n.op for n in formula.walk() if n.op != "ap" and n.op not in BASE_TOKENS), None)


def load(model_name: str, pairs: str | None = None) -> ExpEmb:
    """An ExpEmb model by registered name or weights file, on the CPU, in eval mode; with
    `pairs` ("equivalent": ExpEmb-E, "same": ExpEmb-A) only that one. ValueError for another
    kind of model."""
    from ltlwit.neural import registry

    model, _ = registry.load(model_name, device="cpu")
    if not isinstance(model, ExpEmb) or pairs not in (None, model.cfg.pairs):
        why = {
            "equivalent": "; equivalents come from an expemb-e model",
            "same": "; this asks for an expemb-a model",
        }.get(str(pairs), ", not an embedding model (expemb-e, expemb-a)")
        raise ValueError(f"model {model_name!r} is a {model.cfg.arch} model{why}")
    return model
