"""Training data: DeepLTL two-line files, tokenised once, served as batches from device tensors.

A split is parsed with the syntax layer (`parse_formula(..., "polish")`, `parse_trace(...,
"polish")`, `parse_assignment`), APs numbered canonically per formula (first appearance in
Polish order), tokenised, and cached as a compact `.pt` file (flat token arrays), so a
rerun skips the parsing. For training the whole split sits padded on the device and a batch is
one index into it: no per-step host work beyond slicing a precomputed index list, no host
synchronisation. Batches are length-bucketed (similar lengths together, padding trimmed to the
batch's longest sample rounded up to 8), deterministic in (seed, epoch), sharded across
distributed ranks, and resumable from (epoch, position).

With `static` (a width step, e.g. 16) every batch has one of a few shapes: widths rounded up to
multiples of the step (at most the split's widest, rounded to 8), the AP count (streams) and
slot count fixed at the split's maximum, and
batches split by `max_tokens` into a power-of-two number of equal pieces. A step then sees a
bounded set of shapes, so it can be captured as a CUDA graph or compiled once per shape
(`ltlwit.train.step`). Padding changes no result: pads are masked out of attention, the loss
and the symbol-invariant model's stream means.

Optional augmentation renames the APs of each sample by a random bijection of slots
0..pool-1 (the same one for formula and label, so two APs never merge).
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Iterator

import torch
from torch import Tensor

from ltlwit.neural.tokenizer import (
    BASE_TOKENS,
    EOS,
    N_BASE,
    PAD,
    START,
    canonical_slots,
    encode_formula,
    encode_witness,
)
from ltlwit.train.pairs import TASK_FORMULAS, RawSample, iter_pairs, other_task

CACHE_VERSION = 1


def encode_pair(task: str, formula_text: str, label_text: str) -> tuple[list[int], list[int], int] | None:
    """Source ids, target ids and AP count; None when the label mentions an AP the formula lacks."""
    from ltlwit.logic.syntax import parse_assignment, parse_formula, parse_trace

    formula = parse_formula(formula_text, "polish")
    label = parse_trace(label_text, "polish") if task == "ltl" else parse_assignment(label_text)
    slots = canonical_slots(formula)
    if not set(label.aps()) <= slots.keys():
        return None
    return encode_formula(formula, slots), encode_witness(task, label, slots), len(slots)


def _encode_chunk(
    args: tuple[str, str, int, list[tuple[str, str]]],
) -> tuple[list[list[int]], list[list[int]], list[int], int]:
    task, source, first, pairs = args
    srcs, tgts, aps, dropped = [], [], [], 0
    for i, (f, label) in enumerate(pairs):
        try:
            got = encode_pair(task, f, label)
        except ValueError as e:
            line = 2 * (first + i) + 1
            what = other_task(RawSample(f, label, line), task)
            raise ValueError(
                f"{source}:{line}: "
                + (f"{what}: --task {task} trains a model for {TASK_FORMULAS[task]}" if what else str(e))
            ) from None
        if got is None:
            dropped += 1
            continue
        srcs.append(got[0])
        tgts.append(got[1])
        aps.append(got[2])
    return srcs, tgts, aps, dropped


def _flat(rows: list[list[int]]) -> tuple[Tensor, Tensor]:
    top = max((max(r) for r in rows if r), default=0)
    dtype = torch.uint8 if top < 256 else torch.int32
    return torch.tensor([t for r in rows for t in r], dtype=dtype), torch.tensor(
        [len(r) for r in rows], dtype=torch.int32
    )


@dataclass
class EncodedSplit:
    """A tokenised split as flat token arrays (compact on disk); targets without start/eos."""

    src: Tensor
    src_len: Tensor
    tgt: Tensor
    tgt_len: Tensor
    n_aps: Tensor
    dropped: int
    source: str

    def __len__(self) -> int:
        return len(self.src_len)

    @classmethod
    def from_rows(
        cls, src: list[list[int]], tgt: list[list[int]], n_aps: list[int], dropped: int = 0, source: str = ""
    ) -> "EncodedSplit":
        s, sl = _flat(src)
        t, tl = _flat(tgt)
        return cls(s, sl, t, tl, torch.tensor(n_aps, dtype=torch.int32), dropped, source)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        torch.save(
            {
                "version": CACHE_VERSION,
                "vocabulary": list(BASE_TOKENS),
                "src": self.src,
                "src_len": self.src_len,
                "tgt": self.tgt,
                "tgt_len": self.tgt_len,
                "n_aps": self.n_aps,
                "dropped": self.dropped,
                "source": self.source,
            },
            tmp,
        )
        os.replace(tmp, path)

    @classmethod
    def concat(cls, parts: list["EncodedSplit"]) -> "EncodedSplit":
        """One split holding the samples of `parts` in order (e.g. a training file and an
        augmentation file)."""
        if len(parts) == 1:
            return parts[0]
        cat = lambda name: torch.cat([getattr(p, name).to(torch.int32) for p in parts])  # noqa: E731
        src, tgt = cat("src"), cat("tgt")
        small = lambda t: t.to(torch.uint8) if t.numel() and int(t.max()) < 256 else t  # noqa: E731
        return cls(
            small(src),
            cat("src_len"),
            small(tgt),
            cat("tgt_len"),
            cat("n_aps"),
            sum(p.dropped for p in parts),
            " + ".join(p.source for p in parts),
        )

    @classmethod
    def load(cls, path: Path) -> "EncodedSplit":
        data = torch.load(path, weights_only=True)
        if data.get("version") != CACHE_VERSION or data.get("vocabulary") != list(BASE_TOKENS):
            raise ValueError(f"{path}: stale data cache (other version or vocabulary)")
        return cls(
            data["src"], data["src_len"], data["tgt"], data["tgt_len"], data["n_aps"], data["dropped"], data["source"]
        )


def encode_file(path: str | os.PathLike, task: str, workers: int | None = None) -> EncodedSplit:
    """Parse and tokenise a two-line file, in parallel processes for large files."""
    pairs = list(iter_pairs(path))
    chunk = 20000
    jobs = [(task, str(path), i, pairs[i : i + chunk]) for i in range(0, len(pairs), chunk)]
    workers = min(workers or os.cpu_count() or 1, 8, len(jobs))
    if workers > 1:
        # fork is fast, but not once CUDA is initialised in this process
        ctx = get_context("spawn" if torch.cuda.is_initialized() else "fork")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            parts = list(pool.map(_encode_chunk, jobs))
    else:
        parts = [_encode_chunk(job) for job in jobs]
    src = [r for p in parts for r in p[0]]
    tgt = [r for p in parts for r in p[1]]
    aps = [a for p in parts for a in p[2]]
    return EncodedSplit.from_rows(src, tgt, aps, sum(p[3] for p in parts), str(path))


def default_cache_dir() -> Path:
    """$LTLWIT_CACHE, else the platform's user cache dir (platformdirs when installed)."""
    if os.environ.get("LTLWIT_CACHE"):
        return Path(os.environ["LTLWIT_CACHE"])
    try:
        from platformdirs import user_cache_dir
    except ImportError:
        return Path.home() / ".cache" / "ltlwit"
    return Path(user_cache_dir("ltlwit"))


