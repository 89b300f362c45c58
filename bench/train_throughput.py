"""Training throughput of the real training loop: samples/s and the fraction of peak FLOP/s.

    python bench/train_throughput.py --device cuda                         # paper presets, H100
    python bench/train_throughput.py --device cuda --models si-ltl --modes eager,static,graphs --check
    python bench/train_throughput.py --device cpu --batch 64 --steps 3 --modes eager,static

Every row builds `ltlwit.train.loop.Trainer` exactly as training does (the preset, the
preset's batch size unless --batch, bf16 autocast and fused AdamW on CUDA, data resident on
the device) and times `Trainer.train_step()`: one full optimiser step. Modes:
- `eager`: batches padded to their longest sample (rounded to 8), Python launching every kernel;
- `static`: `--static-shapes 16` (few batch shapes), still eager;
- `graphs`: static shapes, each shape's whole step captured as a CUDA graph and replayed;
- `compile`, `compile-graphs`: the same with `torch.compile` (one compilation per shape: slow).
Before timing, with graphs or compile, one step of every batch shape of the epoch runs (graphs
are captured, kernels compiled; reported as `setup s`), then --warmup steps. FLOPs are counted analytically from the
padded batch shapes (`ltlwit.train.flops`: matrix products, forward + backward); the fraction
is against --peak-tflops (H100 SXM dense bf16: 989). `--check` runs eager and graphs side by side
from the same weights and random state (dropout off) and prints the largest relative loss
difference: graphs are safe to train with when it is small (bf16: below ~1e-2).
Data: --data (a two-line file), else the first --samples of ../shared/data/{ltl,prop}35/train.
Prints a Markdown table; --json FILE also writes one JSON object per row.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltlwit.neural.config import preset  # noqa: E402
from ltlwit.train.data import EncodedSplit, encode_pair  # noqa: E402
from ltlwit.train.flops import H100_BF16_PEAK  # noqa: E402
from ltlwit.train.loop import Settings, Trainer  # noqa: E402
from ltlwit.train.pairs import iter_pairs  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
MODES = {
    "eager": dict(),
    "static": dict(static_shapes=16),
    "graphs": dict(static_shapes=16, cuda_graphs=True),
    "compile": dict(static_shapes=16, compile=True),
    "compile-graphs": dict(static_shapes=16, compile=True, cuda_graphs=True),
}


def load(task: str, path: str, n: int) -> EncodedSplit:
    source = Path(path) if path else DATA / f"{task}35" / "train.txt.gz"
    rows = [
        r
        for r in (encode_pair(task, f, label) for f, label in itertools.islice(iter_pairs(source), n))
        if r is not None
    ]
    return EncodedSplit.from_rows([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], 0, str(source))


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def trainer(
    name: str,
    preset_name: str,
    mode: str,
    data: EncodedSplit,
    val: EncodedSplit,
    args: argparse.Namespace,
    out: str,
    dropout: bool = True,
) -> Trainer:
    arch, task = name.split("-")
    cfg = preset(arch, task, preset_name)
    if not dropout:
        cfg.dropout, cfg.emb_dropout = 0.0, 0.0
    settings = Settings(
        task=task,
        arch=arch,
        preset=preset_name,
        out=out,
        steps=10**6,
        batch_size=args.batch,
        device=args.device,
        seed=0,
        warmup=0,
        val_every=0,
        ckpt_every=0,
        log_every=10**9,
        max_tokens=args.max_tokens,
        init_from=args.init_from.format(name=name) if args.init_from else "",
        **MODES[mode],
    )
    return Trainer(settings, train=data, val=val, model_config=cfg)


def visit_shapes(tr: Trainer) -> int:
    """One step with a batch of every shape of the current epoch (captures / compiles them)."""
    seen = {}
    for offset, shape in tr.batches._plans:
        seen.setdefault(shape, offset)
    for shape, offset in seen.items():
        index = tr.batches._index[offset : offset + shape[0]]  # type: ignore[index]
        batch = tr.train_data.batch(index, shape)
        tr.stepper(batch)
        tr.step += 1
    return len(seen)


def measure(
    name: str, preset_name: str, mode: str, data: EncodedSplit, val: EncodedSplit, args: argparse.Namespace
) -> dict:
    with tempfile.TemporaryDirectory() as out:
        torch.manual_seed(0)
        tr = trainer(name, preset_name, mode, data, val, args, out)
        device = tr.device
        tr.batches.shapes()  # plans the epoch
        t = time.perf_counter()
        tr.train_step()  # the eager first step (creates the optimiser state)
        shapes = visit_shapes(tr) if "graphs" in mode or "compile" in mode else len(tr.batches.shapes())
        for _ in range(args.warmup):
            tr.train_step()
        sync(device)
        setup = time.perf_counter() - t
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
        samples, flops = tr.samples_seen, tr.flops_done
        t = time.perf_counter()
        loss = torch.zeros((), device=device)
        for _ in range(args.steps):
            loss += tr.train_step()
        sync(device)
        seconds = time.perf_counter() - t
        rate = (tr.samples_seen - samples) / seconds
        tflops = (tr.flops_done - flops) / seconds / 1e12
        row = {
            "model": name,
            "preset": preset_name,
            "mode": mode,
            "device": _device_name(device),
            "batch": tr.batch_size,
            "parameters": sum(p.numel() for p in tr.model.parameters()),
            "shapes": shapes,
            "setup_s": round(setup, 1),
            "steps": args.steps,
            "steps_per_s": args.steps / seconds,
            "samples_per_s": rate,
            "tflops": tflops,
            "peak_fraction": tflops * 1e12 / (args.peak_tflops * 1e12),
            "mean_loss": float(loss) / args.steps,
        }
        if device.type == "cuda":
            row["peak_memory_gib"] = torch.cuda.max_memory_allocated(device) / 2**30
        return row


def check(name: str, preset_name: str, data: EncodedSplit, val: EncodedSplit, args: argparse.Namespace) -> dict:
    """Eager and graphs from the same weights and random state, dropout off: losses step by step."""
    losses = {}
    for mode in ("static", "graphs"):
        with tempfile.TemporaryDirectory() as out:
            torch.manual_seed(0)
            torch.cuda.manual_seed_all(0)
            tr = trainer(name, preset_name, mode, data, val, args, out, dropout=False)
            losses[mode] = [float(tr.train_step()) for _ in range(args.check_steps)]
    worst = max(abs(a - b) / max(abs(a), 1e-6) for a, b in zip(losses["static"], losses["graphs"]))
    return {
        "model": name,
        "check": "graphs vs eager",
        "steps": args.check_steps,
        "max_rel_loss_diff": worst,
        "eager_last": losses["static"][-1],
        "graphs_last": losses["graphs"][-1],
    }


def _device_name(device: torch.device) -> str:
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="si-ltl,si-prop,dual-ltl,dual-prop")
    p.add_argument("--presets", default="paper")
    p.add_argument(
        "--modes", default="", help="comma-separated (default: eager,static,graphs on CUDA, eager,static on the CPU)"
    )
    p.add_argument("--device", default="auto")
    p.add_argument("--batch", type=int, default=0, help="samples per step (default: the preset's)")
    p.add_argument("--max-tokens", type=int, default=0, help="as the training loop's --max-tokens")
    p.add_argument("--steps", type=int, default=50, help="timed steps")
    p.add_argument("--warmup", type=int, default=5, help="steps after every shape has run once")
    p.add_argument("--samples", type=int, default=50000, help="training samples read (without --data)")
    p.add_argument("--data", default="", help="two-line training file (default: the shared {task}35 train split)")
    p.add_argument(
        "--init-from", default="", help="weights to start from, {name} = the model (e.g. ltlwit/weights/{name}.pt)"
    )
    p.add_argument(
        "--peak-tflops",
        type=float,
        default=H100_BF16_PEAK / 1e12,
        help="the device's dense peak, TFLOP/s (H100 SXM bf16: 989)",
    )
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's)")
    p.add_argument("--check", action="store_true", help="also compare graphs with eager (CUDA)")
    p.add_argument("--check-steps", type=int, default=20)
    p.add_argument("--json", default="", help="append one JSON object per row to this file")
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    modes = args.modes.split(",") if args.modes else (["eager", "static", "graphs"] if cuda else ["eager", "static"])
    print(
        f"torch {torch.__version__}, device {'cuda: ' + torch.cuda.get_device_name() if cuda else 'cpu'}, "
        f"peak {args.peak_tflops:g} TFLOP/s\n",
        flush=True,
    )
    print("| model | preset | mode | batch | shapes | setup s | steps/s | samples/s | TFLOP/s | of peak | GPU GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    splits: dict[str, tuple[EncodedSplit, EncodedSplit]] = {}
    for name in args.models.split(","):
        task = name.split("-")[1]
        if task not in splits:
            data = load(task, args.data, args.samples)
            splits[task] = (data, load(task, "", 256) if not args.data else data)
        data, val = splits[task]
        for preset_name in args.presets.split(","):
            for mode in modes:
                try:
                    row = measure(name, preset_name, mode, data, val, args)
                except Exception as e:  # noqa: BLE001 - a mode that fails is a result, not the end
                    row = {"model": name, "preset": preset_name, "mode": mode, "error": " ".join(str(e).split())[:300]}
                    print(f"| {name} | {preset_name} | {mode} | failed: {row['error']} |||||||", flush=True)
                else:
                    print(
                        f"| {name} | {preset_name} | {mode} | {row['batch']} | {row['shapes']} | {row['setup_s']} | "
                        f"{row['steps_per_s']:.2f} | {row['samples_per_s']:,.0f} | {row['tflops']:.3f} | "
                        f"{100 * row['peak_fraction']:.2f}% | {row.get('peak_memory_gib', 0):.1f} |",
                        flush=True,
                    )
                rows.append(row)
        if args.check and cuda:
            row = check(name, args.presets.split(",")[0], data, val, args)
            print(
                f"\ncheck {name}: graphs vs eager over {row['steps']} steps, largest relative loss difference "
                f"{row['max_rel_loss_diff']:.2e}\n",
                flush=True,
            )
            rows.append(row)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
