"""Analytic FLOPs of a training step, for samples/s -> fraction of the accelerator's peak.

Counted: the matrix products of a forward pass over the batch *as padded* (what the GPU
computes), 2 FLOPs per multiply-add, times 3 for forward + backward (the backward pass costs two
products per forward product). Causal self-attention counts half its score and value products
(flash kernels skip the masked half); elementwise work, softmax, norms, the tree positional
encoding and the loss are left out (well under 5% at these sizes). The symbol-invariant model
runs every per-stream part once per stream (K = the batch's AP count); its aggregated views'
keys and values are computed once per input.

    step_flops(cfg, rows=768, src=40, tgt=48, n_aps=5, n_slots=5)
"""

from __future__ import annotations

from ltlwit.neural.config import ExpEmbConfig, ModelConfig, SIConfig
from ltlwit.neural.tokenizer import N_BASE

#: NVIDIA H100 SXM dense bf16 tensor-core peak (no sparsity), FLOP/s.
H100_BF16_PEAK = 989e12


def forward_flops(cfg: ModelConfig, src: int, tgt: int, n_aps: int, n_slots: int, scores: bool = True) -> float:
    """Forward FLOPs for one sample padded to `src` / `tgt` tokens (`scores`: with the attention
    score and value products, else the linear layers and cosines alone)."""
    d, f, layers = cfg.d_model, cfg.d_ff, cfg.n_layers

    def _attention(q: int, k: int, d: int, kv_rows: float = 1.0, causal: bool = False) -> float:
        """q/out projections per query row, k/v projections for `kv_rows` sources per query
        stream (fewer when shared), scores and weighted values."""
        proj = 2 * q * d * d * 2 + kv_rows * 2 * k * d * 2 * d
        return proj + (2 * 2 * q * k * d * (0.5 if causal else 1.0) if scores else 0.0)

    if isinstance(cfg, ExpEmbConfig):  # GRUs: three gates of two H×H products a token
        vocab = N_BASE + cfg.max_slots
        enc = src * (2 * 3 * 2 * d * d + 2 * d * d)  # the GRU, the attention keys U h_i
        step = (
            2 * 3 * 2 * d * d + 2 * d * d + 2 * 2 * src * d + 2 * 2 * d * d + 2 * d * vocab
        )  # GRU, W s, scores and context, W_c, W_o
        return enc + tgt * step
    ff = lambda n: 2 * 2 * n * d * f  # noqa: E731 - up and down projection
    vocab = N_BASE + n_slots
    if isinstance(cfg, SIConfig):
        parts, k = cfg.parts, max(n_aps, 1)
        enc = ff(src)
        if "EP" in parts:
            enc += _attention(src, src, d)
        if "EA" in parts:
            enc += _attention(src, src, d, kv_rows=1 / k)
        dec = ff(tgt)
        if "DP" in parts:
            dec += _attention(tgt, tgt, d, causal=True)
        if "DA" in parts:
            dec += _attention(tgt, tgt, d, kv_rows=1 / k, causal=True)
        if "CP" in parts:
            dec += _attention(tgt, src, d)
        if "CA" in parts:
            dec += _attention(tgt, src, d, kv_rows=1 / k)
        out = 2 * tgt * d * (N_BASE + 2)  # per-stream cosines against the base rows + actual/placeholder
        return k * (layers * (enc + dec) + out)
    enc = _attention(src, src, d) + ff(src)
    dec = _attention(tgt, tgt, d, causal=True) + _attention(tgt, src, d) + ff(tgt)
    return layers * (enc + dec) + 2 * tgt * d * vocab


def step_flops(cfg: ModelConfig, rows: int, src: int, tgt: int, n_aps: int, n_slots: int) -> float:
    """FLOPs of one optimiser step on a batch of `rows` samples of this padded shape."""
    return 3.0 * rows * forward_flops(cfg, src, tgt, n_aps, n_slots)
