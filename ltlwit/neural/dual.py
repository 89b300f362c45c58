"""The dual-part embedding transformer (Işık et al., ICML 2025: interchangeable token embeddings).

The shared embedding matrix is rebuilt on every forward pass:

    U = f_fn( [ f_bn(L)   0         ]    L: learned rows of the base tokens (d_α = d - d_β dims)
              [ f_bn(α)   f_bn(β_i) ] )  α: one learned row shared by all APs; β_i: random, distinct

so an AP is "an AP" (α) plus a random tag (β_i) that only tells it apart from the other APs of
the same input. β is redrawn on every training forward pass, so nothing can be learned about a
particular slot, and fixed at inference by `beta_seed`. Distinct β for the discrete methods are
drawn as distinct integers mapped to vectors (bits -> {-1,1}, base-3 digits -> {-1,0,1} skipping
the zero vector), never materialising the 2^d_β or 3^d_β - 1 candidates; above 32 dimensions the
draw is direct and collisions are left to their negligible odds. Training draws on the model's
own device from its generator (`draw_betas_on`: a random ordering of the candidate integers
when there are at most 2^16 of them), so that a training step needs no host work and can be
captured in a CUDA graph; the inference draw stays on the CPU, the same on every device. The matrix is tied three ways:
encoder input, decoder input, output projection (cosine logits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ltlwit.neural.backbone import (
    Cache,
    DecoderLayer,
    EncoderLayer,
    WitnessModel,
    cosines,
    counted_rows,
    initial_scale,
    keep_cache,
    keep_rows,
    pad_mask,
    reorder_cache,
)
from ltlwit.neural.config import DualConfig, ModelConfig
from ltlwit.neural.positional import tree_positions
from ltlwit.neural.tokenizer import N_BASE

_CHUNK = 64  # integers drawn per round: fixed, so a seeded draw of n vectors is a prefix of n + 1
# β is always drawn by the CPU generator, so a seeded draw is the same whichever device runs the model.
_CPU = torch.device("cpu")


def sampling_set_size(method: str, d_beta: int) -> int | None:
    """How many distinct β vectors exist (None: unbounded, the normal distribution)."""
    if method == "hypercube":
        return 2**d_beta
    if method == "neighbours":
        return 3**d_beta - 1
    return None


def _distinct_integers(size: int, n: int, generator: torch.Generator | None) -> list[int]:
    """n distinct integers from [0, size), in draw order (rejection; n <= size)."""
    seen: dict[int, None] = {}
    while len(seen) < n:
        for x in torch.randint(0, size, (_CHUNK,), generator=generator, device=_CPU).tolist():
            seen.setdefault(x, None)
            if len(seen) == n:
                break
    return list(seen)


def _digits(ints: Tensor, base: int, width: int) -> Tensor:
    powers = base ** torch.arange(width, dtype=torch.long, device=ints.device)
    return (ints[:, None] // powers) % base


def draw_betas(method: str, d_beta: int, n: int, generator: torch.Generator | None = None) -> Tensor:
    """(n, d_β) random parts, pairwise distinct for the discrete methods (d_β <= 32)."""
    size = sampling_set_size(method, d_beta)
    if size is not None and n > size:
        raise ValueError(
            f"the dual-part model tells apart at most {size} APs ({method} β, d_β={d_beta}); "
            f"this input needs {n} (use the symbol-invariant model)"
        )
    if method == "normal":
        return torch.randn(n, d_beta, generator=generator, device=_CPU)
    base = 2 if method == "hypercube" else 3
    if d_beta > 32:
        vectors = torch.randint(0, base, (n, d_beta), generator=generator, device=_CPU)
    else:
        assert size is not None  # hypercube or neighbours: a finite set
        ints = torch.tensor(_distinct_integers(size, n, generator), dtype=torch.long, device=_CPU)
        if base == 3:
            ints = ints + (ints >= (3**d_beta - 1) // 2).long()  # skip the zero vector's integer
        vectors = _digits(ints, base, d_beta)
    return (vectors * 2 - 1 if base == 2 else vectors - 1).float()


#: Most candidate vectors `draw_betas_on` orders on the device; wider sets draw on the CPU.
MAX_DEVICE_SET = 1 << 16


def draw_betas_on(method: str, d_beta: int, n: int, device: torch.device) -> Tensor:
    """(n, d_β) training draw on `device` (its default generator): distinct for the discrete
    methods, the same distribution as `draw_betas` (a uniformly random ordered n-subset)."""
    size = sampling_set_size(method, d_beta)
    if size is None:
        return torch.randn(n, d_beta, device=device)
    if size > MAX_DEVICE_SET or n > size:
        return draw_betas(method, d_beta, n).to(device)
    ints = torch.rand(size, device=device).argsort()[:n]
    base = 2 if method == "hypercube" else 3
    if base == 3:
        ints = ints + (ints >= (3**d_beta - 1) // 2).long()
    vectors = _digits(ints, base, d_beta)
    return (vectors * 2 - 1 if base == 2 else vectors - 1).float()


@dataclass
class DualState:
    """Decoding state: the embedding matrix in use, encoder memory, and the KV cache."""

    table: Tensor
    memory: Tensor
    memory_mask: Tensor
    cache: Cache
    n_slots: int

    def keep(self, n: int, inputs: Tensor) -> "DualState":
        """The state of `inputs` alone, out of n."""
        return DualState(
            self.table,
            keep_rows(self.memory, n, inputs),
            keep_rows(self.memory_mask, n, inputs),
            keep_cache(self.cache, n, inputs),
            self.n_slots,
        )

    def reorder(self, rows: Tensor) -> None:
        """Row r continues row rows[r] (beam search)."""
        reorder_cache(self.cache, rows)


class TiedTransformer(WitnessModel):
    """A standard encoder-decoder over one tied embedding table (encoder input, decoder input,
    output projection). The models built on it differ only in how the table is made: the
    dual-part model's here, the baselines' in `ltlwit.neural.baselines`. A subclass creates its
    embedding parameters in `_embeddings` (before the layers, so a seed gives the same initial
    weights as ever) and builds the table in `table`, either (V, d), or (B, V, d) for a table
    of its own per sequence."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self._embeddings()
        sizes = (cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout)  # d, heads, d_ff, dropout
        self.encoder = nn.ModuleList(EncoderLayer(*sizes) for _ in range(cfg.n_layers))
        self.decoder = nn.ModuleList(DecoderLayer(*sizes, cross_rope=cfg.cross_rope) for _ in range(cfg.n_layers))
        self.emb_drop = nn.Dropout(cfg.emb_dropout)
        self.register_buffer("logit_scale", torch.tensor(initial_scale(N_BASE + 5)))

    def _embeddings(self) -> None:
        raise NotImplementedError

    def table(self, n_slots: int, batch: int = 1) -> Tensor:
        raise NotImplementedError

    def _embed(self, table: Tensor, tokens: Tensor) -> Tensor:
        if table.dim() == 3:  # one table per sequence
            rows = tokens + torch.arange(tokens.shape[0], device=tokens.device)[:, None] * table.shape[1]
            return F.embedding(rows, table.flatten(0, 1)) * math.sqrt(self.cfg.d_model)
        return F.embedding(tokens, table) * math.sqrt(self.cfg.d_model)

    def _encode(self, table: Tensor, src: Tensor) -> tuple[Tensor, Tensor]:
        h = self.emb_drop(self._embed(table, src) + tree_positions(src, self.cfg.d_model, table.dtype))
        mask = pad_mask(src)
        rows = counted_rows(mask)
        for layer in self.encoder:
            h = layer(h, mask, rows=rows)
        return h, mask

    def _decode(self, table: Tensor, tgt: Tensor, memory: Tensor, mask: Tensor, cache: Cache | None) -> Tensor:
        h = self.emb_drop(self._embed(table, tgt))
        for i, layer in enumerate(self.decoder):
            h = layer(h, memory, mask, cache=cache[i] if cache is not None else None)
        return cosines(h, table)

    def forward(self, src: Tensor, tgt_in: Tensor, n_slots: int, n_aps: int = 0) -> Tensor:
        """Teacher-forced cosines (B, T, N_BASE + n_slots); `n_aps` is unused (same signature
        as the symbol-invariant model)."""
        table = self.table(n_slots, src.shape[0])
        memory, mask = self._encode(table, src)
        return self._decode(table, tgt_in, memory, mask, None)

    def encode(self, src: Tensor, n_slots: int, n_aps: int = 0, beams: int = 1) -> DualState:
        """Encoded inputs, to decode `beams` rows of each (the attention to the memory tells
        them apart by their number)."""
        table = self.table(n_slots, src.shape[0])
        memory, mask = self._encode(table, src)
        return DualState(table, memory, mask, [{} for _ in self.decoder], n_slots)

    def decode_step(self, state: DualState, tokens: Tensor) -> Tensor:
        """Cosines (N, V) of the next token after feeding `tokens` (N,)."""
        return self._decode(state.table, tokens[:, None], state.memory, state.memory_mask, state.cache)[:, 0]