def load_split(
    path: str | os.PathLike, task: str, cache_dir: str | os.PathLike | None = None, workers: int | None = None
) -> EncodedSplit:
    """`encode_file` through a cache keyed by the file's path, size, mtime and the vocabulary."""
    path = Path(path)
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{task}|{CACHE_VERSION}|{' '.join(BASE_TOKENS)}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    name = path.name.split(".")[0]
    cache = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    file = cache / f"{path.parent.name}-{name}-{task}-{digest}.pt"
    if file.exists():
        try:
            return EncodedSplit.load(file)
        except Exception:  # noqa: BLE001 - a bad cache is rebuilt, never fatal
            pass
    split = encode_file(path, task, workers)
    split.save(file)
    return split


def _padded(flat: Tensor, lengths: Tensor, width: int, prefix: list[int], suffix: list[int]) -> Tensor:
    """Flat rows -> (N, width) with `prefix`/`suffix` tokens around each row, PAD after."""
    n = len(lengths)
    lengths = lengths.long()
    out = torch.full((n, width), PAD, dtype=flat.dtype)
    cols = torch.arange(width)
    starts = torch.cumsum(lengths, 0) - lengths
    body = (cols >= len(prefix)) & (cols < (lengths + len(prefix))[:, None])
    src_index = (starts[:, None] + cols - len(prefix))[body]
    out[body] = flat[src_index].to(out.dtype)
    for i, t in enumerate(prefix):
        out[:, i] = t
    for i, t in enumerate(suffix):
        out[torch.arange(n), (lengths + len(prefix) + i)] = t
    return out


