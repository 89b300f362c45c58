"""The training loop: AdamW + warm-up/cosine schedule + AdaCos, periodic validation, exact resume.

    python -m ltlwit.train.loop --task ltl --arch si --preset small --data DIR --out DIR --steps N
    torchrun --nproc_per_node 2 -m ltlwit.train.loop ...     (DDP: gloo on CPU, nccl on GPU)

Built to be fast on a GPU inside a short lease: the data sit pre-tokenised on the device, a step
is a slice, a forward/backward under bf16 autocast, clipping and a fused AdamW step, with no
host synchronisation except every `--log-every` steps. `--time-limit` stops early enough to
write the checkpoint and weights before the deadline; `--stop-at` stops at a given step (both
resume exactly with `--resume`). Checkpoints (`OUT/checkpoint.pt`: model, optimiser, step, RNG
states of every rank, data position) are written atomically by rank 0; `OUT/model.pt` +
`OUT/model.json` are the fp16 weights (`ltlwit.neural.weights`), `OUT/log.jsonl` the metrics.

Validation measures teacher-forced loss and token accuracy and greedy exact match on a fixed
sample of the validation split; `validate_fn(pairs) -> float` (pairs of formula and decoded
greedy witness or None) adds a semantic score, e.g. the engine's verdict.

Imports torch, the standard library and ltlwit's pure-Python parsing only.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from ltlwit.logic.formula import Formula
from ltlwit.neural.backbone import adacos_loss, resolve_device
from ltlwit.neural.beam import greedy
from ltlwit.neural.config import ModelConfig, config_from_dict, preset
from ltlwit.neural.tokenizer import EOS, PAD, DecodeError, Witness, decode_formula, decode_witness
from ltlwit.neural.weights import load_weights, save_weights
from ltlwit.train.data import Batches, DeviceSplit, EncodedSplit, load_split, ordered_batches

ValidateFn = Callable[[list[tuple[Formula, Optional[Witness]]]], float]
REWARM = 100  # warm-up steps after --init-from
PRESET_BATCH = {"paper": {"ltl": 768, "prop": 1024}, "small": {"ltl": 256, "prop": 256}, "tiny": {"ltl": 64, "prop": 64}}


@dataclass
class Settings:
    task: str = "ltl"
    arch: str = "si"
    preset: str = "small"
    data: str = ""
    out: str = "runs/model"
    steps: int = 1000
    batch_size: int = 0  # 0: the preset's (paper: 768 LTL, 1024 prop)
    device: str = "auto"
    seed: int = 0
    lr: float = 1e-3
    warmup: int = -1  # -1: min(1000, steps // 10)
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    log_every: int = 50
    val_every: int = 1000
    ckpt_every: int = 1000
    val_samples: int = 2048
    greedy_samples: int = 256
    calib_samples: int = 2048
    time_limit: float = 0.0  # seconds from start; 0: none
    stop_at: int = 0  # stop (checkpointed) at this step; 0: none
    compile: bool = False
    cache: str = ""
    rename_aps: int = 0  # augmentation: rename APs by a random bijection of this many slots
    max_tokens: int = 0  # cap on padded tokens (x streams for si) per batch; 0: none
    workers: int = 0
    resume: bool = False
    init_from: str = ""  # fp16 weights (model.pt) to continue from when there is no checkpoint


def _distributed(device_name: str) -> tuple[int, int, torch.device]:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    device = resolve_device(device_name)
    if world == 1:
        return 0, 1, device
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if device.type == "cuda":
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
    if not dist.is_initialized():
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return dist.get_rank(), world, device


class Trainer:
    def __init__(self, settings: Settings, train: EncodedSplit | None = None, val: EncodedSplit | None = None,
                 validate_fn: ValidateFn | None = None, model_config: ModelConfig | None = None,
                 on_log: Callable[[dict[str, Any]], None] | None = None) -> None:
        """`on_log` also receives every record written to log.jsonl (progress and validations),
        e.g. for a progress display."""
        self.t0 = time.monotonic()
        s = self.s = settings
        self.validate_fn, self.on_log = validate_fn, on_log
        self.rank, self.world, self.device = _distributed(s.device)
        self.out = Path(s.out)
        ckpt = self.out / "checkpoint.pt"
        state = torch.load(ckpt, map_location="cpu", weights_only=True) if s.resume and ckpt.exists() else None
        if s.resume and state is None:
            self._say(f"no checkpoint in {self.out}: starting afresh")
        cfg = config_from_dict(state["model_config"]) if state else model_config or preset(s.arch, s.task, s.preset)
        init, start = None, 0
        if s.init_from and not state:  # e.g. on a fresh machine, from weights fetched off an earlier one
            init, manifest = load_weights(s.init_from)
            cfg, start = init.cfg, int(manifest["training"].get("steps", 0))
        if (cfg.arch, cfg.task) != (s.arch, s.task):
            raise ValueError(f"{s.init_from if init else ckpt}: a {cfg.arch}/{cfg.task} model, not {s.arch}/{s.task}")
        train, val = train or self._load("train"), val or self._load("val")  # parse before CUDA: fork is fast
        torch.manual_seed(s.seed)  # the same initial weights on every rank
        self.model = cfg.build().to(self.device)
        if init is not None:
            self.model.load_state_dict(init.state_dict())
        torch.manual_seed(s.seed * 1000 + self.rank + 1)  # dropout and β draws differ per rank
        self.batch_size = s.batch_size or PRESET_BATCH.get(s.preset, PRESET_BATCH["small"])[s.task]
        self.train_data = DeviceSplit(train, self.device, s.rename_aps)
        self.val_data = DeviceSplit(val, self.device)
        self.batches = Batches(self.train_data, self.batch_size, s.seed + start, self.rank, self.world,
                               max_tokens=s.max_tokens, per_ap=cfg.arch == "si")
        perm = torch.randperm(len(val), generator=torch.Generator().manual_seed(12345))
        length = self.val_data.src_len + self.val_data.tgt_len
        by_length = lambda index: index[torch.argsort(length[index], stable=True)]  # noqa: E731 - less padding
        self.val_index = by_length(perm[: s.val_samples])
        self.greedy_index = by_length(perm[: s.greedy_samples])
        self.calib_index = by_length(perm[s.val_samples: s.val_samples + s.calib_samples])
        if len(self.calib_index) < 64:  # a tiny validation split: calibrate on what there is
            self.calib_index = self.val_index
        decay = [p for p in self.model.parameters() if p.dim() >= 2]
        rest = [p for p in self.model.parameters() if p.dim() < 2]
        self.opt = torch.optim.AdamW([{"params": decay, "weight_decay": s.weight_decay},
                                      {"params": rest, "weight_decay": 0.0}], lr=s.lr, betas=(0.9, 0.95),
                                     fused=self.device.type == "cuda")
        self.step, self.elapsed_before, self.samples_seen = start, 0.0, 0
        self.restart = start if init is not None else None  # fresh optimiser state: warm up again
        if state:
            self._restore(state)
        self.net: torch.nn.Module = self.model
        if self.world > 1:
            self.net = DistributedDataParallel(self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None)
        if s.compile:
            self.net = torch.compile(self.net)
        self.warmup = s.warmup if s.warmup >= 0 else min(1000, s.steps // 10)
        self._step_time, self._end_cost, self._val_cost = 0.0, 20.0, 0.0
        if self.device.type == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True

    # -- setup helpers -------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        if self.rank == 0:
            print(text, flush=True)

    def _load(self, split: str) -> EncodedSplit:
        folder = Path(self.s.data)
        path = next((folder / f"{split}{ext}" for ext in (".txt.gz", ".txt") if (folder / f"{split}{ext}").exists()), None)
        if path is None:
            raise ValueError(f"{folder}: no {split}.txt.gz or {split}.txt")
        cache = self.s.cache or None
        if cache is None and "LTLWIT_CACHE" not in os.environ:
            cache = str(self.out / "cache")
        if self.world > 1 and self.rank != 0:
            dist.barrier()  # rank 0 builds the cache first
        t = time.monotonic()
        data = load_split(path, self.s.task, cache, self.s.workers or None)
        if self.world > 1 and self.rank == 0:
            dist.barrier()
        self._say(f"{path}: {len(data)} samples ({data.dropped} dropped: label AP not in formula), "
                  f"{time.monotonic() - t:.1f}s")
        return data

    def _restore(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optimizer"])
        self.step = int(state["step"])
        self.batches.load_state_dict(state["data"])
        self.elapsed_before = float(state["elapsed"])
        self.restart = state.get("restart")
        rngs = state["rng"]
        if len(rngs) == self.world:
            torch.set_rng_state(rngs[self.rank]["cpu"])
            if self.device.type == "cuda" and rngs[self.rank].get("cuda") is not None:
                torch.cuda.set_rng_state(rngs[self.rank]["cuda"], self.device)
        else:
            torch.manual_seed(self.s.seed + 7919 * self.step + self.rank)
        self._say(f"resumed {self.out / 'checkpoint.pt'} at step {self.step}")

    # -- one step ------------------------------------------------------------------------------
    def lr_at(self, step: int) -> float:
        """Linear warm-up, then cosine decay to `min_lr_ratio` of the peak at the last step."""
        s = self.s
        if step < self.warmup:
            return s.lr * (step + 1) / self.warmup
        progress = (step - self.warmup) / max(1, s.steps - self.warmup)
        ratio = s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
        if self.restart is not None:  # continuing from weights: Adam's moments start at zero again
            ratio *= min(1.0, (step - self.restart + 1) / REWARM)
        return s.lr * ratio

    def _autocast(self) -> contextlib.AbstractContextManager:
        if self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def train_step(self) -> torch.Tensor:
        batch = next(self.batches)
        self.samples_seen += batch.src.shape[0]
        for group in self.opt.param_groups:
            group["lr"] = self.lr_at(self.step)
        with self._autocast():
            cos = self.net(batch.src, batch.tgt_in, batch.n_slots, batch.n_aps)
            loss = adacos_loss(cos, batch.tgt_out, self.model.logit_scale, update=True)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.s.grad_clip)
        self.opt.step()
        self.step += 1
        return loss.detach()

    # -- the loop ------------------------------------------------------------------------------
    def _out_of_time(self) -> bool:
        if not self.s.time_limit:
            return False
        left = self.s.time_limit - (time.monotonic() - self.t0)
        stop = left < self._end_cost + 3 * self._step_time
        if self.world > 1:
            flag = torch.tensor([float(stop)], device=self.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = bool(flag.item())
        return stop

    def run(self) -> dict[str, Any]:
        s = self.s
        params = sum(p.numel() for p in self.model.parameters())
        self._say(f"{s.arch}-{s.task} ({s.preset}): {params:,} parameters, batch {self.batch_size} x {self.world}, "
                  f"device {self.device}, steps {self.step}->{s.steps}")
        loss_sum = torch.zeros((), device=self.device)
        count, mark, mark_step, mark_samples = 0, time.monotonic(), self.step, self.samples_seen
        reason = "done"
        while self.step < s.steps:
            if s.stop_at and self.step >= s.stop_at:
                reason = "stop-at"
                break
            if (self.world == 1 or self.step % s.log_every == 0) and self._out_of_time():
                reason = "time-limit"
                break
            loss_sum += self.train_step()
            count += 1
            if self.step % s.log_every == 0 or self.step == s.steps:
                now = time.monotonic()
                self._log_progress(loss_sum, count, (now - mark) / max(1, self.step - mark_step),
                                   (self.samples_seen - mark_samples) / max(now - mark, 1e-9))
                loss_sum.zero_()
                count, mark, mark_step, mark_samples = 0, time.monotonic(), self.step, self.samples_seen
            if s.val_every and self.step % s.val_every == 0 and self.step < s.steps and self._has_time(self._val_cost):
                self.validate()
            if s.ckpt_every and self.step % s.ckpt_every == 0 and self.step < s.steps:
                self.save_checkpoint()
        metrics = self.validate() if reason == "done" else {}
        calibration = self.calibrate() if self.rank == 0 and self.model.cfg.arch == "dual" else None
        self.save_checkpoint()
        self.export(metrics, calibration, reason)
        self._say(f"{reason} at step {self.step}; weights in {self.out / 'model.pt'}"
                  + ("" if reason == "done" else "; continue with --resume"))
        return {"step": self.step, "stopped": reason, **metrics}

    def _has_time(self, cost: float) -> bool:
        if not self.s.time_limit:
            return True
        return self.s.time_limit - (time.monotonic() - self.t0) > cost + self._end_cost + 3 * self._step_time

    def _log_progress(self, loss_sum: torch.Tensor, count: int, step_time: float, sample_rate: float) -> None:
        if self.world > 1:
            dist.all_reduce(loss_sum)
            loss_sum /= self.world
        loss = float(loss_sum) / max(count, 1)
        self._step_time = step_time
        if self.rank != 0:
            return
        rate = 1.0 / step_time if step_time > 0 else 0.0
        eta = (self.s.steps - self.step) * step_time
        record = {"step": self.step, "loss": loss, "lr": self.lr_at(self.step - 1), "scale": float(self.model.logit_scale),
                  "steps_per_s": rate, "samples_per_s": sample_rate * self.world,
                  "elapsed": self.elapsed_before + time.monotonic() - self.t0}
        memory = ""
        if self.device.type == "cuda":  # allocator statistics: no synchronisation
            record["max_memory_gb"] = torch.cuda.max_memory_allocated(self.device) / 2**30
            memory = f"  peak {record['max_memory_gb']:.1f} GiB"
        print(f"step {self.step}/{self.s.steps}  loss {loss:.4f}  lr {record['lr']:.2e}  scale {record['scale']:.1f}  "
              f"{rate:.2f} steps/s  {record['samples_per_s']:.0f} samples/s  ETA {_hms(eta)}{memory}", flush=True)
        self._append_log(record)

    def _append_log(self, record: dict[str, Any]) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        with open(self.out / "log.jsonl", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        if self.on_log is not None:
            self.on_log(record)

    # -- validation ----------------------------------------------------------------------------
    @torch.no_grad()
    def evaluate_loss(self, index: torch.Tensor) -> tuple[float, float]:
        """Teacher-forced mean loss and token accuracy over validation samples `index` (eval mode)."""
        total_loss = total_right = total_tokens = 0.0
        for batch in ordered_batches(self.val_data, index, self.batch_size):
            with self._autocast():
                cos = self.model(batch.src, batch.tgt_in, batch.n_slots, batch.n_aps)
                loss = adacos_loss(cos, batch.tgt_out, self.model.logit_scale, update=False)
            real = batch.tgt_out != PAD
            n = int(real.sum())
            total_loss += float(loss) * n
            total_right += int(((cos.argmax(-1) == batch.tgt_out) & real).sum())
            total_tokens += n
        return total_loss / max(total_tokens, 1), total_right / max(total_tokens, 1)

    @torch.no_grad()
    def validate(self) -> dict[str, Any]:
        """Loss, token accuracy, greedy exact match (and `validate_fn`'s score) on rank 0."""
        if self.rank != 0:
            return {}
        t = time.monotonic()
        self.model.eval()
        try:
            loss, token_acc = self.evaluate_loss(self.val_index)
            exact, pairs, n = 0, [], 0
            max_len = self.val_data.tgt.shape[1]
            for batch in ordered_batches(self.val_data, self.greedy_index, self.batch_size):
                with self._autocast():
                    preds = greedy(self.model, batch.src, batch.n_slots, batch.n_aps, max_len)
                for src, tgt, pred in zip(batch.src.tolist(), batch.tgt_out.tolist(), preds):
                    gold = tgt[: tgt.index(EOS)] if EOS in tgt else tgt
                    exact += pred == gold
                    n += 1
                    if self.validate_fn is not None:
                        witness = decode_witness(self.s.task, pred)
                        pairs.append((decode_formula([x for x in src if x != PAD]),
                                      None if isinstance(witness, DecodeError) else witness))
            metrics: dict[str, Any] = {"step": self.step, "val_loss": loss, "val_token_acc": token_acc,
                                       "val_exact": exact / max(n, 1)}
            if self.validate_fn is not None:
                metrics["val_semantic"] = float(self.validate_fn(pairs))
        finally:
            self.model.train()
        self._val_cost = time.monotonic() - t
        print("validation " + "  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                        for k, v in metrics.items()), flush=True)
        self._append_log(metrics)
        return metrics

    def calibrate(self) -> list[tuple[float, int]]:
        """Dual-part model: fix the inference β to the median-loss draw on the calibration slice
        of the validation split (never the test data)."""
        self.model.eval()
        try:
            results = self.model.calibrate(lambda: self.evaluate_loss(self.calib_index)[0])
        finally:
            self.model.train()
        self._say(f"calibration: beta_seed {self.model.cfg.beta_seed} (median of {len(results)} draws)")
        return results

    # -- persistence ---------------------------------------------------------------------------
    def save_checkpoint(self) -> None:
        t = time.monotonic()
        rngs = self._gather_rng_states()
        if self.rank != 0:
            return
        state = {"format": "ltlwit-checkpoint/1", "model": self.model.state_dict(), "optimizer": self.opt.state_dict(),
                 "step": self.step, "data": self.batches.state_dict(), "rng": rngs, "restart": self.restart,
                 "model_config": self.model.cfg.to_dict(), "settings": asdict(self.s),
                 "elapsed": self.elapsed_before + time.monotonic() - self.t0}
        self.out.mkdir(parents=True, exist_ok=True)
        tmp = self.out / f".checkpoint.{os.getpid()}.tmp"
        torch.save(state, tmp)
        os.replace(tmp, self.out / "checkpoint.pt")
        self._end_cost = max(self._end_cost, 3 * (time.monotonic() - t) + 5)

    def _gather_rng_states(self) -> list[dict[str, torch.Tensor | None]]:
        """Every rank's RNG states (byte tensors, gathered as one flat uint8 tensor per rank)."""
        parts = [torch.get_rng_state()]
        if self.device.type == "cuda":
            parts.append(torch.cuda.get_rng_state(self.device))
        flat = [torch.cat(parts)]
        if self.world > 1:
            mine = flat[0].to(self.device)
            flat = [torch.empty_like(mine) for _ in range(self.world)]
            dist.all_gather(flat, mine)
        sizes = [len(p) for p in parts]
        states = []
        for f in flat:
            pieces = torch.split(f.cpu(), sizes)
            states.append({"cpu": pieces[0], "cuda": pieces[1] if len(pieces) > 1 else None})
        return states

    def export(self, metrics: dict[str, Any], calibration: list[tuple[float, int]] | None, reason: str) -> None:
        if self.rank != 0:
            return
        s = self.s
        save_weights(self.model, self.out / "model", training={
            "task": s.task, "arch": s.arch, "preset": s.preset, "data": str(Path(s.data).resolve()) if s.data else "",
            "steps": self.step, "planned_steps": s.steps, "stopped": reason, "batch_size": self.batch_size,
            "world_size": self.world, "seed": s.seed, "device": _device_name(self.device),
            "wall_seconds": round(self.elapsed_before + time.monotonic() - self.t0, 1),
            "command": " ".join(sys.argv), "validation": metrics,
            "calibration": [{"loss": l, "seed": k} for l, k in calibration] if calibration else None,
        })


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "cpu"


def _hms(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def parse_args(argv: Sequence[str] | None = None) -> Settings:
    p = argparse.ArgumentParser(prog="python -m ltlwit.train.loop", description="Train an ltlwit witness model.")
    p.add_argument("--task", choices=["ltl", "prop"], required=True)
    p.add_argument("--arch", choices=["si", "dual"], required=True)
    p.add_argument("--preset", choices=["paper", "small", "tiny"], default="small")
    p.add_argument("--data", required=True, help="folder with train.txt[.gz] and val.txt[.gz] (DeepLTL two-line format)")
    p.add_argument("--out", required=True, help="folder for checkpoint.pt, model.pt/json, log.jsonl")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--batch-size", type=int, default=0, help="per rank; default: the preset's")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda")
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt when it exists")
    p.add_argument("--init-from", default="", metavar="WEIGHTS",
                   help="without a checkpoint: start from these fp16 weights (OUT/model.pt of an earlier run) at "
                        f"their step, with a fresh optimiser and {REWARM} warm-up steps")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-limit", type=float, default=0.0, help="seconds; checkpoint and exit before then")
    p.add_argument("--stop-at", type=int, default=0, help="checkpoint and exit at this step")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=-1, help="default: min(1000, steps // 10)")
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--val-every", type=int, default=1000)
    p.add_argument("--ckpt-every", type=int, default=1000)
    p.add_argument("--val-samples", type=int, default=2048)
    p.add_argument("--greedy-samples", type=int, default=256)
    p.add_argument("--compile", action="store_true", help="torch.compile the model (compiles for minutes)")
    p.add_argument("--cache", default="", help="folder for tokenised data caches (default OUT/cache or $LTLWIT_CACHE)")
    p.add_argument("--rename-aps", type=int, default=0, metavar="POOL",
                   help="augment: rename APs by a random bijection of POOL slots per sample")
    p.add_argument("--max-tokens", type=int, default=0,
                   help="split batches above this many padded tokens (x APs for si): bounds GPU memory")
    p.add_argument("--workers", type=int, default=0, help="processes for parsing data (default: cores, at most 8)")
    a = p.parse_args(argv)
    names = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in vars(a).items() if k in names})


def main(argv: Sequence[str] | None = None) -> int:
    settings = parse_args(argv)
    try:
        Trainer(settings).run()
    except ValueError as e:
        print(f"ltlwit train: {e}", file=sys.stderr)
        return 2
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
