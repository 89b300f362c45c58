"""ExpEmb: the fifth paper's GRU encoder-decoder, whose encoder's last state is a formula's embedding.

"Semantic Representations of Mathematical Expressions in a Continuous Vector Space" (../shared
/papers/004_*, Appendix A) trains it to turn an expression into a different, equivalent one
(ExpEmb-E) or into itself (ExpEmb-A, the autoencoder baseline): the same network, other pairs.
Tokens (formulas in Polish order, `neural.tokenizer`) are embedded and read by a GRU; its last
hidden state h_N is the embedding and the decoder's first state. At each output step the decoder
attends additively over the encoder's states (Bahdanau: a_i = v^T tanh(W s_{t-1} + U h_i)),
combines the context with the previous output token's embedding (d_t = W_c [c_t, o_{t-1}]),
steps its GRU on d_t and predicts the next token (softmax(W_o s_t)). Trained by teacher forcing
on the summed log-likelihood (`loss`); decoded by beam search (`beam`), every output of the beam
kept, since an output can be checked.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from ltlwit.neural.tokenizer import EOS, PAD, START


@dataclass(frozen=True)
class ExpEmbConfig:
    """`vocab`: token ids below it; `hidden`: the paper's H (its embeddings' size); `max_len`:
    the longest output `beam` writes."""

    vocab: int
    hidden: int = 128
    max_len: int = 64


class ExpEmb(nn.Module):
    def __init__(self, config: ExpEmbConfig) -> None:
        super().__init__()
        self.config = config
        h = config.hidden
        self.embed_in = nn.Embedding(config.vocab, h, padding_idx=PAD)
        self.encoder = nn.GRU(h, h, batch_first=True)
        self.embed_out = nn.Embedding(config.vocab, h, padding_idx=PAD)
        self.attend_state = nn.Linear(h, h, bias=False)  # W_a
        self.attend_input = nn.Linear(h, h, bias=False)  # U_a
        self.score = nn.Linear(h, 1, bias=False)  # v_a
        self.combine = nn.Linear(2 * h, h)  # W_c
        self.decoder = nn.GRUCell(h, h)
        self.out = nn.Linear(h, config.vocab)  # W_o

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """The encoder's states (B×S×H), each input's last state h_N (B×H: its embedding), and
        the padding mask (B×S, True at tokens); `src` is B×S, padded with PAD."""
        mask = src != PAD
        lengths = mask.sum(1).clamp(min=1)
        packed = nn.utils.rnn.pack_padded_sequence(
            self.embed_in(src), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        states, last = self.encoder(packed)
        states, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=src.shape[1])
        return states, last[0], mask

    def embed(self, src: Tensor) -> Tensor:
        """Each input's embedding: the encoder's last hidden state (B×H)."""
        return self.encode(src)[1]

    def _step(self, prev: Tensor, state: Tensor, states: Tensor, keys: Tensor, mask: Tensor) -> tuple[Tensor, Tensor]:
        """One decoder step from the previous tokens `prev` (B) and state (B×H): the next
        tokens' logits (B×V) and the new state."""
        energy = self.score(torch.tanh(self.attend_state(state)[:, None, :] + keys)).squeeze(-1)
        weights = torch.softmax(energy.masked_fill(~mask, float("-inf")), dim=-1)
        context = torch.bmm(weights[:, None, :], states).squeeze(1)
        state = self.decoder(self.combine(torch.cat([context, self.embed_out(prev)], dim=-1)), state)
        return self.out(state), state

    def loss(self, src: Tensor, tgt: Tensor) -> Tensor:
        """Teacher forcing: the mean over the batch of each pair's summed negative
        log-likelihood (the paper's eq. 7); `tgt` (B×T) is the output's tokens then EOS, PAD
        after."""
        states, state, mask = self.encode(src)
        keys = self.attend_input(states)
        prev = torch.full((src.shape[0],), START, dtype=torch.long, device=src.device)
        total = src.new_zeros((), dtype=torch.float)
        for t in range(tgt.shape[1]):
            logits, state = self._step(prev, state, states, keys, mask)
            total = total + nn.functional.cross_entropy(logits, tgt[:, t], ignore_index=PAD, reduction="sum")
            prev = tgt[:, t]
        return total / src.shape[0]

    @torch.no_grad()
    def beam(self, src: Tensor, width: int = 10, max_len: int | None = None) -> list[tuple[list[int], float]]:
        """The `width` best outputs for ONE input (`src`: 1×S), best first: (tokens without
        EOS, log-probability). Outputs that end within `max_len` tokens only."""
        max_len = max_len or self.config.max_len
        states, state, mask = self.encode(src)
        keys = self.attend_input(states)
        beams: list[tuple[list[int], float, Tensor]] = [([], 0.0, state[0])]
        done: list[tuple[list[int], float]] = []
        for _ in range(max_len):
            if not beams:
                break
            n = len(beams)
            prev = torch.tensor([b[0][-1] if b[0] else START for b in beams], device=src.device)
            logits, new = self._step(
                prev,
                torch.stack([b[2] for b in beams]),
                states.expand(n, -1, -1),
                keys.expand(n, -1, -1),
                mask.expand(n, -1),
            )
            scores = torch.log_softmax(logits, dim=-1) + torch.tensor([b[1] for b in beams], device=src.device)[:, None]
            best = torch.topk(scores.flatten(), min(width, scores.numel()))
            grown = []
            for value, index in zip(best.values.tolist(), best.indices.tolist()):
                k, token = divmod(index, scores.shape[1])
                if token == EOS:
                    done.append((beams[k][0], value))
                elif token != PAD:
                    grown.append((beams[k][0] + [token], value, new[k]))
            beams = grown[: max(0, width - len(done))] if len(done) < width else []
        done.sort(key=lambda d: d[1], reverse=True)
        return done[:width]
