"""The symbol-invariant transformer ("Names Don't Matter", Appendix A, Algorithms 1-5).

Every input with k APs is processed as k parallel streams. Stream i embeds AP i with the
*actual* row and every other AP with the *placeholder* row (Algorithm 1); all parameters are
shared by the streams, which only meet through

- aggregation (Algorithm 2): the mean over the input's streams, with stream i's own state put
  back at the positions of AP i, attended to by every stream (EA in the encoder, DA in the
  decoder; CA: cross-attention to the aggregated encoder), and
- projection (Algorithm 5): base-token logits averaged over the streams, AP i's logit read from
  stream i's actual row, -inf for APs absent from the input.

Renaming the APs of an input only permutes its streams, and every operation is per-stream or a
symmetric reduction over streams, so the model is exactly alpha-invariant (Appendix B). In a
batch, inputs have different AP counts: streams are padded to the batch maximum K and a stream
mask keeps the padding out of every mean. An input without APs runs one stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ltlwit.neural.backbone import (Aggregate, Cache, DecoderLayer, EncoderLayer, cosines, initial_scale,
                                    keep_cache, keep_rows, pad_mask)
from ltlwit.neural.config import SIConfig
from ltlwit.neural.positional import tree_positions
from ltlwit.neural.tokenizer import N_BASE

ACTUAL, PLACEHOLDER = N_BASE, N_BASE + 1


@dataclass
class Streams:
    """Which AP each stream of each input follows."""

    slot: Tensor  # (B, K) AP slot of the stream, -1 for none
    live: Tensor  # (B, K) bool: the stream counts in means (stream 0 always, for AP-less inputs)
    count: Tensor  # (B,) number of live streams, as a float

    @property
    def k(self) -> int:
        return self.slot.shape[1]

    def keep(self, n: int, inputs: Tensor) -> "Streams":
        return Streams(*(keep_rows(t, n, inputs) for t in (self.slot, self.live, self.count)))


def find_streams(src: Tensor, n_slots: int, n_aps: int) -> Streams:
    """One stream per AP present in each input, in slot order; `n_aps` >= the largest AP count."""
    K = max(n_aps, 1)
    slots = torch.arange(max(n_slots, K), device=src.device)
    present = (src[:, :, None] == N_BASE + slots[:n_slots]).any(1)
    present = F.pad(present, (0, len(slots) - n_slots))
    order = torch.argsort((~present).long() * len(slots) + slots, dim=1)[:, :K]  # present slots first
    has = present.gather(1, order)
    count = has.sum(1).clamp(min=1)
    live = torch.arange(K, device=src.device) < count[:, None]
    return Streams(torch.where(has, order, -1), live, count.to(torch.get_default_dtype()))


@dataclass
class SIState:
    """Decoding state: the streams of every decoded row (an input's beams), per-stream encoder
    memory (and its aggregate), computed once per input, and the KV cache."""

    streams: Streams
    memory: Tensor
    memory_mask: Tensor
    agg_memory: tuple[Tensor, int] | None
    cache: Cache
    n_slots: int

    def keep(self, n: int, inputs: Tensor) -> "SIState":
        """The state of `inputs` alone, out of n."""
        agg = None if self.agg_memory is None else (keep_rows(self.agg_memory[0], n, inputs), self.agg_memory[1])
        return SIState(self.streams.keep(n, inputs), keep_rows(self.memory, n, inputs),
                       keep_rows(self.memory_mask, n, inputs), agg, keep_cache(self.cache, n, inputs), self.n_slots)


class SymbolInvariantTransformer(nn.Module):
    def __init__(self, cfg: SIConfig) -> None:
        super().__init__()
        self.cfg = cfg
        parts = cfg.parts
        d = cfg.d_model
        layer = dict(d=d, heads=cfg.n_heads, d_ff=cfg.d_ff, dropout=cfg.dropout)
        cross = [m for m, p in (("per", "CP"), ("agg", "CA")) if p in parts]
        self.embedding = nn.Parameter(torch.randn(N_BASE + 2, d))  # + actual and placeholder rows
        self.encoder = nn.ModuleList(EncoderLayer(**layer, per_stream="EP" in parts, aggregated="EA" in parts)
                                     for _ in range(cfg.n_layers))
        self.decoder = nn.ModuleList(DecoderLayer(**layer, per_stream="DP" in parts, aggregated="DA" in parts,
                                                  cross=cross, cross_rope=cfg.cross_rope) for _ in range(cfg.n_layers))
        self.emb_drop = nn.Dropout(cfg.emb_dropout)
        self.register_buffer("logit_scale", torch.tensor(initial_scale(N_BASE + 5)))

    max_aps = None  # any number of APs

    def _table(self) -> Tensor:
        return F.normalize(self.embedding, dim=-1)

    def _embed(self, table: Tensor, tokens: Tensor, st: Streams) -> tuple[Tensor, Tensor]:
        """(B, L) ids -> per-stream embeddings (B*K, L, d) and AP masks A (B, K, L) (Algorithm 1)."""
        actual = (tokens[:, None, :] == N_BASE + st.slot[:, :, None]) & (st.slot >= 0)[:, :, None]
        others = torch.where(tokens >= N_BASE, PLACEHOLDER, tokens)[:, None, :]
        ids = torch.where(actual, ACTUAL, others)
        h = F.embedding(ids, table) * math.sqrt(self.cfg.d_model)
        return h.flatten(0, 1), actual

    @staticmethod
    def _aggregator(A: Tensor, st: Streams) -> Aggregate:
        """Algorithm 2 over live streams: mean, with stream i restored where AP i stands."""
        at_ap = A.any(1)[..., None]
        live = st.live[:, :, None, None]

        def aggregate(h: Tensor) -> tuple[Tensor, int]:
            h = h.unflatten(0, (A.shape[0], A.shape[1]))
            zero = h.new_zeros(())
            mean = torch.where(live, h, zero).sum(1) / st.count.to(h.dtype)[:, None, None]
            own = torch.where(A[..., None], h, zero).sum(1)  # one stream at most per position
            return torch.where(at_ap, own, mean), A.shape[1]

        return aggregate

    def _project(self, h: Tensor, table: Tensor, st: Streams, n_slots: int) -> Tensor:
        """Algorithm 5: (B*K, T, d) -> cosines (B, T, N_BASE + n_slots), -inf for absent APs."""
        B, K = st.slot.shape
        z = cosines(h, table).unflatten(0, (B, K))
        base = torch.where(st.live[:, :, None, None], z[..., :N_BASE], 0).sum(1) / st.count.to(z.dtype)[:, None, None]
        T = z.shape[2]
        index = torch.where(st.slot >= 0, st.slot, n_slots)[:, None, :].expand(B, T, K)
        aps = z.new_full((B, T, n_slots + 1), float("-inf"))
        aps = aps.scatter(2, index, z[..., ACTUAL].transpose(1, 2))
        return torch.cat((base, aps[..., :n_slots]), dim=-1)

    def _encode(self, table: Tensor, src: Tensor, st: Streams) -> tuple[Tensor, Tensor, tuple[Tensor, int] | None]:
        h, A = self._embed(table, src, st)
        h = self.emb_drop(h + tree_positions(src, self.cfg.d_model, h.dtype).repeat_interleave(st.k, 0))
        mask = pad_mask(src).repeat_interleave(st.k, 0)
        aggregate = self._aggregator(A, st)
        for layer in self.encoder:
            h = layer(h, mask, aggregate)
        return h, mask, aggregate(h) if "CA" in self.cfg.parts else None

    def _decode(self, table: Tensor, tgt: Tensor, st: Streams, memory: Tensor, mask: Tensor,
                agg_memory: tuple[Tensor, int] | None, n_slots: int, cache: Cache | None) -> Tensor:
        h, A = self._embed(table, tgt, st)
        h = self.emb_drop(h)
        aggregate = self._aggregator(A, st)
        for i, layer in enumerate(self.decoder):
            h = layer(h, memory, mask, aggregate, agg_memory, cache[i] if cache is not None else None, st.k)
        return self._project(h, table, st, n_slots)

    def forward(self, src: Tensor, tgt_in: Tensor, n_slots: int, n_aps: int) -> Tensor:
        """Teacher-forced cosines (B, T, N_BASE + n_slots). `n_slots` bounds the slot ids in the
        batch, `n_aps` the number of distinct APs of any one input (the stream count K)."""
        table = self._table()
        st = find_streams(src, n_slots, n_aps)
        memory, mask, agg_memory = self._encode(table, src, st)
        return self._decode(table, tgt_in, st, memory, mask, agg_memory, n_slots, None)

    def encode(self, src: Tensor, n_slots: int, n_aps: int, beams: int = 1) -> SIState:
        """Encoded inputs, to decode `beams` rows of each."""
        st = find_streams(src, n_slots, n_aps)
        memory, mask, agg_memory = self._encode(self._table(), src, st)
        if beams > 1:
            st = Streams(*(t.repeat_interleave(beams, 0) for t in (st.slot, st.live, st.count)))
        return SIState(st, memory, mask, agg_memory, [{} for _ in self.decoder], n_slots)

    def decode_step(self, state: SIState, tokens: Tensor) -> Tensor:
        """Cosines (N, V) of the next token after feeding `tokens` (N,)."""
        out = self._decode(self._table(), tokens[:, None], state.streams, state.memory, state.memory_mask,
                           state.agg_memory, state.n_slots, state.cache)
        return out[:, 0]
