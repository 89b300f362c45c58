"""The GPU throughput paths, on the CPU: static batch shapes (what CUDA graphs and torch.compile
need), the analytic FLOP count behind the fraction-of-peak figures, the device-side β draw, and
the step's optimiser plumbing. CUDA graph capture itself needs a GPU (bench/train_throughput.py
checks it against the eager step there)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from neural_support import DATA, one_thread, split, trainer  # noqa: F401 - one_thread is a fixture
from torch.utils.flop_counter import FlopCounterMode

from ltlwit.neural.config import preset
from ltlwit.neural.dual import draw_betas_on, sampling_set_size
from ltlwit.neural.tokenizer import N_BASE, PAD
from ltlwit.train.data import Batches, DeviceSplit, EncodedSplit, encode_file
from ltlwit.train.flops import forward_flops, step_flops
from ltlwit.train.step import make_optimizer, portable_state, restore_lr, set_lr

CPU = torch.device("cpu")


def shapes(task: str, static: int, batch: int = 8, max_tokens: int = 0, per_ap: bool = False) -> list[tuple]:
    data = DeviceSplit(encode_file(DATA / task / "train.txt", task, workers=1), CPU, static=static)
    batches = Batches(data, batch, seed=0, max_tokens=max_tokens, per_ap=per_ap)
    batches.shapes()  # plans the first epoch
    got = []
    for _ in range(3 * len(batches._plans)):  # three epochs
        b = next(batches)
        got.append((b.src.shape[0], b.src.shape[1], b.tgt_in.shape[1], b.n_aps, b.n_slots))
        assert b.tgt_in.shape == b.tgt_out.shape
        assert ((b.src != PAD).sum(1) > 0).all()  # no empty rows: padding only appends
    return got


@pytest.mark.parametrize("task", ["ltl", "prop"])
def test_static_shapes_are_few_and_rounded(task: str) -> None:
    dynamic = set(shapes(task, 0))
    static = set(shapes(task, 16))
    widest = max(s for _, s, _, _, _ in dynamic), max(t for _, _, t, _, _ in dynamic)
    assert all(s in (16, 32, 48, widest[0]) and t in (16, 32, 48, widest[1]) for _, s, t, _, _ in static)
    assert {s for _, s, *_ in static} <= {s for _, s, *_ in dynamic} | {16, 32, 48}
    assert len({(n_aps, n_slots) for *_, n_aps, n_slots in static}) == 1  # the split's largest AP count
    assert len(static) < len(dynamic)


def test_static_token_cap_splits_into_equal_powers_of_two() -> None:
    got = shapes("ltl", 16, batch=16, max_tokens=1000, per_ap=True)
    assert sum(r for r, *_ in got) == 3 * 64  # every sample once an epoch
    for r, s, t, n_aps, _ in got:
        assert r in (8, 4, 2, 1) and r * (s + t) * n_aps <= 1000


def test_static_batches_hold_the_same_samples_in_the_same_order() -> None:
    data = encode_file(DATA / "prop" / "train.txt", "prop", workers=1)
    plain = Batches(DeviceSplit(data, CPU), 16, seed=5)
    padded = Batches(DeviceSplit(data, CPU, static=16), 16, seed=5)
    for _ in range(6):
        a, b = next(plain), next(padded)
        assert torch.equal(b.src[:, : a.src.shape[1]], a.src) and not b.src[:, a.src.shape[1] :].ne(PAD).any()
        assert torch.equal(b.tgt_out[:, : a.tgt_out.shape[1]], a.tgt_out)


def test_static_shapes_leave_the_symbol_invariant_losses_unchanged(tmp_path: Path) -> None:
    """Wider padding and unused streams are masked out everywhere: the same training run with
    and without static shapes has the same losses (float32 rounding aside)."""
    losses = {}
    for static in (0, 16):
        torch.manual_seed(0)
        tr = trainer("si", "prop", tmp_path / str(static), steps=6, batch_size=16, static_shapes=static)
        losses[static] = [float(tr.train_step()) for _ in range(6)]
    assert losses[0] == pytest.approx(losses[16], rel=1e-4)


def test_extra_training_files_are_appended(tmp_path: Path) -> None:
    a, b = split("ltl"), split("ltl")
    both = EncodedSplit.concat([a, b])
    assert len(both) == 2 * len(a) and torch.equal(both.src_len[len(a) :], b.src_len)
    assert torch.equal(both.src[: len(a.src)].long(), a.src.long())
    data = tmp_path / "d"
    data.mkdir()
    for name in ("train", "val"):
        (data / f"{name}.txt").write_text((DATA / "ltl" / "train.txt").read_text())
    extra = tmp_path / "ap01.txt"
    extra.write_text("Xa\n1;{a}\n1\n{1}\n")
    from ltlwit.train.loop import Settings, Trainer

    tr = Trainer(
        Settings(
            task="ltl",
            arch="dual",
            preset="tiny",
            data=str(data),
            out=str(tmp_path / "o"),
            steps=1,
            batch_size=8,
            extra_train=(str(extra),),
            cache=str(tmp_path / "c"),
        )
    )
    assert tr.train_data.size == 64 + 2
    with pytest.raises(ValueError, match="no such training file"):
        Trainer(
            Settings(
                task="ltl",
                arch="dual",
                preset="tiny",
                data=str(data),
                out=str(tmp_path / "p"),
                steps=1,
                extra_train=(str(tmp_path / "missing.txt"),),
            )
        )


# -- FLOPs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("arch, task", [("si", "ltl"), ("si", "prop"), ("dual", "ltl"), ("dual", "prop")])
def test_flop_count_matches_torch_counter_on_the_linear_layers(arch: str, task: str) -> None:
    """torch's FlopCounterMode counts the matrix products of the paper-size models exactly
    (it skips scaled_dot_product_attention on the CPU, so the score products are left out of
    both sides); the full count adds the attention scores on top."""
    cfg = preset(arch, task, "paper")
    model = cfg.build().eval()
    B, S, T, k = 3, 24, 40, 4
    torch.manual_seed(0)
    src = N_BASE + torch.arange(S).remainder(k).repeat(B, 1)  # every row holds k APs
    tgt = N_BASE + torch.arange(T).remainder(k).repeat(B, 1)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        model(src, tgt, k, k)
    assert counter.get_total_flops() == pytest.approx(B * forward_flops(cfg, S, T, k, k, scores=False), rel=1e-9)
    full = forward_flops(cfg, S, T, k, k)
    assert 1.0 < full / forward_flops(cfg, S, T, k, k, scores=False) < 1.3
    assert step_flops(cfg, B, S, T, k, k) == pytest.approx(3 * B * full)


def test_symbol_invariant_flops_grow_with_the_streams() -> None:
    cfg = preset("si", "ltl", "paper")
    one, five = forward_flops(cfg, 32, 32, 1, 5), forward_flops(cfg, 32, 32, 5, 5)
    assert 4.0 < five / one <= 5.0  # per-stream work x5; aggregated keys/values once per input


# -- the dual-part model's device-side training draw -----------------------------------------------


@pytest.mark.parametrize(
    "method, d_beta, n", [("hypercube", 5, 32), ("hypercube", 6, 7), ("neighbours", 3, 26), ("normal", 4, 9)]
)
def test_device_beta_draw_is_distinct_and_in_the_set(method: str, d_beta: int, n: int) -> None:
    torch.manual_seed(1)
    betas = draw_betas_on(method, d_beta, n, CPU)
    assert betas.shape == (n, d_beta) and betas.dtype == torch.float32
    if method == "normal":
        return
    rows = {tuple(int(x) for x in b) for b in betas.tolist()}
    assert len(rows) == n
    assert all(set(r) <= ({-1, 1} if method == "hypercube" else {-1, 0, 1}) for r in rows)
    assert tuple([0] * d_beta) not in rows
    assert n <= sampling_set_size(method, d_beta)  # type: ignore[operator]


def test_device_beta_draw_prefixes_agree_and_too_many_aps_fail() -> None:
    torch.manual_seed(2)
    a = draw_betas_on("hypercube", 5, 3, CPU)
    torch.manual_seed(2)
    assert torch.equal(draw_betas_on("hypercube", 5, 9, CPU)[:3], a)  # unused slots change nothing
    with pytest.raises(ValueError, match="at most 32 APs"):
        draw_betas_on("hypercube", 5, 33, CPU)


# -- optimiser plumbing for graphs ------------------------------------------------------------------


def test_learning_rate_tensors_survive_checkpoints() -> None:
    model = preset("dual", "ltl", "tiny").build()
    opt = make_optimizer(model, 1e-3, 0.1, CPU)
    assert [g["weight_decay"] for g in opt.param_groups] == [0.1, 0.0]
    assert all(p.dim() < 2 for p in opt.param_groups[1]["params"])
    set_lr(opt, 5e-4)
    assert all(g["lr"] == 5e-4 for g in opt.param_groups)
    # a graph-built optimiser holds tensor rates: written as floats, tensors again after loading
    for group in opt.param_groups:
        group["lr"] = torch.tensor(2e-4)
    state = portable_state(opt)
    assert all(type(g["lr"]) is float for g in state["param_groups"])
    assert all(isinstance(g["lr"], torch.Tensor) for g in opt.param_groups)  # the live optimiser keeps them
    for group in state["param_groups"]:  # as a GPU run with graphs writes them
        group["fused"], group["capturable"] = True, True
    fresh = make_optimizer(model, 1e-3, 0.1, CPU)
    fresh.load_state_dict(state)
    restore_lr(fresh, CPU, graphs=False)
    assert all(not g["capturable"] and not g["fused"] for g in fresh.param_groups)  # resumable on a CPU
    fresh.zero_grad()
    sum(p.sum() for p in model.parameters()).backward()
    fresh.step()  # a CPU step with the loaded state works
    restore_lr(fresh, CPU, graphs=True)
    set_lr(fresh, 3e-4)
    assert all(isinstance(g["lr"], torch.Tensor) and float(g["lr"]) == pytest.approx(3e-4) for g in fresh.param_groups)
    with pytest.raises(ValueError, match="CUDA"):
        make_optimizer(model, 1e-3, 0.1, CPU, graphs=True)


def test_cuda_graphs_are_refused_without_cuda(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--cuda-graphs needs a CUDA device"):
        trainer("dual", "ltl", tmp_path, steps=2, static_shapes=16, cuda_graphs=True, device="cpu")
