"""Batched decoding for both model families: greedy (validation) and beam search (inference).

Beam search keeps `beam` hypotheses per input in one batch of inputs x beams, decodes one token
per step through the key/value cache, and scores finished hypotheses with the GNMT length
penalty, log p / ((5 + |y|) / 6)^alpha. Ties are broken deterministically: higher score first,
then the lower token id, then the lower beam (a stable sort over a token-major layout), so two
runs on the same inputs give identical results on the same device. An input stops when it has
`beam` finished hypotheses and its best running one, normalised at the current length, cannot
beat the beam-th best finished one (the usual heuristic; the log-probability never rises).
Invalid token strings are decoded to `DecodeError` and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor

from ltlwit.logic.formula import Formula
from ltlwit.neural.backbone import WitnessModel, resolve_device
from ltlwit.neural.tokenizer import EOS, N_BASE, PAD, START, DecodeError, Witness, decode_witness, encode_formula


@dataclass(frozen=True)
class Candidate:
    witness: Witness
    score: float  # length-normalised log-probability (higher is better)
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class BeamSearch:
    """A loaded model's beam search with its settings, called on batches of formulas over slot
    names: the one wrapper that the pipeline's candidate source (which keeps the scores, to
    merge two models' candidates) and evaluation's predictor (which ranks witnesses only) read
    each their way. `n_best` is at most `beam` (default: `beam`)."""

    model: WitnessModel
    beam: int = 3
    n_best: int | None = None
    batch_size: int = 128
    max_len: int = 160
    device: str | None = None

    def __call__(self, formulas: Sequence[Formula]) -> list[list[Candidate]]:
        n_best = self.beam if self.n_best is None else min(self.n_best, self.beam)
        return beam_search(
            self.model,
            list(formulas),
            beam=self.beam,
            n_best=n_best,
            max_len=self.max_len,
            batch_size=self.batch_size,
            device=self.device,
        )


def length_penalty(length: int, alpha: float) -> float:
    return ((5.0 + length) / 6.0) ** alpha


def _model_device(model: WitnessModel) -> torch.device:
    return next(model.parameters()).device


@torch.no_grad()
def greedy(model: WitnessModel, src: Tensor, n_slots: int, n_aps: int, max_len: int = 160) -> list[list[int]]:
    """Greedy decoding of a batch of encoded inputs (eval mode is the caller's business);
    returns each output's ids without <eos> (unfinished outputs are returned as they stand)."""
    state = model.encode(src, n_slots, n_aps)
    tokens = torch.full((src.shape[0],), START, dtype=torch.long, device=src.device)
    done = torch.zeros_like(tokens, dtype=torch.bool)
    out = []
    for _ in range(max_len):
        tokens = model.decode_step(state, tokens).argmax(-1).masked_fill(done, PAD)
        out.append(tokens)
        done |= tokens == EOS
        if bool(done.all()):
            break
    rows = torch.stack(out, 1).tolist()
    return [r[: r.index(EOS)] if EOS in r else r for r in rows]


def encode_inputs(formulas: Sequence[Formula], device: torch.device) -> tuple[Tensor, int, int]:
    """Padded source ids, slot bound and most APs of one input, for formulas over slot names."""
    ids = [encode_formula(f) for f in formulas]
    width = max(len(r) for r in ids)
    src = torch.tensor([r + [PAD] * (width - len(r)) for r in ids], dtype=torch.long, device=device)
    n_slots = max((t - N_BASE + 1 for r in ids for t in r if t >= N_BASE), default=0)
    n_aps = max(len(f.aps()) for f in formulas)
    return src, n_slots, n_aps


Hypothesis = tuple[float, tuple[int, ...]]  # (length-normalised log-probability, ids without <eos>)


@torch.inference_mode()
def beam_hypotheses(
    model: WitnessModel,
    formulas: Sequence[Formula],
    beam: int = 3,
    alpha: float = 1.0,
    max_len: int = 160,
    batch_size: int = 128,
    device: str | torch.device | None = None,
) -> list[list[Hypothesis]]:
    """Every finished hypothesis per formula, best first (ties: lower ids first), distinct.

    Formulas must be over slot names (`a`, `b`, ..., `p26`): rename canonically first. `device`
    (`auto`, `cpu`, `cuda`) moves the model there; None keeps it where it is.
    """
    if beam < 1:
        raise ValueError(f"beam must be at least 1, got {beam}")
    if device is not None:
        model.to(resolve_device(device))
    dev = _model_device(model)
    was_training = model.training
    model.eval()
    try:
        order = sorted(range(len(formulas)), key=lambda i: formulas[i].size)
        results: list[list[Hypothesis]] = [[] for _ in formulas]
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            for i, hyps in zip(chunk, _beam_chunk(model, [formulas[i] for i in chunk], beam, alpha, max_len, dev)):
                results[i] = hyps
        return results
    finally:
        model.train(was_training)


def beam_search(
    model: WitnessModel,
    formulas: Sequence[Formula],
    beam: int = 3,
    n_best: int | None = None,
    alpha: float = 1.0,
    max_len: int = 160,
    batch_size: int = 128,
    device: str | torch.device | None = None,
) -> list[list[Candidate]]:
    """Top-`n_best` (<= beam, default beam) distinct decoded witnesses per formula, best first;
    token strings that are no well-formed trace/assignment are dropped (see `beam_hypotheses`)."""
    n_best = beam if n_best is None else n_best
    if not 1 <= n_best <= beam:
        raise ValueError(f"need 1 <= n_best <= beam, got n_best={n_best}, beam={beam}")
    task = model.cfg.task
    out = []
    for hyps in beam_hypotheses(model, formulas, beam, alpha, max_len, batch_size, device):
        cands: list[Candidate] = []
        for score, seq in hyps:
            witness = decode_witness(task, seq)
            if isinstance(witness, DecodeError) or any(c.witness == witness for c in cands):
                continue  # malformed, or the same assignment in another AP order
            cands.append(Candidate(witness, score, seq))
            if len(cands) == n_best:
                break
        out.append(cands)
    return out


def _beam_chunk(
    model: WitnessModel, formulas: list[Formula], k: int, alpha: float, max_len: int, dev: torch.device
) -> list[list[Hypothesis]]:
    """Beam search over one batch. The encoder runs once per input (its beams share the memory);
    an input leaves the batch, its cache rows with it, as soon as it is done, so the decoder
    only ever runs the inputs still searching."""
    B = len(formulas)
    src, n_slots, n_aps = encode_inputs(formulas, dev)
    state = model.encode(src, n_slots, n_aps, beams=k)
    scale = model.logit_scale.float()
    scores = torch.full((B, k), float("-inf"), device=dev)
    scores[:, 0] = 0.0
    tokens = torch.full((B * k,), START, dtype=torch.long, device=dev)
    history = torch.zeros((B * k, 0), dtype=torch.long, device=dev)
    finished: list[list[tuple[float, tuple[int, ...]]]] = [[] for _ in range(B)]
    active = list(range(B))  # the inputs in the batch, by their index in `formulas`
    first_k = torch.arange(2 * k, device=dev) < k
    for t in range(max_len):
        n = len(active)
        logp = torch.log_softmax(scale * model.decode_step(state, tokens).float(), dim=-1)
        V = logp.shape[1]
        cand = (scores.view(n * k, 1) + logp).view(n, k, V).transpose(1, 2).reshape(n, V * k)
        top, idx = torch.sort(cand, dim=1, descending=True, stable=True)
        top, idx = top[:, : 2 * k], idx[:, : 2 * k]
        tok, origin = idx // k, idx % k
        eos = tok == EOS
        keep = ~eos & (torch.cumsum(~eos, 1) <= k)
        pick = torch.argsort((~keep).long(), dim=1, stable=True)[:, :k]
        ended = eos & first_k & torch.isfinite(top)
        lp = length_penalty(t + 1, alpha)
        if bool(ended.any()):
            hist, top_c, org = history.cpu(), top.cpu(), origin.cpu()
            for b, j in ended.nonzero().tolist():
                seq = tuple(hist[b * k + org[b, j]].tolist())
                finished[active[b]].append((float(top_c[b, j]) / lp, seq))
        rows = (torch.arange(n, device=dev)[:, None] * k + origin.gather(1, pick)).flatten()
        tokens = tok.gather(1, pick).flatten()
        history = torch.cat((history[rows], tokens[:, None]), dim=1)
        state.reorder(rows)
        scores = top.gather(1, pick)
        best = scores[:, 0].tolist()
        going = [
            b
            for b, i in enumerate(active)
            if len(finished[i]) < k or best[b] / lp > sorted((s for s, _ in finished[i]), reverse=True)[k - 1]
        ]
        if not going:
            break
        if len(going) < n:
            keep_inputs = torch.tensor(going, device=dev)
            state = state.keep(n, keep_inputs)
            scores = scores.index_select(0, keep_inputs)
            tokens, history = (
                x.unflatten(0, (n, k)).index_select(0, keep_inputs).flatten(0, 1) for x in (tokens, history)
            )
            active = [active[b] for b in going]
    out = []
    for hyps in finished:
        by_seq: dict[tuple[int, ...], float] = {}
        for score, seq in hyps:
            by_seq[seq] = max(score, by_seq.get(seq, float("-inf")))
        out.append(sorted(((sc, seq) for seq, sc in by_seq.items()), key=lambda h: (-h[0], h[1])))
    return out
