"""Neural benchmark: training samples/s and beam-search formulas/s per model preset; with
`--cli`, `ltlwit solve` formulas/s per bundled model as a user runs it (start-up included).

    python bench/neural.py                                   # paper + small, both families/tasks, CPU
    python bench/neural.py --presets small --archs si --tasks ltl --device cuda --train-steps 20
    python bench/neural.py --cli --old /tmp/base --repeat 3 [--load 4]

Training: full optimiser steps (forward, AdaCos, backward, clipping, AdamW) on real batches of
the preset's batch size (paper: 768 LTL / 1024 prop; small: 256), bucketed as in training,
after warm-up steps. Beam search: beam 3 over formulas from the validation split. Untrained
weights rarely emit <eos>, so their beams run to --max-len: the beam figures are a lower bound
on what trained weights achieve (use --weights to time trained ones). Prints a Markdown table.

`--cli`: `ltlwit solve --model M --device cpu --no-fallback` over the first `--formulas` test
formulas of ltl35 / prop35 (a file, Polish syntax), one cold process per run, for every bundled
model M: the code of this checkout beside that of `--old` (another checkout's root, put first
on PYTHONPATH), each at its default thread setting and at one thread (`--threads 1` where the
code has the option, OMP_NUM_THREADS=1 where it has not) and at one thread per core. Runs
alternate between the rows, `--repeat` times; the table gives formulas/s of the fastest and of
the median run (wall clock), the least and the median CPU time of a run (user and system: what
the wall clock would be on an idle machine, when one thread runs), and the answers of each row
are compared with the first row's. The last row per model, "start-up", runs this checkout's
default on the first formula alone: start-up plus the limit's per-formula cost is the limit
docs/benchmarks.md compares with. `--load N` runs N busy-loop processes meanwhile (the "under
load" rows).

`--top-n`: for each bundled model, the share of the first `--formulas` test formulas whose
first verified candidate is among the top N, N = 1..8, from a beam of 3 and of 8 (`ltlwit
solve --beam K --format json`: `rank`), with the formulas/s of each run.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import os
import resource
import statistics
import subprocess
import sys
import tempfile
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
from ltlwit.train.loop import PRESET_BATCH  # noqa: E402
from ltlwit.train.pairs import iter_pairs  # noqa: E402

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


def train_rate(
    model: torch.nn.Module,
    data: DeviceSplit,
    batch_size: int,
    warmup: int,
    steps: int,
    device: torch.device,
    max_tokens: int,
) -> float:
    opt = torch.optim.AdamW(
        model.parameters(), lr=1e-4, betas=(0.9, 0.95), weight_decay=0.1, fused=device.type == "cuda"
    )
    batches = Batches(data, batch_size, seed=0, max_tokens=max_tokens, per_ap=model.cfg.arch == "si")
    autocast = (
        torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else torch.autocast("cpu", enabled=False)
    )
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


def cli_rows(old: str, cores: int) -> list[tuple[str, str, list[str], dict[str, str]]]:
    """(code label, setting, extra solve arguments, extra environment) per row."""
    rows = []
    for label, root in (("new", str(ROOT)), ("old", old)):
        if not root:
            continue
        help_text = subprocess.run(
            [sys.executable, "-m", "ltlwit", "solve", "--help"],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=root),
            cwd=root,
        ).stdout
        env = {"PYTHONPATH": root}
        if "--threads" in help_text:
            rows.append((label, "default (1)", [], env))
            rows.append((label, f"--threads {cores}", ["--threads", str(cores)], env))
        else:
            rows.append((label, f"default (torch: {cores})", [], env))
            rows.append((label, "OMP_NUM_THREADS=1", [], dict(env, OMP_NUM_THREADS="1")))
    return rows


def test_file(task: str, n: int, folder: str) -> Path:
    """The first n formulas of the task's test split, one per line (Polish)."""
    path = Path(folder) / f"{task}-{n}.txt"
    lines = gzip.open(DATA / f"{task}35" / "test.txt.gz", "rt").read().split("\n")
    path.write_text("\n".join(lines[0 : 2 * n : 2]) + "\n")
    return path


def solve_command(model: str, path: Path, *extra: str) -> list[str]:
    """`ltlwit solve` over the file with the model alone, at beam 3 unless `extra` says otherwise
    (without the fallback the default beam is 8 since the beam change; the --cli rows compare beam 3)."""
    beam = [] if "--beam" in extra else ["--beam", "3"]
    return [
        sys.executable,
        "-m",
        "ltlwit",
        "solve",
        "--model",
        model,
        "--device",
        "cpu",
        "--no-fallback",
        "--syntax",
        "polish",
        "-F",
        str(path),
        *beam,
        *extra,
    ]


