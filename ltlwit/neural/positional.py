"""Positional information: the tree positional encoding of the encoder and RoPE of the decoder.

Tree positional encoding (Shiv & Quirk 2019, as used by DeepLTL): a node's vector is its path
from the root, one 2-dim step per edge, `[1,0]` for a left (or only) child and `[0,1]` for a
right child, the step nearest the node first, zero-padded (or cut) to d. For `&Uab!Xc`:
`[] [1,0] [1,0,1,0] [0,1,1,0] [0,1] [1,0,0,1] [1,0,1,0,0,1]`.

It is computed from the Polish token ids alone, batched, on the device: the token arities fix the
tree. With need_j = 1 + sum_{t<j}(arity_t - 1) (open operand slots before token j), token i is an
ancestor-or-self of token j iff i <= j and need_m >= need_i for every m in (i, j]; token n is a
right child iff token n-1 is not its ancestor (a first child directly follows its parent).
Training batches and beam-search inputs go through the same function.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from ltlwit.neural.tokenizer import ARITY, N_BASE, PAD

_ARITY = torch.tensor(ARITY + (0,), dtype=torch.long)  # the extra entry is every AP slot
_ARITY_ON: dict[torch.device, Tensor] = {}  # per-device copies: no host-to-device copy per batch


def _arity_table(device: torch.device) -> Tensor:
    table = _ARITY_ON.get(device)
    if table is None:
        table = _ARITY_ON[device] = _ARITY.to(device)
    return table


def tree_positions(tokens: Tensor, d: int, dtype: torch.dtype = torch.float32) -> Tensor:
    """(B, L) Polish formula ids, PAD-padded on the right -> (B, L, d) tree encodings (0 at pads)."""
    B, L = tokens.shape
    valid = tokens != PAD
    arity = _arity_table(tokens.device)[tokens.clamp(max=N_BASE)]
    step = torch.where(valid, arity - 1, torch.zeros_like(arity))
    need = 1 + torch.cumsum(step, dim=1) - step  # open slots before reading token j
    pos = torch.arange(L, device=tokens.device)
    later = pos[None, :] > pos[:, None]  # [i, m]: m > i
    big = torch.full((), L + 2, dtype=need.dtype, device=tokens.device)
    lowest = torch.where(later, need[:, None, :], big).cummin(dim=2).values  # min need over (i, j]
    anc = (lowest >= need[:, :, None]) & (pos[None, :] >= pos[:, None])  # [b, i, j]
    anc &= valid[:, :, None] & valid[:, None, :]
    depth = anc.sum(dim=1) - 1  # (B, L)
    right = torch.zeros_like(valid)
    right[:, 1:] = ~torch.diagonal(anc[:, :-1, 1:], dim1=1, dim2=2)
    # Node n on j's path contributes its side at step k = depth_j - depth_n (0 = nearest).
    k = depth[:, None, :] - depth[:, :, None]  # [b, n, j]
    col = 2 * k + right[:, :, None].long()
    keep = anc & (depth[:, :, None] >= 1) & (k < d // 2)
    col = torch.where(keep, col, torch.full_like(col, d)).transpose(1, 2)  # [b, j, n]
    out = torch.zeros(B, L, d + 1, dtype=dtype, device=tokens.device)
    out.scatter_(2, col, 1.0)
    return out[..., :d]


class Rotary(nn.Module):
    """Rotary position embedding (Su et al.) on (N, heads, T, head_dim), half-split pairing."""

    inv_freq: Tensor  # a buffer (moves with the module), annotated for the type checker

    def __init__(self, head_dim: int, base: float = 10000.0) -> None:
        super().__init__()
        if head_dim % 2:
            raise ValueError(f"RoPE needs an even head dimension, got {head_dim}")
        inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
        self.register_buffer("inv_freq", inv_freq.float(), persistent=False)
        self._table: tuple[Tensor, Tensor] | None = None

    def _angles(self, start: int, end: int) -> tuple[Tensor, Tensor]:
        freqs = torch.outer(
            torch.arange(start, end, device=self.inv_freq.device, dtype=self.inv_freq.dtype), self.inv_freq
        )
        return freqs.cos(), freqs.sin()

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:
        T, half = x.shape[-2], x.shape[-1] // 2
        if torch.is_grad_enabled():
            cos, sin = self._angles(offset, offset + T)
        else:  # decoding: one position per call, from a table made once
            if self._table is None or self._table[0].shape[0] < offset + T or self._table[0].device != x.device:
                self._table = self._angles(0, max(2 * (offset + T), 64))
            cos, sin = (c[offset : offset + T] for c in self._table)
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
