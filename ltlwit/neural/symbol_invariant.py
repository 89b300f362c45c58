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
mask keeps the padding out of every mean (training, the encoder); decoding runs the live
streams alone (`SIState`). An input without APs runs one stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ltlwit.neural.backbone import (
    Aggregate,
    Cache,
    DecoderLayer,
    EncoderLayer,
    WitnessModel,
    cosines,
    counted_rows,
    initial_scale,
    keep_rows,
    pad_mask,
    reorder_cache,
)
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
    """Decoding state, one row per live stream and beam, stream-major: the `beams` rows of live
    stream s are s * beams ... s * beams + beams - 1. A batch pads its inputs' streams to the
    most APs among them (training keeps those shapes); decoding drops the padding streams, which
    were 30% of the rows on the ltl35 test split, and an encoder row is shared by consecutive
    rows, its beams. Streams meet only in means over an input's beam (`beam_row`), by index.
    The encoder's memory, and its aggregated view, are held per live stream."""

    beams: int
    memory: Tensor  # (S, L, d): per live stream
    memory_mask: Tensor  # (S, 1, 1, L)
    agg_memory: tuple[Tensor, Tensor] | None  # the aggregated view, (S, L, d) and its mask, with CA
    cache: Cache
    n_slots: int
    stream_input: Tensor  # (S,) the input of each live stream
    slot: Tensor  # (R,) AP slot of each row's stream, -1 for an input without APs
    beam_row: Tensor  # (R,) the row's input * beams + beam: what decode_step's tokens and outputs index
    count: Tensor  # (n * beams,) live streams of each beam row, as a float

    @classmethod
    def start(
        cls,
        st: Streams,
        memory: Tensor,
        mask: Tensor,
        agg: tuple[Tensor, Tensor] | None,
        beams: int,
        cache: Cache,
        n_slots: int,
    ) -> "SIState":
        """From the encoder's padded streams (B * K rows) to the live ones."""
        live = st.live.flatten().nonzero().squeeze(1)
        stream_input = live // st.k
        if agg is not None:
            agg = (agg[0].index_select(0, stream_input), agg[1].index_select(0, stream_input))
        slot = st.slot.flatten().index_select(0, live).repeat_interleave(beams)
        return cls(
            beams,
            memory.index_select(0, live),
            mask.index_select(0, live),
            agg,
            cache,
            n_slots,
            stream_input,
            slot,
            cls._beam_rows(stream_input, beams),
            st.count.repeat_interleave(beams),
        )

    @staticmethod
    def _beam_rows(stream_input: Tensor, beams: int) -> Tensor:
        beam = torch.arange(beams, device=stream_input.device)
        return (stream_input[:, None] * beams + beam).flatten()

    def reorder(self, rows: Tensor) -> None:
        """Beam row r continues beam row rows[r] (of the same input): each of its streams takes
        that beam's cache rows. Cross-attention entries are per stream and stay."""
        reorder_cache(
            self.cache, torch.arange(self.beam_row.shape[0], device=rows.device) + rows[self.beam_row] - self.beam_row
        )

    def keep(self, n: int, inputs: Tensor) -> "SIState":
        """The state of `inputs` (ascending) alone, out of n."""
        renumber = torch.full((n,), -1, dtype=torch.long, device=inputs.device)
        renumber[inputs] = torch.arange(inputs.shape[0], device=inputs.device)
        streams = (renumber[self.stream_input] >= 0).nonzero().squeeze(1)
        beam = torch.arange(self.beams, device=inputs.device)
        rows = (streams[:, None] * self.beams + beam).flatten()
        stream_input = renumber[self.stream_input.index_select(0, streams)]
        agg = (
            None
            if self.agg_memory is None
            else (self.agg_memory[0].index_select(0, streams), self.agg_memory[1].index_select(0, streams))
        )
        cache = [
            {
                name: {
                    key: t.index_select(0, streams if name.startswith("cross") else rows) for key, t in entry.items()
                }
                for name, entry in layer.items()
            }
            for layer in self.cache
        ]
        return SIState(
            self.beams,
            self.memory.index_select(0, streams),
            self.memory_mask.index_select(0, streams),
            agg,
            cache,
            self.n_slots,
            stream_input,
            self.slot.index_select(0, rows),
            self._beam_rows(stream_input, self.beams),
            keep_rows(self.count, n, inputs),
        )