def top_n(a: argparse.Namespace) -> None:
    """Verified accuracy within the top N candidates: the rank of the first candidate that
    verifies (candidates are tried best score first), for a beam of 3 and one of 8."""
    import json

    models = a.models.split(",") if a.models else sorted(p.stem for p in (ROOT / "ltlwit" / "weights").glob("*.json"))
    print(
        f"{a.formulas} test formulas per model, --no-fallback, one thread; % with a verified witness "
        "among the top N candidates; formulas/s (wall clock, start-up included)\n"
    )
    print("| model | beam | " + " | ".join(f"top {n}" for n in range(1, 9)) + " | f/s | CPU s |")
    print("|---|---|" + "---|" * 10)
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            path = test_file(model.rsplit("-", 1)[1], a.formulas, tmp)
            for beam in (3, 8):
                start, used = time.perf_counter(), _children_cpu()
                done = subprocess.run(
                    solve_command(model, path, "--beam", str(beam), "--format", "json"),
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                )
                wall, cpu = time.perf_counter() - start, _children_cpu() - used
                ranks = [r["rank"] for r in map(json.loads, done.stdout.splitlines()) if r["status"] == "sat"]
                cells = [
                    f"{100 * sum(1 for r in ranks if r <= n) / a.formulas:.1f}" if n <= beam else ""
                    for n in range(1, 9)
                ]
                print(
                    f"| {model} | {beam} | " + " | ".join(cells) + f" | {a.formulas / wall:.1f} | {cpu:.1f} |",
                    flush=True,
                )


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_bench(a: argparse.Namespace) -> None:
    models = sorted(p.stem for p in (ROOT / "ltlwit" / "weights").glob("*.json"))
    if a.models:
        models = a.models.split(",")
    cores = os.cpu_count() or 1
    rows = [row for row in cli_rows(a.old, cores) if not a.defaults_only or row[1].startswith("default")]
    rows.append(("new", "start-up: default, first formula alone", [], rows[0][3]))
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.load)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(
                f"{a.formulas} test formulas per model, beam 3, --no-fallback, {a.load} busy processes, "
                f"{cores} cores, torch {torch.__version__}; formulas/s (wall clock, start-up included)\n"
            )
            print("| model | code | threads | best f/s | median f/s | least CPU s | median CPU s | answers |")
            print("|---|---|---|---|---|---|---|---|")
            for model in models:
                path = test_file(model.rsplit("-", 1)[1], a.formulas, tmp)
                first = test_file(model.rsplit("-", 1)[1], 1, tmp)
                times: dict[int, list[float]] = {i: [] for i in range(len(rows))}
                cpu: dict[int, list[float]] = {i: [] for i in range(len(rows))}
                outputs: dict[int, str] = {}
                for _ in range(a.repeat):
                    for i, (_, setting, extra, env) in enumerate(rows):
                        alone = setting.startswith("start-up")
                        command = solve_command(model, first if alone else path, "--format", "text", *extra)
                        clean = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
                        start, used = time.perf_counter(), _children_cpu()
                        done = subprocess.run(
                            command, capture_output=True, text=True, env=dict(clean, **env), cwd=env["PYTHONPATH"]
                        )
                        times[i].append(time.perf_counter() - start)
                        cpu[i].append(_children_cpu() - used)
                        outputs.setdefault(i, done.stdout)
                for i, (code, setting, _, _) in enumerate(rows):
                    n = 1 if setting.startswith("start-up") else a.formulas
                    same = "-" if n == 1 else "same" if outputs[i] == outputs[0] else "DIFFER"
                    print(
                        f"| {model} | {code} | {setting} | {n / min(times[i]):.1f} | "
                        f"{n / statistics.median(times[i]):.1f} | {min(cpu[i]):.2f} | "
                        f"{statistics.median(cpu[i]):.2f} | {same} |",
                        flush=True,
                    )
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


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
    p.add_argument(
        "--weights", default="", help="folder with NAME.pt/json per arch-task (e.g. si-ltl) to time trained models"
    )
    p.add_argument("--skip-train", action="store_true")
    p.add_argument("--skip-beam", action="store_true")
    p.add_argument("--cli", action="store_true", help="time `ltlwit solve` per bundled model (see above)")
    p.add_argument("--old", default="", help="--cli: root of another checkout to time beside this one")
    p.add_argument("--models", default="", help="--cli: bundled models to time (default: all)")
    p.add_argument("--formulas", type=int, default=100, help="--cli: test formulas per model")
    p.add_argument("--repeat", type=int, default=3, help="--cli: runs per row")
    p.add_argument("--load", type=int, default=0, help="--cli: busy-loop processes running meanwhile")
    p.add_argument("--defaults-only", action="store_true", help="--cli: each code at its default threads only")
    p.add_argument("--top-n", action="store_true", help="verified accuracy within the top 1..8 (beams 3 and 8)")
    a = p.parse_args()
    if a.cli or a.top_n:
        (cli_bench if a.cli else top_n)(a)
        return
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
                rate = (
                    0.0
                    if a.skip_train
                    else train_rate(model, data, batch, a.warmup, a.train_steps, device, a.max_tokens)
                )
                weights = Path(a.weights) / f"{arch}-{task}.pt" if a.weights else None
                if weights is not None and weights.exists():
                    model = load_weights(weights, device=device)[0]
                beams = 0.0 if a.skip_beam else beam_rate(model.eval(), formulas, a.max_len, a.beam_batch)
                print(
                    f"| {arch}-{task} | {name} | {params:,} | {batch} | {rate:.0f} | {rate / batch:.3f} | {beams:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
