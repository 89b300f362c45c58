"""Neural benchmark: training samples/s and beam-search formulas/s per model preset.

    python bench/neural.py                                   # paper + small, both families/tasks, CPU
    python bench/neural.py --presets small --archs si --tasks ltl --device cuda --train-steps 20

Training: full optimiser steps (forward, AdaCos, backward, clipping, AdamW) on real batches of
the preset's batch size (paper: 768 LTL / 1024 prop; small: 256), bucketed as in training,
after warm-up steps. Beam search: beam 3 over formulas from the validation split. Untrained
weights rarely emit <eos>, so their beams run to --max-len: the beam figures are a lower bound
on what trained weights achieve (use --weights to time trained ones). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltlwit.logic.syntax import parse_formula  # noqa: E402
from ltlwit.neural.backbone import adacos_loss, resolve_device  # noqa: E402
from ltlwit.neural.beam import beam_search  # noqa: E402
from ltlwit.neural.config import preset  # noqa: E402
from ltlwit.neural.weights import load_weights  # noqa: E402
from ltlwit.train.data import Batches, DeviceSplit, EncodedSplit, encode_pair  # noqa: E402
from ltlwit.train.pairs import iter_pairs  # noqa: E402
from ltlwit.train.loop import PRESET_BATCH  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def sample(task: str, n: int) -> tuple[EncodedSplit, list]:
    pairs = list(itertools.islice(iter_pairs(DATA / f"{task}35" / "val.txt.gz"), n))
    rows = [encode_pair(task, f, label) for f, label in pairs]
    rows = [r for r in rows if r is not None]
    split = EncodedSplit.from_rows([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    from ltlwit.logic.rename import Renaming

    formulas = []
    for f, _ in pairs:
        formula = parse_formula(f, "polish")
        formulas.append(Renaming.canonical(formula).apply(formula))
    return split, formulas


def train_rate(model: torch.nn.Module, data: DeviceSplit, batch_size: int, warmup: int, steps: int,
               device: torch.device, max_tokens: int) -> float:
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1,
                            fused=device.type == "cuda")
    batches = Batches(data, batch_size, seed=0, max_tokens=max_tokens, per_ap=model.cfg.arch == "si")
    autocast = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else torch.autocast("cpu", enabled=False)
    model.train()

    def step() -> None:
        b = next(batches)
        with autocast:
            loss = adacos_loss(model(b.src, b.tgt_in, b.n_slots, b.n_aps), b.tgt_out, model.logit_scale, True)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(warmup):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(steps):
        step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return steps * batch_size / (time.perf_counter() - t)


def beam_rate(model: torch.nn.Module, formulas: list, max_len: int, batch_size: int) -> float:
    beam_search(model, formulas[:8], beam=3, max_len=max_len)  # warm-up
    t = time.perf_counter()
    beam_search(model, formulas, beam=3, max_len=max_len, batch_size=batch_size)
    return len(formulas) / (time.perf_counter() - t)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", default="paper,small")
    p.add_argument("--archs", default="si,dual")
    p.add_argument("--tasks", default="ltl,prop")
    p.add_argument("--device", default="cpu")
    p.add_argument("--train-steps", type=int, default=3)
    p.add_argument("--batch", type=int, default=0, help="samples per step (default: the preset's)")
    p.add_argument("--max-tokens", type=int, default=0, help="as the training loop's --max-tokens")
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--beam-formulas", type=int, default=64)
    p.add_argument("--beam-batch", type=int, default=64)
    p.add_argument("--max-len", type=int, default=48)
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's)")
    p.add_argument("--weights", default="", help="folder with NAME.pt/json per arch-task (e.g. si-ltl) to time trained models")
    p.add_argument("--skip-train", action="store_true")
    p.add_argument("--skip-beam", action="store_true")
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    device = resolve_device(a.device)
    print(f"device {device}, torch {torch.__version__}, {torch.get_num_threads()} CPU threads\n")
    print("| model | preset | parameters | batch | train samples/s | train steps/s | beam-3 formulas/s |")
    print("|---|---|---|---|---|---|---|")
    for task in a.tasks.split(","):
        split, formulas = sample(task, max(4096, a.beam_formulas))
        formulas = formulas[: a.beam_formulas]
        data = DeviceSplit(split, device)
        for name in a.presets.split(","):
            for arch in a.archs.split(","):
                torch.manual_seed(0)
                model = preset(arch, task, name).build().to(device)
                params = sum(p.numel() for p in model.parameters())
                batch = a.batch or PRESET_BATCH[name][task]
                rate = 0.0 if a.skip_train else train_rate(model, data, batch, a.warmup, a.train_steps, device,
                                                             a.max_tokens)
                weights = Path(a.weights) / f"{arch}-{task}.pt" if a.weights else None
                if weights is not None and weights.exists():
                    model = load_weights(weights, device=device)[0]
                beams = 0.0 if a.skip_beam else beam_rate(model.eval(), formulas, a.max_len, a.beam_batch)
                print(f"| {arch}-{task} | {name} | {params:,} | {batch} | {rate:.0f} | {rate / batch:.3f} | {beams:.1f} |",
                      flush=True)


if __name__ == "__main__":
    main()
