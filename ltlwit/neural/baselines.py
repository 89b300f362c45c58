"""The papers' baselines, in the dual-part model's encoder-decoder (`TiedTransformer`): only the
embedding table differs, so a comparison measures the embeddings and nothing else.

- `full` (`FullVocabTransformer`): one learned row per AP slot, `vocab_aps` of them (10: the
  grid's AP count), as in DeepLTL and the ITE paper's first baseline. Trained on 5-AP data,
  rows 5-9 only ever appear as wrong answers, and nothing makes the model treat APs alike.
- `renaming`: the same network trained with alpha-renaming (the ITE paper's third baseline):
  each training sample's APs renamed by a random bijection into all `vocab_aps` slots
  (`RenamingConfig.rename_pool`), so every row is trained and the model sees every AP in
  every role, though never more APs in one sample than the data has.
- `lexinv` (`LexinvariantTransformer`): the lexinvariant model of Huang et al. (ICML 2023):
  every AP's embedding is a fresh standard Gaussian vector per sequence, the same vector for
  that AP wherever it occurs in the formula and in the target, a new one in the next sequence,
  so nothing about a particular AP can be learned, only how it relates to the other APs of its
  sequence. Only the APs are drawn: the operators and the trace's delimiters keep learned rows,
  because a seq2seq model has to write tokens (`;`, `{`, `}`, `1`) that its input need not
  contain, which a model whose every row is random per sequence cannot name. The APs are the
  interchangeable tokens, so this is the lexinvariance alpha-equivalence asks for: the model is
  invariant in expectation over the draw, not for any one draw. At inference one seeded draw
  (`beta_seed`) serves every input, chosen like the dual-part model's (the median-loss draw of
  10 on a validation slice); rows are drawn in fixed chunks, so slot i's row does not depend on
  how many slots a batch has. Unlike the dual-part model's β, the rows are Gaussian in all d
  dimensions, with no learned part saying "this is an AP".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from ltlwit.neural.config import FullConfig, LexConfig
from ltlwit.neural.dual import DualTransformer, TiedTransformer
from ltlwit.neural.tokenizer import N_BASE

_CHUNK = 64  # rows drawn per call of the inference draw, so a draw of n rows is a prefix of n + 1


class FullVocabTransformer(TiedTransformer):
    cfg: FullConfig

    def _embeddings(self) -> None:
        self.embedding = nn.Parameter(torch.randn(N_BASE + self.cfg.vocab_aps, self.cfg.d_model))

    @property
    def max_aps(self) -> int:
        return self.cfg.vocab_aps

    def table(self, n_slots: int, batch: int = 1) -> Tensor:
        if n_slots > self.cfg.vocab_aps:
            raise ValueError(
                f"the full-vocabulary model has {self.cfg.vocab_aps} AP embeddings; this input needs {n_slots}"
            )
        return F.normalize(self.embedding[: N_BASE + n_slots], dim=-1)


class LexinvariantTransformer(TiedTransformer):
    cfg: LexConfig
    max_aps = None  # any number of APs

    def _embeddings(self) -> None:
        self.base = nn.Parameter(torch.randn(N_BASE, self.cfg.d_model))

    def draw(self, n_slots: int) -> Tensor:
        """The inference draw: (n_slots, d) Gaussian rows from `beta_seed`, on the CPU (the same
        on every device)."""
        gen = torch.Generator().manual_seed(self.cfg.beta_seed)
        chunks = [torch.randn(_CHUNK, self.cfg.d_model, generator=gen) for _ in range(-(-n_slots // _CHUNK))]
        return torch.cat(chunks)[:n_slots] if chunks else torch.zeros(0, self.cfg.d_model)

    def table(self, n_slots: int, batch: int = 1) -> Tensor:
        """Training: (batch, N_BASE + n_slots, d), fresh AP rows per sequence; inference: one
        (N_BASE + n_slots, d) table from the seeded draw. Unit rows."""
        base = F.normalize(self.base, dim=-1)
        if self.training:
            aps = torch.randn(batch, n_slots, self.cfg.d_model, device=base.device, dtype=base.dtype)
            return torch.cat((base.expand(batch, -1, -1), F.normalize(aps, dim=-1)), dim=1)
        aps = self.draw(n_slots).to(base.device, base.dtype)
        return torch.cat((base, F.normalize(aps, dim=-1)))

    #: The median-loss choice of the inference draw, as for the dual-part model (`beta_seed`).
    calibrate = DualTransformer.calibrate