class SymbolInvariantTransformer(WitnessModel):
    cfg: SIConfig

    def __init__(self, cfg: SIConfig) -> None:
        super().__init__()
        self.cfg = cfg
        parts = cfg.parts
        d = cfg.d_model
        sizes = (d, cfg.n_heads, cfg.d_ff, cfg.dropout)  # d, heads, d_ff, dropout
        cross = [m for m, p in (("per", "CP"), ("agg", "CA")) if p in parts]
        self.embedding = nn.Parameter(torch.randn(N_BASE + 2, d))  # + actual and placeholder rows
        self.encoder = nn.ModuleList(
            EncoderLayer(*sizes, per_stream="EP" in parts, aggregated="EA" in parts) for _ in range(cfg.n_layers)
        )
        self.decoder = nn.ModuleList(
            DecoderLayer(
                *sizes, per_stream="DP" in parts, aggregated="DA" in parts, cross=cross, cross_rope=cfg.cross_rope
            )
            for _ in range(cfg.n_layers)
        )
        self.emb_drop = nn.Dropout(cfg.emb_dropout)
        self.register_buffer("logit_scale", torch.tensor(initial_scale(N_BASE + 5)))

    max_aps = None  # any number of APs

    def _table(self) -> Tensor:
        return F.normalize(self.embedding, dim=-1)

    def _embed(self, table: Tensor, tokens: Tensor, slot: Tensor) -> tuple[Tensor, Tensor]:
        """Algorithm 1 for token ids and the AP slot of their stream (broadcasting): embeddings
        (..., d) and whether each token is its stream's own AP."""
        actual = (tokens == N_BASE + slot) & (slot >= 0)
        ids = torch.where(actual, ACTUAL, torch.where(tokens >= N_BASE, PLACEHOLDER, tokens))
        return F.embedding(ids, table) * math.sqrt(self.cfg.d_model), actual

    def _embed_streams(self, table: Tensor, tokens: Tensor, st: Streams) -> tuple[Tensor, Tensor]:
        """(B, L) ids -> per-stream embeddings (B*K, L, d) and AP masks A (B, K, L)."""
        h, actual = self._embed(table, tokens[:, None, :], st.slot[:, :, None])
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

    @staticmethod
    def _row_aggregator(actual: Tensor, state: SIState) -> Aggregate:
        """Algorithm 2 over a decoding step's rows (`SIState`): sums by beam row, by index."""
        rows, count = state.beam_row, state.count
        at_ap = (count.new_zeros(count.shape).index_add_(0, rows, actual.to(count.dtype)) > 0)[:, None, None]

        def aggregate(h: Tensor) -> tuple[Tensor, Tensor]:
            zero = h.new_zeros(())
            sums = h.new_zeros((count.shape[0],) + h.shape[1:])
            mean = sums.index_add(0, rows, h) / count.to(h.dtype)[:, None, None]
            own = sums.index_add(0, rows, torch.where(actual[:, None, None], h, zero))
            return torch.where(at_ap, own, mean), rows

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

    @staticmethod
    def _project_rows(h: Tensor, table: Tensor, state: SIState) -> Tensor:
        """Algorithm 5 over a decoding step's rows: (R, 1, d) -> cosines (n * beams, V)."""
        z = cosines(h[:, 0], table)
        rows, n = state.beam_row, state.count.shape[0]
        base = z.new_zeros(n, N_BASE).index_add_(0, rows, z[:, :N_BASE]) / state.count.to(z.dtype)[:, None]
        aps = z.new_full((n, state.n_slots + 1), float("-inf"))
        aps.index_put_((rows, torch.where(state.slot >= 0, state.slot, state.n_slots)), z[:, ACTUAL])
        return torch.cat((base, aps[:, : state.n_slots]), dim=-1)

    def _encode(self, table: Tensor, src: Tensor, st: Streams) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor] | None]:
        """Per-stream memory (B*K, L, d), its mask, and with CA the aggregated view (B, L, d)
        and its mask."""
        h, A = self._embed_streams(table, src, st)
        h = self.emb_drop(h + tree_positions(src, self.cfg.d_model, h.dtype).repeat_interleave(st.k, 0))
        mask = pad_mask(src).repeat_interleave(st.k, 0)
        aggregate = self._aggregator(A, st)
        rows = counted_rows(mask.flatten(1) & st.live.flatten()[:, None])
        for layer in self.encoder:
            h = layer(h, mask, aggregate, rows)
        return h, mask, (aggregate(h)[0], pad_mask(src)) if "CA" in self.cfg.parts else None

    def forward(self, src: Tensor, tgt_in: Tensor, n_slots: int, n_aps: int) -> Tensor:
        """Teacher-forced cosines (B, T, N_BASE + n_slots). `n_slots` bounds the slot ids in the
        batch, `n_aps` the number of distinct APs of any one input (the stream count K)."""
        table = self._table()
        st = find_streams(src, n_slots, n_aps)
        memory, mask, agg_memory = self._encode(table, src, st)
        h, A = self._embed_streams(table, tgt_in, st)
        h = self.emb_drop(h)
        aggregate = self._aggregator(A, st)
        for layer in self.decoder:
            h = layer(h, memory, mask, aggregate, agg_memory, streams=st.k)
        return self._project(h, table, st, n_slots)

    def encode(self, src: Tensor, n_slots: int, n_aps: int, beams: int = 1) -> SIState:
        """Encoded inputs, to decode `beams` rows of each."""
        st = find_streams(src, n_slots, n_aps)
        memory, mask, agg_memory = self._encode(self._table(), src, st)
        return SIState.start(st, memory, mask, agg_memory, beams, [{} for _ in self.decoder], n_slots)

    def decode_step(self, state: SIState, tokens: Tensor) -> Tensor:
        """Cosines (N, V) of the next token after feeding `tokens` (N,): one per beam row."""
        table = self._table()
        h, actual = self._embed(table, tokens.index_select(0, state.beam_row), state.slot)
        h = self.emb_drop(h[:, None])
        aggregate = self._row_aggregator(actual, state) if "DA" in self.cfg.parts else None
        for layer, cache in zip(self.decoder, state.cache):
            h = layer(h, state.memory, state.memory_mask, aggregate, state.agg_memory, cache)
        return self._project_rows(h, table, state)
