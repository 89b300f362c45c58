"""The training loop's settings, declared once and without torch: `ltlwit train`'s options are
these fields, with their defaults (tests/test_cli_train.py holds the two together), and the loop
(`ltlwit.train.loop.Trainer`) runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


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
    min_lr_ratio: float = 0.0  # cosine decay to this share of the peak (0: to zero, as the papers)
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
    static_shapes: int = 0  # pad batch widths to multiples of this (0: to the batch's longest, rounded to 8)
    cuda_graphs: bool = False  # replay each static shape's step from a CUDA graph
    cache: str = ""
    rename_aps: int = 0  # augmentation: rename APs by a random bijection of this many slots
    max_tokens: int = 0  # cap on padded tokens (x streams for si) per batch; 0: none
    workers: int = 0
    resume: bool = False
    init_from: str = ""  # fp16 weights (model.pt) to continue from when there is no checkpoint
    extra_train: tuple[str, ...] = ()  # more training files (two-line), appended to DATA/train
    emb_dropout: float = -1.0  # -1: the model config's (presets 0.1, older weights 0)
    contrastive: float = -1.0  # -1: the config's (ExpEmb's contrastive weight; presets 0)
    hidden: int = 0  # 0: the preset's (ExpEmb's H, the GRUs' width)
    cross_rope: Optional[bool] = None  # None: the config's (presets on, older weights off)
    checkpoint_part_mb: float = 0.0  # write checkpoints as parts of at most this many MiB (0: one file)
    fit_steps_to_time: bool = False  # set `steps` from the measured step time so the run ends at time_limit