class DualTransformer(TiedTransformer):
    cfg: DualConfig

    def _embeddings(self) -> None:
        self.base = nn.Parameter(torch.randn(N_BASE, self.cfg.d_model - self.cfg.d_beta))
        self.alpha = nn.Parameter(torch.randn(self.cfg.d_model - self.cfg.d_beta))

    @property
    def max_aps(self) -> int | None:
        return sampling_set_size(self.cfg.beta_method, self.cfg.d_beta)

    def betas(self, n: int) -> Tensor:
        """Fresh random parts while training; the `beta_seed` draw at inference."""
        gen = None if self.training else torch.Generator().manual_seed(self.cfg.beta_seed)
        return draw_betas(self.cfg.beta_method, self.cfg.d_beta, n, gen)

    def table(self, n_slots: int, batch: int = 1) -> Tensor:
        """The tied (N_BASE + n_slots, d) embedding matrix U, unit rows (one for the batch)."""
        dev = self.base.device
        if self.training:
            beta = draw_betas_on(self.cfg.beta_method, self.cfg.d_beta, n_slots, dev).to(self.base.dtype)
        else:
            beta = self.betas(n_slots).to(self.base.dtype)
            if dev.type == "cuda":  # pinned, so the copy does not wait for the GPU to drain
                beta = beta.pin_memory()
            beta = beta.to(dev, non_blocking=True)
        base = F.pad(F.normalize(self.base, dim=-1), (0, self.cfg.d_beta))
        alpha = F.normalize(self.alpha, dim=-1).expand(n_slots, -1)
        aps = torch.cat((alpha, F.normalize(beta, dim=-1)), dim=-1)
        return F.normalize(torch.cat((base, aps)), dim=-1)

    def calibrate(self, loss_of: Callable[[], float], draws: int = 10, first_seed: int = 0) -> list[tuple[float, int]]:
        """Fix `beta_seed` to the draw with the median loss among `draws` seeds (ITE paper, App. E.4).

        `loss_of()` evaluates the model in eval mode on a calibration set, which must not be the
        evaluation data. Returns the (loss, seed) pairs, sorted.
        """
        results = []
        for seed in range(first_seed, first_seed + draws):
            self.cfg.beta_seed = seed
            results.append((loss_of(), seed))
        results.sort()
        self.cfg.beta_seed = results[(len(results) - 1) // 2][1]
        return results
