"""Encoder-decoder pieces shared by both model families.

Layers are post-norm, `x <- LayerNorm(x + Dropout(sublayer(x)))`, as in the symbol-invariant
paper's Algorithms 3 and 4. Every layer optionally carries the symbol-invariant parts (attention
to an aggregated view); with them off it is a standard transformer layer, which the dual-part
model uses. Attention goes through `scaled_dot_product_attention` (flash / memory-efficient
kernels on GPU), the decoder's self-attention uses RoPE (cross-attention too when the config's
`cross_rope` is on: decoder positions on the queries, source indices on the keys, as in the ITE
reference code), and decoding keeps a key/value cache.

Embeddings are tied three ways (encoder input, decoder input, output projection) with
L2-normalised rows, and decoder features are L2-normalised too, so the models emit cosines;
`adacos_loss` scales them adaptively (Zhang et al. 2019) over all non-pad tokens of a batch,
scale clipped at 100 (ITE paper, Sec. 4.3). The scale lives in the model as `logit_scale`, so
beam search and checkpoints see the value training reached.

Parameters keep PyTorch's default initialisation, as in the ITE reference code: with a small
(GPT-style) init the decoder output is almost its input embedding, wrong-class cosines start
near 0.9, and AdaCos jumps to its scale cap for the first few dozen steps.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ltlwit.neural.positional import Rotary
from ltlwit.neural.tokenizer import PAD, START

if TYPE_CHECKING:
    from ltlwit.neural.config import ModelConfig

MAX_SCALE = 100.0
#: A decoding cache: one dict per decoder layer, sublayer name -> {"k", "v"} tensors.
Cache = list[dict[str, dict[str, Tensor]]]


def resolve_device(name: str | torch.device | None) -> torch.device:
    """`auto` (or None) -> cuda when available, else cpu; `cuda` without a GPU is an error."""
    if name is None or str(name) == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda was asked for but no CUDA GPU is available")
    return device


def initial_scale(n_classes: int) -> float:
    """AdaCos' fixed-scale start value sqrt(2) log(C - 1)."""
    return math.sqrt(2.0) * math.log(max(n_classes - 1, 2))


