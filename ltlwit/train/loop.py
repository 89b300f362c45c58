"""The training loop: AdamW + warm-up/cosine schedule + AdaCos, periodic validation, exact resume.
Its front end is `ltlwit train` (`ltlwit.cli.train`, over `ltlwit.train.run`), whose options are
`Settings`' fields:

    ltlwit train --task ltl --arch si --preset small --data DIR --out DIR --steps N
    torchrun --nproc_per_node 2 -m ltlwit train ...     (DDP: gloo on CPU, nccl on GPU)

Built to be fast on a GPU within a short time limit: the data sit pre-tokenised on the device, a step
is a slice, a forward/backward under bf16 autocast, clipping and a fused AdamW step, with no
host synchronisation except every `--log-every` steps. `--static-shapes 16` pads batches to a
few shapes, so that `--cuda-graphs` can replay each shape's whole step from one CUDA graph
(`ltlwit.train.step`) and `--compile` compiles once per shape. `--time-limit` stops early
enough to write the checkpoint and weights before the deadline; `--stop-at` stops at a given
step (both resume exactly with `--resume`). Checkpoints (model, optimiser, step, RNG states of
every rank, data position; `ltlwit.train.checkpoint`: `OUT/checkpoint.pt`, or parts of at most
`--checkpoint-part-mb` MiB) are written atomically by rank 0; `OUT/model.pt` + `OUT/model.json`
are the fp16 weights (`ltlwit.neural.weights`), `OUT/log.jsonl` the metrics.

The papers' details the first bundled models lacked are options: `--emb-dropout` (dropout on
the embeddings), `--cross-rope` (RoPE in cross-attention; new models of every preset have it
and embedding dropout 0.1, weights continued with `--init-from` keep their own config),
`--min-lr-ratio 0` (cosine to zero, the default) and `--extra-train FILE` (e.g. the symbol-
invariant paper's extra 0- and 1-AP LTL samples, `data generate --aps 0` / `--aps 1`).

Validation measures teacher-forced loss and token accuracy and greedy exact match on a fixed
sample of the validation split; `validate_fn(pairs) -> float` (pairs of formula and decoded
greedy witness or None) adds a semantic score, e.g. the engine's verdict.

Imports torch, the standard library and ltlwit's pure-Python parsing only.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Protocol, Sequence, Union, cast, runtime_checkable

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from ltlwit.logic.formula import Formula
from ltlwit.neural.backbone import resolve_device
from ltlwit.neural.beam import greedy
from ltlwit.neural.config import DualConfig, ExpEmbConfig, LexConfig, ModelConfig, config_from_dict, preset
from ltlwit.neural.tokenizer import EOS, PAD, DecodeError, Witness, decode_formula, decode_witness
from ltlwit.neural.weights import load_weights, save_weights
from ltlwit.train import checkpoint
from ltlwit.train.data import Batches, DeviceSplit, EncodedSplit, load_split, ordered_batches
from ltlwit.train.equiv import encoded_pairs
from ltlwit.train.flops import step_flops
from ltlwit.train.settings import Settings
from ltlwit.train.step import EagerStep, GraphedStep, graph_autocast, make_optimizer, portable_state, restore_lr, set_lr

#: What a model writes: a witness, or (ExpEmb) a formula.
Output = Union[Witness, Formula]
ValidateFn = Callable[[list[tuple[Formula, Optional[Output]]]], float]


@runtime_checkable
class _Calibrated(Protocol):
    """A model whose inference draw is seeded, the seed fixed by calibration (dual-part,
    lexinvariant: `DualTransformer.calibrate`)."""

    def calibrate(self, loss_of: Callable[[], float]) -> list[tuple[float, int]]: ...


REWARM = 100  # warm-up steps after --init-from
FIT_WINDOW = (30, 130)  # --fit-steps-to-time: steps of this process between which the step time is measured
PRESET_BATCH = {
    "paper": {"ltl": 768, "prop": 1024},
    "small": {"ltl": 256, "prop": 256},
    "tiny": {"ltl": 64, "prop": 64},
}


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
    def __init__(
        self,
        settings: Settings,
        train: EncodedSplit | None = None,
        val: EncodedSplit | None = None,
        validate_fn: ValidateFn | None = None,
        model_config: ModelConfig | None = None,
        on_log: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """`on_log` also receives every record written to log.jsonl (progress and validations),
        e.g. for a progress display."""
        self.t0 = time.monotonic()
        s = self.s = settings
        self.validate_fn, self.on_log = validate_fn, on_log
        self.rank, self.world, self.device = _distributed(s.device)
        self.out = Path(s.out)
        ckpt = self.out / "checkpoint.pt"
        state = checkpoint.load(self.out) if s.resume and checkpoint.exists(self.out) else None
        if s.resume and state is None:
            self._say(f"no checkpoint in {self.out}: starting afresh")
        cfg = config_from_dict(state["model_config"]) if state else model_config or preset(s.arch, s.task, s.preset)
        init, start = None, 0
        if s.init_from and not state:  # e.g. on a fresh machine, from weights fetched off an earlier one
            init, manifest = load_weights(s.init_from)
            cfg, start = init.cfg, int(manifest["training"].get("steps", 0))
        if (cfg.arch, cfg.task) != (s.arch, s.task):
            raise ValueError(f"{s.init_from if init else ckpt}: a {cfg.arch}/{cfg.task} model, not {s.arch}/{s.task}")
        if not state:  # the paper-detail options change a new run's config, never a resumed one's
            if s.emb_dropout != -1.0:  # -1: the config's
                cfg = replace(cfg, emb_dropout=s.emb_dropout)
            if s.cross_rope is not None:  # None: the config's
                cfg = replace(cfg, cross_rope=s.cross_rope)
            if s.contrastive != -1.0:  # an embedding model's (`train.run` refuses it of others)
                assert isinstance(cfg, ExpEmbConfig)
                cfg = replace(cfg, contrastive=s.contrastive)
            if s.hidden:  # an embedding model's too
                assert isinstance(cfg, ExpEmbConfig)
                cfg = replace(cfg, d_model=s.hidden)
        if s.cuda_graphs and (self.device.type != "cuda" or not s.static_shapes or self.world > 1):
            raise ValueError("--cuda-graphs needs a CUDA device, --static-shapes and a single process")
        if s.fit_steps_to_time and not s.time_limit:
            raise ValueError("--fit-steps-to-time needs --time-limit")
        self.fitted = False
        train = train or self._load("train", cfg, s.extra_train)  # parse before CUDA: fork is fast
        val = val or self._load("val", cfg)
        torch.manual_seed(s.seed)  # the same initial weights on every rank
        self.model = cfg.build().to(self.device)
        if init is not None:
            self.model.load_state_dict(init.state_dict())
        torch.manual_seed(s.seed * 1000 + self.rank + 1)  # dropout and β draws differ per rank
        self.batch_size = s.batch_size or PRESET_BATCH.get(s.preset, PRESET_BATCH["small"])[s.task]
        rename = s.rename_aps or cfg.rename_pool  # renaming: alpha-renaming into all its AP rows
        most = max(rename, int(train.n_aps.max()) if len(train) else 0)
        if self.model.max_aps is not None and most > self.model.max_aps:
            raise ValueError(
                f"a {cfg.arch} model tells apart at most {self.model.max_aps} APs; "
                f"the training data {'are renamed into' if rename else 'have'} {most}"
            )
        self.train_data = DeviceSplit(train, self.device, rename, static=s.static_shapes)
        self.val_data = DeviceSplit(val, self.device)
        self.batches = Batches(
            self.train_data,
            self.batch_size,
            s.seed + start,
            self.rank,
            self.world,
            max_tokens=s.max_tokens,
            per_ap=cfg.arch == "si",
        )
        perm = torch.randperm(len(val), generator=torch.Generator().manual_seed(12345))
        length = self.val_data.src_len + self.val_data.tgt_len
        by_length = lambda index: index[torch.argsort(length[index], stable=True)]  # noqa: E731 - less padding
        self.val_index = by_length(perm[: s.val_samples])
        self.greedy_index = by_length(perm[: s.greedy_samples])
        self.calib_index = by_length(perm[s.val_samples : s.val_samples + s.calib_samples])
        if len(self.calib_index) < 64:  # a tiny validation split: calibrate on what there is
            self.calib_index = self.val_index
        self.opt = make_optimizer(self.model, s.lr, s.weight_decay, self.device, graphs=s.cuda_graphs)
        self.step, self.elapsed_before, self.samples_seen, self.flops_done = start, 0.0, 0, 0.0
        self.restart = start if init is not None else None  # fresh optimiser state: warm up again
        if state:
            self._restore(state)
        self.net: torch.nn.Module = self.model
        if self.world > 1:
            self.net = DistributedDataParallel(
                self.model, device_ids=[self.device.index] if self.device.type == "cuda" else None
            )
        if s.compile:
            self.net = _compiled(self.net, static=bool(s.static_shapes))
        if s.cuda_graphs:
            self.stepper: EagerStep = GraphedStep(
                self.model, self.net, self.opt, s.grad_clip, graph_autocast(self.device), on_capture=self._captured
            )
        else:
            self.stepper = EagerStep(self.model, self.net, self.opt, s.grad_clip, self._autocast)
        self.warmup = s.warmup if s.warmup >= 0 else min(1000, s.steps // 10)
        self._step_time, self._val_cost = 0.0, 0.0
        # the checkpoint's write, thrice, until a checkpoint measures it: 12 bytes a parameter
        # (weights and AdamW's two moments) at a pessimistic 100 MB/s
        self._ckpt_cost = 3 * 12 * sum(p.numel() for p in self.model.parameters()) / 100e6
        self._loop_start, self._loop_first = time.monotonic(), self.step
        if self.device.type == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True

    # -- setup helpers -------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        if self.rank == 0:
            print(text, flush=True)

    def _load(self, split: str, cfg: ModelConfig, extra: Sequence[str] = ()) -> EncodedSplit:
        if isinstance(cfg, ExpEmbConfig):  # pairs of formulas from `data equiv`'s classes
            if extra:
                raise ValueError("--extra-train: ExpEmb models learn from one file of classes")
            t = time.monotonic()
            data = encoded_pairs(self.s.data, split, self.s.task, same=cfg.pairs == "same")
            self._say(f"{self.s.data}: {len(data)} {split} pairs, {time.monotonic() - t:.1f}s")
            return data
        folder = Path(self.s.data)
        path = next(
            (folder / f"{split}{ext}" for ext in (".txt.gz", ".txt") if (folder / f"{split}{ext}").exists()), None
        )
        if path is None:
            raise ValueError(f"{folder}: no {split}.txt.gz or {split}.txt")
        for more in extra:
            if not Path(more).is_file():
                raise ValueError(f"{more}: no such training file")
        cache = self.s.cache or None
        if cache is None and "LTLWIT_CACHE" not in os.environ:
            cache = str(self.out / "cache")
        if self.world > 1 and self.rank != 0:
            dist.barrier()  # rank 0 builds the cache first
        parts = []
        for file in (path, *map(Path, extra)):
            t = time.monotonic()
            data = load_split(file, self.s.task, cache, self.s.workers or None)
            self._say(
                f"{file}: {len(data)} samples ({data.dropped} dropped: label AP not in formula), "
                f"{time.monotonic() - t:.1f}s"
            )
            parts.append(data)
        if self.world > 1 and self.rank == 0:
            dist.barrier()
        return EncodedSplit.concat(parts)

    def _restore(self, state: dict[str, Any]) -> None:
        self.model.load_state_dict(state["model"])
        self.opt.load_state_dict(state["optimizer"])
        restore_lr(self.opt, self.device, self.s.cuda_graphs)
        self.step = int(state["step"])
        if self.s.fit_steps_to_time and state.get("planned_steps"):  # the schedule fitted by the first slice
            self.s.steps, self.fitted = int(state["planned_steps"]), True
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
        self._say(f"resumed the checkpoint in {self.out} at step {self.step}")
        if self.rank == 0:
            self._trim_log()

    def _trim_log(self) -> None:
        """Drop log records of steps after the checkpoint (a run killed between checkpoints
        logged them; the resumed run logs them again)."""
        log = self.out / "log.jsonl"
        if not log.exists():
            return
        lines = log.read_text(encoding="utf-8").splitlines()
        keep = [line for line in lines if line.strip() and json.loads(line).get("step", 0) <= self.step]
        if len(keep) != len(lines):
            log.write_text("".join(line + "\n" for line in keep), encoding="utf-8")

    def _captured(self, key: tuple, seconds: float) -> None:
        assert isinstance(self.stepper, GraphedStep)  # only a graphed step captures
        self._say(
            f"captured a CUDA graph for batch shape {key[0][0]}x({key[0][1]}+{key[1][1]}), "
            f"{key[3]} APs in {seconds:.1f}s ({len(self.stepper.graphs)} so far)"
        )

    # -- one step ------------------------------------------------------------------------------
    def lr_at(self, step: int) -> float:
        """Linear warm-up, then cosine decay to `min_lr_ratio` of the peak at the last step.
        Continuing from weights (`--init-from`) is a warm restart: `REWARM` warm-up steps (Adam's
        moments start at zero again), then the cosine from the peak over the steps that remain."""
        s = self.s
        if self.restart is not None:
            progress = (step - self.restart) / max(1, s.steps - self.restart)
            ramp = min(1.0, (step - self.restart + 1) / REWARM)
        elif step < self.warmup:
            return s.lr * (step + 1) / self.warmup
        else:
            progress, ramp = (step - self.warmup) / max(1, s.steps - self.warmup), 1.0
        ratio = s.min_lr_ratio + (1 - s.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(max(progress, 0.0), 1.0)))
        return s.lr * ratio * ramp

    def _autocast(self) -> contextlib.AbstractContextManager:
        if self.device.type == "cuda":
            return torch.autocast("cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def train_step(self) -> torch.Tensor:
        batch = next(self.batches)
        rows = batch.src.shape[0]
        self.samples_seen += rows
        self.flops_done += step_flops(
            self.model.cfg, rows, batch.src.shape[1], batch.tgt_in.shape[1], batch.n_aps, batch.n_slots
        )
        set_lr(self.opt, self.lr_at(self.step))
        loss = self.stepper(batch)
        self.step += 1
        return loss

    # -- the loop ------------------------------------------------------------------------------
    def _calibrates(self) -> bool:
        """Whether this process calibrates the model's inference draw at the end (rank 0, a model
        with a random draw: dual, lexinv)."""
        return self.rank == 0 and isinstance(self.model, _Calibrated)

    def _end_cost(self) -> float:
        """Seconds the run's end takes once the loop stops, which `--time-limit` keeps free: the
        checkpoint and weights (3x the last checkpoint's write), the calibration of a model with
        a random inference draw (dual, lexinv: 10 forward passes over the calibration slice, a
        batch's costing about a third of a training step), and 2 s."""
        calibration = 0.0
        if self._calibrates():
            calibration = 10 * math.ceil(len(self.calib_index) / self.batch_size) * self._current_step_time() / 3
        return self._ckpt_cost + calibration + 2.0

    def _current_step_time(self) -> float:
        """The last log interval's step time; before the first log, this run's mean so far."""
        if self._step_time:
            return self._step_time
        return (time.monotonic() - self._loop_start) / max(1, self.step - self._loop_first)

    def _time_left(self) -> float:
        return self.s.time_limit - (time.monotonic() - self.t0)

    def _out_of_time(self) -> bool:
        if not self.s.time_limit:
            return False
        stop = self._time_left() < self._end_cost() + 3 * self._current_step_time()
        if self.world > 1:
            flag = torch.tensor([float(stop)], device=self.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = bool(flag.item())
        return stop

    def run(self) -> dict[str, Any]:
        s = self.s
        params = sum(p.numel() for p in self.model.parameters())
        self._say(
            f"{s.arch}-{s.task} ({s.preset}): {params:,} parameters, batch {self.batch_size} x {self.world}, "
            f"device {self.device}, steps {self.step}->{s.steps}"
        )
        loss_sum = torch.zeros((), device=self.device)
        count, mark, mark_step, mark_samples = 0, time.monotonic(), self.step, self.samples_seen
        mark_flops = self.flops_done
        reason = "done"
        first, fit_start = self.step, 0.0
        self._loop_start, self._loop_first = time.monotonic(), self.step
        while self.step < s.steps:
            if s.stop_at and self.step >= s.stop_at:
                reason = "stop-at"
                break
            if (self.world == 1 or self.step % s.log_every == 0) and self._out_of_time():
                reason = "time-limit"
                self._say(
                    f"--time-limit: stopping with {self._time_left():.1f}s left for the end "
                    f"(estimated {self._end_cost():.1f}s: checkpoint, weights"
                    f"{', calibration' if self._calibrates() else ''})"
                )
                break
            loss_sum += self.train_step()
            count += 1
            if s.fit_steps_to_time and not self.fitted and self.step - first in FIT_WINDOW:
                self._sync()
                if self.step - first == FIT_WINDOW[0]:
                    fit_start = time.monotonic()
                else:
                    self._fit_steps((time.monotonic() - fit_start) / (FIT_WINDOW[1] - FIT_WINDOW[0]))
            if self.step % s.log_every == 0 or self.step == s.steps:
                now = time.monotonic()
                self._log_progress(
                    loss_sum,
                    count,
                    (now - mark) / max(1, self.step - mark_step),
                    (self.samples_seen - mark_samples) / max(now - mark, 1e-9),
                    (self.flops_done - mark_flops) / max(now - mark, 1e-9),
                )
                loss_sum.zero_()
                count, mark, mark_step, mark_samples = 0, time.monotonic(), self.step, self.samples_seen
                mark_flops = self.flops_done
            if s.val_every and self.step % s.val_every == 0 and self.step < s.steps and self._has_time(self._val_cost):
                self.validate()
            if s.ckpt_every and self.step % s.ckpt_every == 0 and self.step < s.steps:
                self.save_checkpoint()
        metrics = self.validate() if reason == "done" else {}
        calibration = self.calibrate() if self._calibrates() else None
        self.save_checkpoint()
        self.export(metrics, calibration, reason)
        self._say(
            f"{reason} at step {self.step}; weights in {self.out / 'model.pt'}"
            + ("" if reason == "done" else "; continue with --resume")
        )
        return {"step": self.step, "stopped": reason, **metrics}

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def _fit_steps(self, step_time: float) -> None:
        """Plan the schedule's last step where the time limit would stop the run, less what the
        end (validation, calibration, checkpoint, weights) and 5% take, so that the cosine
        decay completes instead of being cut off."""
        left = self.s.time_limit - (time.monotonic() - self.t0)
        reserve = self._end_cost() + 2 * self._val_cost + 0.05 * left + 10
        planned = self.step + max(1, int((left - reserve) / max(step_time, 1e-6)))
        if self.world > 1:  # every rank the same plan (rank 0's)
            plan = torch.tensor([planned], device=self.device)
            dist.broadcast(plan, 0)
            planned = int(plan.item())
        self._say(
            f"step time {step_time * 1000:.1f} ms: the schedule now ends at step {planned} "
            f"(was {self.s.steps}), in about {(planned - self.step) * step_time:.0f}s"
        )
        self.s.steps, self.fitted = planned, True

    def _has_time(self, cost: float) -> bool:
        if not self.s.time_limit:
            return True
        return self._time_left() > cost + self._end_cost() + 3 * self._current_step_time()

    def _log_progress(
        self, loss_sum: torch.Tensor, count: int, step_time: float, sample_rate: float, flop_rate: float = 0.0
    ) -> None:
        if self.world > 1:
            dist.all_reduce(loss_sum)
            loss_sum /= self.world
        loss = float(loss_sum) / max(count, 1)
        self._step_time = step_time
        if self.rank != 0:
            return
        rate = 1.0 / step_time if step_time > 0 else 0.0
        eta = (self.s.steps - self.step) * step_time
        record = {
            "step": self.step,
            "loss": loss,
            "lr": self.lr_at(self.step - 1),
            "scale": float(self.model.logit_scale),
            "steps_per_s": rate,
            "samples_per_s": sample_rate * self.world,
            "tflops": flop_rate * self.world / 1e12,
            "elapsed": self.elapsed_before + time.monotonic() - self.t0,
        }
        memory = ""
        if self.device.type == "cuda":  # allocator statistics: no synchronisation
            record["max_memory_gb"] = torch.cuda.max_memory_allocated(self.device) / 2**30
            memory = f"  peak {record['max_memory_gb']:.1f} GiB"
        print(
            f"step {self.step}/{self.s.steps}  loss {loss:.4f}  lr {record['lr']:.2e}  scale {record['scale']:.1f}  "
            f"{rate:.2f} steps/s  {record['samples_per_s']:.0f} samples/s  {record['tflops']:.2f} TFLOP/s  "
            f"ETA {_hms(eta)}{memory}",
            flush=True,
        )
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
                loss = self.model.loss(cos, batch.tgt_out, update=False)
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
            writes_formulas = isinstance(self.model.cfg, ExpEmbConfig)
            for batch in ordered_batches(self.val_data, self.greedy_index, self.batch_size):
                with self._autocast():
                    preds = greedy(self.model, batch.src, batch.n_slots, batch.n_aps, max_len)
                for src, tgt, pred in zip(batch.src.tolist(), batch.tgt_out.tolist(), preds):
                    gold = tgt[: tgt.index(EOS)] if EOS in tgt else tgt
                    exact += pred == gold
                    n += 1
                    if self.validate_fn is not None:
                        formula = decode_formula([x for x in src if x != PAD])
                        assert not isinstance(formula, DecodeError)  # the split's sources are encoded formulas
                        output = decode_formula(pred) if writes_formulas else decode_witness(self.s.task, pred)
                        pairs.append((formula, None if isinstance(output, DecodeError) else output))
            metrics: dict[str, Any] = {
                "step": self.step,
                "val_loss": loss,
                "val_token_acc": token_acc,
                "val_exact": exact / max(n, 1),
            }
            if self.validate_fn is not None:
                metrics["val_semantic"] = float(self.validate_fn(pairs))
        finally:
            self.model.train()
        self._val_cost = time.monotonic() - t
        print(
            "validation "
            + "  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in metrics.items()),
            flush=True,
        )
        self._append_log(metrics)
        return metrics

    def calibrate(self) -> list[tuple[float, int]]:
        """Dual-part and lexinvariant models: fix the inference draw to the median-loss one on
        the calibration slice of the validation split (never the test data)."""
        model, cfg = self.model, self.model.cfg
        assert isinstance(model, _Calibrated) and isinstance(cfg, (DualConfig, LexConfig))  # as _calibrates() found
        model.eval()
        try:
            results = model.calibrate(lambda: self.evaluate_loss(self.calib_index)[0])
        finally:
            model.train()
        self._say(f"calibration: beta_seed {cfg.beta_seed} (median of {len(results)} draws)")
        return results

    # -- persistence ---------------------------------------------------------------------------
    def save_checkpoint(self) -> None:
        t = time.monotonic()
        rngs = self._gather_rng_states()
        if self.rank != 0:
            return
        state = {
            "format": "ltlwit-checkpoint/1",
            "model": self.model.state_dict(),
            "optimizer": portable_state(self.opt),
            "step": self.step,
            "data": self.batches.state_dict(),
            "rng": rngs,
            "restart": self.restart,
            "planned_steps": self.s.steps if self.fitted else None,
            "model_config": self.model.cfg.to_dict(),
            "settings": asdict(self.s),
            "elapsed": self.elapsed_before + time.monotonic() - self.t0,
        }
        checkpoint.save(state, self.out, self.s.checkpoint_part_mb)
        self._ckpt_cost = max(self._ckpt_cost, 3 * (time.monotonic() - t))

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
        save_weights(
            self.model,
            self.out / "model",
            training={
                "task": s.task,
                "arch": s.arch,
                "preset": s.preset,
                "data": str(Path(s.data).resolve()) if s.data else "",
                "steps": self.step,
                "planned_steps": s.steps,
                "stopped": reason,
                "batch_size": self.batch_size,
                "world_size": self.world,
                "seed": s.seed,
                "device": _device_name(self.device),
                "wall_seconds": round(self.elapsed_before + time.monotonic() - self.t0, 1),
                "command": " ".join(sys.argv),
                "validation": metrics,
                "calibration": [{"loss": l, "seed": k} for l, k in calibration] if calibration else None,
            },
        )


def _compiled(net: torch.nn.Module, static: bool) -> torch.nn.Module:
    """torch.compile; with static shapes, one graph per shape (no dynamic-shape guesses), and
    room for as many recompilations as there are shapes."""
    import torch._dynamo

    for name in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, name):
            setattr(torch._dynamo.config, name, max(getattr(torch._dynamo.config, name), 256))
    # torch.compile is annotated to return a Callable; given a Module it returns an OptimizedModule, a Module
    return cast(torch.nn.Module, torch.compile(net, dynamic=False if static else None))


def _device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    return "cpu"


def _hms(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def verified_share(pairs: list[tuple[Formula, Optional[Output]]]) -> float:
    """`val_semantic`: the share of greedy validation outputs the checker verifies (what counts
    when the training labels are in another style than the validation split's)."""
    from ltlwit.logic.witness import is_witness

    return (
        sum(w is not None and not isinstance(w, Formula) and is_witness(f, w) for f, w in pairs) / len(pairs)
        if pairs
        else 0.0
    )


def equivalent_share(pairs: list[tuple[Formula, Optional[Output]]], seconds: float = 1.0) -> float:
    """ExpEmb's `val_semantic`: the share of greedy validation outputs that are formulas the
    engine proves equivalent to their input and that are not the input itself (the paper's
    success for ExpEmb-E; ExpEmb-A's is `val_exact`); `seconds` per question, undecided counts
    as a failure."""
    from ltlwit.logic import ltl
    from ltlwit.logic.budget import Budget

    def equivalent(f: Formula, g: Formula) -> bool:
        return ltl.equivalent(f, g, Budget(seconds=seconds), engine="builtin") is True

    hits = sum(isinstance(g, Formula) and g != f and equivalent(f, g) for f, g in pairs)
    return hits / len(pairs) if pairs else 0.0


@contextlib.contextmanager
def process_group() -> Iterator[None]:
    """Around a run: every rank leaves it together, and the process group (if any) is destroyed
    once the finished trainer is freed. Left to the interpreter's exit, gloo's threads meet a
    dying interpreter and abort the rank ("terminate called without an active exception", 1
    run in ~15 on the CPU test); the trainer's DDP reducer holds the group until collected."""
    try:
        yield
        if dist.is_initialized():
            dist.barrier()
    finally:
        if dist.is_initialized():
            gc.collect()
            dist.destroy_process_group()
