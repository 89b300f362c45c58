"""The papers' baselines (`ltlwit.neural.baselines`): the lexinvariant model's AP identities
enter only through its random draw (so renaming is a change of draw: invariance in
expectation), drawn afresh per sequence while training; the full-vocabulary model's learned rows
bound its APs; the alpha-renaming variant trains every row."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from neural_support import one_thread, split, trainer  # noqa: F401 - one_thread is a fixture

from ltlwit.logic.rename import Renaming, slot_name
from ltlwit.logic.syntax import parse_formula, parse_trace
from ltlwit.neural.config import preset
from ltlwit.neural.tokenizer import N_BASE, PAD, START, encode_formula, encode_trace


def tiny(arch: str) -> torch.nn.Module:
    torch.manual_seed(0)
    return preset(arch, "ltl", "tiny").build()


def inputs(formula: str, trace: str, renaming: Renaming | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    f, t = parse_formula(formula, "spot"), parse_trace(trace, "spot")
    if renaming is not None:
        f, t = renaming.apply(f), renaming.apply_trace(t)
    return torch.tensor([encode_formula(f)]), torch.tensor([[START] + encode_trace(t)])


def test_lexinvariant_renaming_is_a_permutation_of_the_draw() -> None:
    """Renaming the APs of an input by π gives the outputs of the original input under the draw
    whose rows are permuted by π, permuted back: so over i.i.d. Gaussian rows the renamed and
    the original input have the same output distribution."""
    model = tiny("lexinv").double().eval()
    slots = 6
    pi = [3, 0, 5, 1, 4, 2]  # slot i -> slot pi[i]
    renaming = Renaming.permutation((slot_name(i), slot_name(j)) for i, j in enumerate(pi))
    src, tgt = inputs("(a U b) & X(c | !a)", "a & !b; cycle{c}")
    src_r, tgt_r = inputs("(a U b) & X(c | !a)", "a & !b; cycle{c}", renaming)
    assert not torch.equal(src, src_r)
    with torch.no_grad():
        renamed = model(src_r, tgt_r, slots)
        draw = model.draw(slots)
        model.draw = lambda n: draw[pi][:n]  # row i of the new draw: the renamed slot's row
        original = model(src, tgt, slots)
    assert torch.allclose(renamed[..., :N_BASE], original[..., :N_BASE])
    for i, j in enumerate(pi):
        assert torch.allclose(renamed[..., N_BASE + j], original[..., N_BASE + i])


def test_lexinvariant_draws_afresh_per_sequence_while_training() -> None:
    model = tiny("lexinv").train()
    table = model.table(4, batch=3)
    assert table.shape == (3, N_BASE + 4, model.cfg.d_model)
    assert torch.equal(table[0, :N_BASE], table[1, :N_BASE])  # operators: learned, shared
    assert not torch.allclose(table[0, N_BASE:], table[1, N_BASE:])  # APs: one draw per sequence
    src, tgt = inputs("a U b", "cycle{b}")
    two = model(src.repeat(2, 1), tgt.repeat(2, 1), 2)
    assert not torch.allclose(two[0], two[1])  # the same input, two draws
    model.eval()
    assert torch.equal(model.table(4), model.table(4)) and torch.equal(model.table(70)[: N_BASE + 4], model.table(4))


def test_full_vocabulary_bounds_the_aps(tmp_path: Path) -> None:
    model = tiny("full").eval()
    assert model.max_aps == 10
    with pytest.raises(ValueError, match="10 AP embeddings; this input needs 11"):
        model.table(11)
    with pytest.raises(ValueError, match="at most 10 APs; the training data are renamed into 12"):
        trainer("full", "ltl", tmp_path, steps=1, rename_aps=12)


def test_alpha_renaming_baseline_trains_every_row(tmp_path: Path) -> None:
    """renaming renames each sample into all 10 slots (the data have at most 5 APs), full not."""
    data_aps = int(split("ltl").n_aps.max())
    assert data_aps < 10
    for arch, slots in (("renaming", 10), ("full", data_aps)):
        tr = trainer(arch, "ltl", tmp_path / arch, steps=1)
        seen = set()
        for _ in range(5):
            batch = next(tr.batches)
            assert batch.n_slots <= slots
            seen |= set((batch.src[batch.src >= N_BASE] - N_BASE).tolist())
        assert max(seen) == slots - 1 if arch == "renaming" else max(seen) < data_aps
    assert (batch.src != PAD).any()