def _round8(n: int) -> int:
    return -(-n // 8) * 8


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


@dataclass
class Batch:
    src: Tensor  # (B, S) formula ids
    tgt_in: Tensor  # (B, T) <start> + target
    tgt_out: Tensor  # (B, T) target + <eos>
    n_slots: int  # slot ids in the batch are < n_slots
    n_aps: int  # most distinct APs of one input (streams of the symbol-invariant model)


class DeviceSplit:
    """A split held padded on the training device; host-side lengths plan batches without syncs."""

    def __init__(self, split: EncodedSplit, device: torch.device, rename_pool: int = 0, static: int = 0) -> None:
        n = len(split)
        self.size = n
        self.src_len, self.tgt_len, self.n_aps = split.src_len.long(), split.tgt_len.long(), split.n_aps.long()
        if not n:
            raise ValueError(f"{split.source or 'data'}: no samples")
        if static < 0 or static % 8:
            raise ValueError(f"static shape step must be a positive multiple of 8, got {static}")
        self.static = static
        s_w = _round8(int(self.src_len.max()))
        t_w = _round8(int(self.tgt_len.max()) + 2)
        self.widest = (s_w, t_w - 1)  # static widths never exceed the split's own (rounded to 8)
        self.src = _padded(split.src, split.src_len, s_w, [], []).to(device)
        self.tgt = _padded(split.tgt, split.tgt_len, t_w, [START], [EOS]).to(device)
        self.device = device
        self.rename_pool = rename_pool
        self.max_aps = int(self.n_aps.max())

    def plan(self, index: Tensor) -> tuple[int, int, int, int]:
        """Host-side shape of a batch: (rows, source width, target width, most APs); with
        `static`, widths rounded up to its multiples and the split's largest AP count."""
        if self.static:
            s = min(_round_up(int(self.src_len[index].max()), self.static), self.widest[0])
            t = min(_round_up(int(self.tgt_len[index].max()) + 1, self.static), self.widest[1])
            return len(index), s, t, self.max_aps
        s = min(_round8(int(self.src_len[index].max())), self.src.shape[1])
        t = min(_round8(int(self.tgt_len[index].max()) + 1), self.tgt.shape[1] - 1)
        return len(index), s, t, int(self.n_aps[index].max())

    def batch(self, index_dev: Tensor, shape: tuple[int, int, int, int]) -> Batch:
        _, s, t, n_aps = shape
        src = self.src[index_dev, :s].long()
        tgt = self.tgt[index_dev, : t + 1].long()
        n_slots = max(n_aps, self.rename_pool)
        if self.rename_pool:
            perm = torch.rand(len(index_dev), n_slots, device=self.device).argsort(1)
            src, tgt = _rename(src, perm), _rename(tgt, perm)
        return Batch(src, tgt[:, :-1], tgt[:, 1:], n_slots, n_aps)


def _rename(tokens: Tensor, perm: Tensor) -> Tensor:
    """Slot s of row b becomes slot perm[b, s]: a bijection per row, applied to every AP."""
    slot = (tokens - N_BASE).clamp(min=0)
    return torch.where(tokens >= N_BASE, N_BASE + perm.gather(1, slot), tokens)


class Batches:
    """Endless length-bucketed batches of one rank: epoch by epoch, resumable at (epoch, pos).

    `max_tokens` caps a batch's padded size, rows x (source + target width), times its AP count
    when `per_ap` (the symbol-invariant model runs one stream per AP): a batch of long samples
    is split into smaller ones, so activation memory stays bounded whatever the lengths (into a
    power-of-two number of equal pieces when the split's shapes are static, so that the row
    counts stay few too).
    """

    def __init__(
        self,
        data: DeviceSplit,
        batch_size: int,
        seed: int,
        rank: int = 0,
        world: int = 1,
        bucket: int = 50,
        max_tokens: int = 0,
        per_ap: bool = False,
    ) -> None:
        self.data, self.batch_size, self.seed = data, batch_size, seed
        self.rank, self.world, self.bucket = rank, world, bucket
        self.max_tokens, self.per_ap = max_tokens, per_ap
        self.epoch, self.pos = 0, 0
        self._plans: list[tuple[int, tuple[int, int, int, int]]] = []
        self._index = torch.empty(0, dtype=torch.long)  # the epoch's samples, by _load_epoch
        self._loaded = -1

    def _load_epoch(self) -> None:
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + self.epoch)
        n, b = self.data.size, min(self.batch_size, self.data.size)
        perm = torch.randperm(n, generator=g)
        length = (self.data.src_len + self.data.tgt_len)[perm]
        batches: list[Tensor] = []
        span = b * self.bucket * self.world
        for start in range(0, n, span):
            chunk = perm[start : start + span]
            chunk = chunk[torch.argsort(length[start : start + span], stable=True)]
            for i in range(0, len(chunk) - b + 1, b):
                batches += self._capped(chunk[i : i + b])
        order = torch.randperm(len(batches), generator=g).tolist()
        mine = [batches[i] for i in order][: len(batches) // self.world * self.world][self.rank :: self.world]
        if not mine:
            raise ValueError(f"{n} samples are too few for batch size {b} on {self.world} ranks")
        self._plans, offset = [], 0
        for idx in mine:
            self._plans.append((offset, self.data.plan(idx)))
            offset += len(idx)
        self._index = torch.cat(mine).to(self.data.device)
        self._loaded = self.epoch

    def _capped(self, index: Tensor) -> list[Tensor]:
        if not self.max_tokens:
            return [index]
        rows, s, t, n_aps = self.data.plan(index)
        cost = rows * (s + t) * (max(n_aps, 1) if self.per_ap else 1)
        if cost <= self.max_tokens or rows == 1:
            return [index]
        if self.data.static:
            pieces = 2
            while rows % (2 * pieces) == 0 and cost > pieces * self.max_tokens:
                pieces *= 2
            if rows % pieces:  # an odd row count: halves of unequal size, one shape more
                return [part for piece in torch.tensor_split(index, 2) for part in self._capped(piece)]
            return [part for piece in index.chunk(pieces) for part in self._capped(piece)]
        split = torch.tensor_split(index, min(rows, -(-cost // self.max_tokens)))
        return [part for piece in split for part in self._capped(piece)]

    def shapes(self) -> set[tuple[int, int, int, int]]:
        """The batch shapes of the current epoch (what a static-shape step compiles for)."""
        if self._loaded != self.epoch:
            self._load_epoch()
        return {shape for _, shape in self._plans}

    def __iter__(self) -> Iterator[Batch]:
        return self

    def __next__(self) -> Batch:
        if self._loaded != self.epoch:
            self._load_epoch()
        if self.pos >= len(self._plans):
            self.epoch, self.pos = self.epoch + 1, 0
            self._load_epoch()
        offset, shape = self._plans[self.pos]
        self.pos += 1
        return self.data.batch(self._index[offset : offset + shape[0]], shape)

    def state_dict(self) -> dict[str, int]:
        return {"epoch": self.epoch, "pos": self.pos}

    def load_state_dict(self, state: dict[str, int]) -> None:
        self.epoch, self.pos = int(state["epoch"]), int(state["pos"])


def ordered_batches(data: DeviceSplit, index: Tensor, batch_size: int) -> Iterator[Batch]:
    """The samples `index` (host tensor) in order, in batches (validation)."""
    for i in range(0, len(index), batch_size):
        idx = index[i : i + batch_size]
        yield data.batch(idx.to(data.device), data.plan(idx))