def adacos_loss(cos: Tensor, target: Tensor, scale: Tensor, update: bool) -> Tensor:
    """Cross-entropy of `scale * cos` over non-PAD targets; with `update`, first re-estimate the
    scale from this batch (dynamic AdaCos: s = log B_avg / cos(min(pi/4, median theta_y))).

    No boolean indexing, so no host synchronisation on a GPU.
    """
    cos = cos.float().flatten(0, -2)
    target = target.flatten()
    if update:
        with torch.no_grad():  # in log space: exp(100 * cos) overflows float32
            keep = target != PAD
            n = keep.sum()
            cos_y = cos.gather(1, target[:, None]).squeeze(1)
            others = (scale * cos).scatter(1, target[:, None], float("-inf"))
            others = others.masked_fill(~keep[:, None], float("-inf"))
            log_b_avg = torch.logsumexp(others.flatten(), 0) - torch.log(n.clamp(min=1).float())
            theta = torch.acos(cos_y.clamp(-1 + 1e-7, 1 - 1e-7)).masked_fill(~keep, float("inf"))
            median = theta.sort().values.gather(0, ((n - 1) // 2).clamp(min=0).view(1)).squeeze(0)
            new = log_b_avg / torch.cos(torch.clamp(median, max=math.pi / 4))
            scale.copy_(torch.where(torch.isfinite(new), new.clamp(1.0, MAX_SCALE), scale))
    return F.cross_entropy(scale * cos, target, ignore_index=PAD)


class Attention(nn.Module):
    """Multi-head attention; one fused q/k/v projection serves self- and cross-attention."""

    def __init__(self, d: int, heads: int, dropout: float, rotary: bool = False) -> None:
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.rotary = Rotary(d // heads) if rotary else None

    def _split(self, x: Tensor) -> Tensor:  # (N, T, d) -> (N, H, T, hd)
        return x.unflatten(-1, (self.heads, -1)).transpose(1, 2)

    def forward(
        self,
        x: Tensor,
        source: Tensor | None = None,
        mask: Tensor | None = None,
        causal: bool = False,
        cache: dict[str, Tensor] | None = None,
        static: bool = False,
        groups: int | Tensor = 1,
        offset: int = 0,
        streams: int = 1,
    ) -> Tensor:
        """Queries from x (N, T, d), keys/values from `source` (x when None).

        `mask` (bool, True = attend) broadcasts to (N, H, T, S). `groups` (causal attention to a
        source: the aggregated view): source rows are shared by that many consecutive query rows,
        or, a tensor, query row r reads source row groups[r].
        Non-causal attention to a source of M < N rows takes the query rows as (inputs, N / M,
        `streams`) over source rows (inputs, `streams`), and folds the N / M query rows sharing
        a source row into one row of more query positions, so that keys and values are neither
        copied nor read once per sharer (the aggregated view of an input's streams; an input's
        beams: `mask` then has one row per source row). With `cache`, new keys/values are
        appended (decoding one step at a time), or, when `static`, computed once and reused
        (cross-attention memory). With RoPE, `static` (cross-) attention rotates the keys by
        their source index and the queries by `offset` plus their index (the decoding
        position); otherwise both by the cache length plus index.
        """
        d = x.shape[-1]
        w, b = self.qkv.weight, self.qkv.bias
        past = 0
        if source is None:
            q, k, v = self._split(F.linear(x, w, b)).chunk(3, dim=-1)
        else:
            q = self._split(F.linear(x, w[:d], b[:d]))
            if static and cache:
                k, v = cache["k"], cache["v"]
            else:
                k, v = self._split(F.linear(source, w[d:], b[d:])).chunk(2, dim=-1)
                if static and self.rotary is not None:
                    k = self.rotary(k, 0)
                if causal and isinstance(groups, Tensor):
                    k, v = k.index_select(0, groups), v.index_select(0, groups)
                elif causal and groups > 1:
                    k, v = k.repeat_interleave(groups, 0), v.repeat_interleave(groups, 0)
        if cache is not None and not static:
            past = cache["k"].shape[2] if "k" in cache else 0
        if self.rotary is not None:
            if static:
                q = self.rotary(q, offset)
            else:
                q, k = self.rotary(q, past), self.rotary(k, past)
        if cache is not None:
            if not static and past:
                k, v = torch.cat((cache["k"], k), 2), torch.cat((cache["v"], v), 2)
            cache["k"], cache["v"] = k, v
            causal = causal and past == 0 and q.shape[2] > 1
        sharers = q.shape[0] // k.shape[0]
        if sharers > 1 and not causal:
            q = _fold(q, sharers, streams)
        y = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=causal and mask is None, dropout_p=self.dropout if self.training else 0.0
        )
        if sharers > 1 and not causal:
            y = _unfold(y, sharers, streams)
        return self.out(y.transpose(1, 2).flatten(2))


def _fold(q: Tensor, sharers: int, streams: int) -> Tensor:
    """(inputs * sharers * streams, H, T, hd) -> (inputs * streams, H, sharers * T, hd)."""
    n, heads, t, hd = q.shape
    q = q.view(n // (sharers * streams), sharers, streams, heads, t, hd).permute(0, 2, 3, 1, 4, 5)
    return q.reshape(n // sharers, heads, sharers * t, hd)


def _unfold(y: Tensor, sharers: int, streams: int) -> Tensor:
    """The inverse of `_fold`."""
    m, heads, st, hd = y.shape
    y = y.view(m // streams, streams, heads, sharers, st // sharers, hd).permute(0, 3, 1, 2, 4, 5)
    return y.reshape(m * sharers, heads, st // sharers, hd)


#: Rows per block of the feed-forward sublayer at inference: its hidden layer (d_ff wide, 4-8
#: times the model's) then stays in the CPU's cache instead of going through fresh memory.
FF_ROWS = 256


def counted_rows(counts: Tensor) -> Tensor | None:
    """Flat indices of the hidden-state rows whose values reach an output (`counts`: bool over
    the rows' leading dims): the feed-forward sublayer computes only these at inference. A
    batch pads its inputs to the longest and the symbol-invariant model its streams to the most
    APs: on the ltl35 test split that is half of the encoder's rows. None while gradients flow
    (training keeps static shapes)."""
    if torch.is_grad_enabled():
        return None
    return counts.flatten().nonzero().squeeze(1)


class FeedForward(nn.Module):
    def __init__(self, d: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.up, self.down, self.drop = nn.Linear(d, d_ff), nn.Linear(d_ff, d), nn.Dropout(dropout)

    def forward(self, x: Tensor, rows: Tensor | None = None) -> Tensor:
        """`rows` (inference only, from `counted_rows`): the flat rows of x to compute; the
        others come out as zeros, which nothing downstream reads (padding is masked out of
        attention, dead streams out of every mean)."""
        if torch.is_grad_enabled() or self.training:
            return self.down(self.drop(F.relu(self.up(x))))
        flat = x.reshape(-1, x.shape[-1])
        if rows is None:
            return self._blocks(flat).view(x.shape)
        y = self._blocks(flat.index_select(0, rows))  # bfloat16 under autocast, like x's sublayers
        return y.new_zeros(flat.shape).index_copy_(0, rows, y).view(x.shape)

    def _blocks(self, flat: Tensor) -> Tensor:
        if flat.device.type != "cpu" or flat.shape[0] <= 2 * FF_ROWS:
            return self.down(F.relu(self.up(flat), inplace=True))
        # On a CPU, block by block: 3x faster for the encoder's thousands of rows, and the same
        # numbers (each row's sums are unchanged).
        return torch.cat(
            [self.down(F.relu(self.up(flat[i : i + FF_ROWS]), inplace=True)) for i in range(0, flat.shape[0], FF_ROWS)]
        )


#: Maps per-stream hidden states (N*K, T, d) to the aggregated view (N, T, d) and K, or (a
#: decoding step's rows, `SIState`) rows to their beam rows' view and each row's beam row.
Aggregate = Callable[[Tensor], tuple[Tensor, int | Tensor]]


class EncoderLayer(nn.Module):
    """Per-stream self-attention (EP), attention to the aggregated view (EA), feed-forward."""

    def __init__(
        self, d: int, heads: int, d_ff: int, dropout: float, per_stream: bool = True, aggregated: bool = False
    ) -> None:
        super().__init__()
        self.self_attn = Attention(d, heads, dropout) if per_stream else None
        self.agg_attn = Attention(d, heads, dropout) if aggregated else None
        self.ff = FeedForward(d, d_ff, dropout)
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(1 + per_stream + aggregated))
        self.drop = nn.Dropout(dropout)

    def forward(
        self, h: Tensor, mask: Tensor, aggregate: Aggregate | None = None, rows: Tensor | None = None
    ) -> Tensor:
        """`rows`: the feed-forward's rows (`counted_rows`), None for all."""
        norms = iter(self.norms)
        if self.self_attn is not None:
            h = next(norms)(h + self.drop(self.self_attn(h, mask=mask)))
        if self.agg_attn is not None:
            assert aggregate is not None  # a layer with attention to the aggregated view is given the aggregator
            g, k = aggregate(h)
            h = next(norms)(h + self.drop(self.agg_attn(h, g, mask=mask[::k])))
        return next(norms)(h + self.drop(self.ff(h, rows)))


class DecoderLayer(nn.Module):
    """Causal per-stream self-attention (DP), causal aggregated attention (DA), cross-attention
    to the encoder per stream (`per`, CP) and/or to its aggregated view (`agg`, CA), feed-forward."""

    def __init__(
        self,
        d: int,
        heads: int,
        d_ff: int,
        dropout: float,
        per_stream: bool = True,
        aggregated: bool = False,
        cross: Sequence[str] = ("per",),
        cross_rope: bool = False,
    ) -> None:
        super().__init__()
        self.self_attn = Attention(d, heads, dropout, rotary=True) if per_stream else None
        self.agg_attn = Attention(d, heads, dropout, rotary=True) if aggregated else None
        self.cross_modes = tuple(cross)
        self.cross = nn.ModuleList(Attention(d, heads, dropout, rotary=cross_rope) for _ in self.cross_modes)
        self.ff = FeedForward(d, d_ff, dropout)
        n = 1 + per_stream + aggregated + len(self.cross_modes)
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(n))
        self.drop = nn.Dropout(dropout)

    def forward(
        self,
        h: Tensor,
        memory: Tensor,
        memory_mask: Tensor,
        aggregate: Aggregate | None = None,
        agg_memory: tuple[Tensor, Tensor] | None = None,
        cache: dict[str, dict[str, Tensor]] | None = None,
        streams: int = 1,
    ) -> Tensor:
        """`memory` has `streams` rows per input (`memory_mask` one per memory row), `h` as many
        per input and beam; `agg_memory`, the aggregated view and its mask, one row per input
        (training) or per memory row (decoding)."""
        norms = iter(self.norms)
        sub = (lambda name: cache.setdefault(name, {})) if cache is not None else (lambda name: None)
        offset = decoded_length(cache)  # position of this call's first token (for cross-RoPE)
        if self.self_attn is not None:
            h = next(norms)(h + self.drop(self.self_attn(h, causal=True, cache=sub("self"))))
        if self.agg_attn is not None:
            assert aggregate is not None  # a layer with attention to the aggregated view is given the aggregator
            g, k = aggregate(h)
            h = next(norms)(h + self.drop(self.agg_attn(h, g, causal=True, cache=sub("agg"), groups=k)))
        for i, (mode, attn) in enumerate(zip(self.cross_modes, self.cross)):
            if mode == "per":
                src, mask, per = memory, memory_mask, streams
            else:
                assert agg_memory is not None  # a layer with cross-attention to the aggregated view is given it
                (src, mask), per = agg_memory, 1
            h = next(norms)(
                h + self.drop(attn(h, src, mask=mask, cache=sub(f"cross{i}"), static=True, offset=offset, streams=per))
            )
        return next(norms)(h + self.drop(self.ff(h)))


def decoded_length(cache: dict[str, dict[str, Tensor]] | None) -> int:
    """Tokens a decoder layer's cache already holds (0 without a cache): from its causal
    self-attention entries, which grow by one position per decoding step."""
    for name in ("self", "agg"):
        entry = (cache or {}).get(name)
        if entry and "k" in entry:
            return entry["k"].shape[2]
    return 0


def cosines(h: Tensor, table: Tensor) -> Tensor:
    """Cosine logits: L2-normalised features against unit embedding rows, in at least float32
    and outside autocast (bf16 cosines would be too coarse for the AdaCos scale); <pad> and
    <start> get -inf, being never the next token."""
    dtype = torch.promote_types(h.dtype, torch.float32)
    with torch.autocast(h.device.type, enabled=False):
        cos = F.normalize(h.to(dtype), dim=-1) @ table.to(dtype).mT  # (V, d) or one table per row (B, V, d)
    ids = torch.arange(cos.shape[-1], device=cos.device)
    return cos.masked_fill((ids == PAD) | (ids == START), float("-inf"))


def pad_mask(tokens: Tensor) -> Tensor:
    """(N, S) ids -> (N, 1, 1, S) attention mask, True where a key is a real token."""
    return (tokens != PAD)[:, None, None, :]


def keep_rows(t: Tensor, n: int, inputs: Tensor) -> Tensor:
    """The rows of `inputs` (ids among n inputs, each owning t.shape[0] // n consecutive rows)."""
    return t.unflatten(0, (n, -1)).index_select(0, inputs).flatten(0, 1)


def keep_cache(cache: Cache, n: int, inputs: Tensor) -> Cache:
    """A decoding cache for `inputs` alone (beam search drops the inputs it has finished)."""
    return [
        {name: {key: keep_rows(t, n, inputs) for key, t in entry.items()} for name, entry in layer.items()}
        for layer in cache
    ]


def reorder_cache(cache: Cache, rows: Tensor) -> None:
    """Row r of the decoding cache continues row rows[r] (beam search). Static cross-attention
    entries are per input and stay."""
    for layer in cache:
        for name, entry in layer.items():
            if not name.startswith("cross"):
                for key, t in entry.items():
                    entry[key] = t.index_select(0, rows)


class WitnessModel(nn.Module):
    """What decoding, saving and training ask of a model of either family (and of the
    baselines, which subclass them): its config, the encoder's state for a batch of inputs, one
    decoder step's logits. The families subclass it; nothing builds it alone."""

    cfg: ModelConfig
    #: AdaCos' scale, a buffer each family registers: decoding multiplies the cosines by it,
    #: training re-estimates it, checkpoints and manifests record it.
    logit_scale: Tensor

    @property
    def max_aps(self) -> int | None:
        """The most APs one input may have (None: any number); each family says."""
        raise NotImplementedError

    def loss(self, out: Tensor, tgt_out: Tensor, update: bool = False) -> Tensor:
        """The training objective of the teacher-forced outputs `out` (forward's) against
        `tgt_out`: cross-entropy of the scaled cosines, with `update` the scale re-estimated
        from this batch first (AdaCos); a family whose outputs are no cosines says its own."""
        return adacos_loss(out, tgt_out, self.logit_scale, update)

    def encode(self, src: Tensor, n_slots: int, n_aps: int, beams: int = 1) -> Any:
        raise NotImplementedError

    def decode_step(self, state: Any, tokens: Tensor) -> Tensor:
        raise NotImplementedError
