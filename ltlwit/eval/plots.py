"""PNG pictures of evaluations and training runs, with matplotlib (the `plots` extra:
`pip install 'ltlwit[plots]'`). matplotlib is optional, so each command that plots asks
`require_matplotlib()` before any work and stops with one line when it is missing, rather
than after minutes of decoding.

- `grid_heatmap`: top-1 accuracy by AP count x formula size, each cell labelled with its
  accuracy and sample count (a colour alone cannot be read off, nor can a cell of 2 samples
  be told from one of 200);
- `alpha_by_aps`: alpha-covariance per AP count, both measures side by side;
- `training_curves`: a run's `log.jsonl` (training loss, learning rate, validation loss and
  the validation scores) against the step.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Iterable

from ltlwit.eval.alpha import AlphaCovariance
from ltlwit.eval.metrics import Accuracy

MISSING = "plots need matplotlib, which is not installed: pip install 'ltlwit[plots]' (or matplotlib)"


def require_matplotlib() -> Any:
    """matplotlib.pyplot on the file-only Agg backend; ValueError (one line) when missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError(MISSING) from None
    return plt


def grid_heatmap(acc: Accuracy, path: str | os.PathLike, title: str = "") -> None:
    plt = require_matplotlib()
    grid = acc.grid()
    aps = sorted({a for a, _ in grid})
    buckets = sorted({b for _, b in grid})
    values = [[grid[a, b].correct / grid[a, b].samples if (a, b) in grid else math.nan for b in buckets] for a in aps]
    fig, ax = plt.subplots(figsize=(1.5 + 0.8 * len(buckets), 1.2 + 0.55 * len(aps)))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
    for row, a in enumerate(aps):
        for col, b in enumerate(buckets):
            if (a, b) in grid:
                value = values[row][col]
                ax.text(
                    col,
                    row,
                    f"{100 * value:.0f}\nn={grid[a, b].samples}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if value > 0.6 else "white",
                )
    ax.set_xticks(range(len(buckets)), [f"{lo}-{hi}" for lo, hi in buckets], rotation=45, ha="right")
    ax.set_yticks(range(len(aps)), [str(a) for a in aps])
    ax.set_xlabel("formula size")
    ax.set_ylabel("APs")
    ax.set_title(title or "top-1 accuracy (%)")
    fig.colorbar(image, ax=ax, label="accuracy")
    _save(plt, fig, path)


def alpha_by_aps(measures: Iterable[tuple[str, AlphaCovariance]], path: str | os.PathLike, title: str = "") -> None:
    """Bars per AP count, one colour per measure (its label), the formula count on each bar."""
    plt = require_matplotlib()
    measures = [(label, cov) for label, cov in measures if cov.samples]
    if not measures:
        raise ValueError("no alpha-covariance to plot (no formula had alpha-equivalent copies)")
    aps = sorted({k for _, cov in measures for k in cov.rows})
    width = 0.8 / len(measures)
    fig, ax = plt.subplots(figsize=(2 + 0.9 * len(aps), 3.5))
    for i, (label, cov) in enumerate(measures):
        xs = [x + (i - (len(measures) - 1) / 2) * width for x in range(len(aps))]
        heights = [cov.rows[k].alpha if k in cov.rows else 0.0 for k in aps]
        bars = ax.bar(xs, heights, width, label=label)
        ax.bar_label(bars, [f"n={cov.rows[k].samples}" if k in cov.rows else "" for k in aps], fontsize=7)
    ax.set_xticks(range(len(aps)), [str(k) for k in aps])
    ax.set_xlabel("APs")
    ax.set_ylabel("alpha-covariance")
    ax.set_ylim(0, 1.1)
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title(title or "alpha-covariance by AP count")
    _save(plt, fig, path)


def read_log(path: str | os.PathLike) -> list[dict[str, Any]]:
    """A training run's log.jsonl records; ValueError naming the file and line of a bad one."""
    records = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{number}: not JSON ({e.msg})") from None
    return records


def training_curves(records: list[dict[str, Any]], path: str | os.PathLike, title: str = "") -> None:
    """Loss (training, validation) with the learning rate above it, and the validation scores
    (token accuracy, exact match, share verified by the engine) below."""
    plt = require_matplotlib()
    progress = [r for r in records if "loss" in r]
    checks = [r for r in records if "val_loss" in r]
    if not progress and not checks:
        raise ValueError("the training log has no loss or validation records yet")
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    if progress:
        top.plot([r["step"] for r in progress], [r["loss"] for r in progress], label="training loss", lw=1)
        rate = top.twinx()
        rate.plot(
            [r["step"] for r in progress],
            [r["lr"] for r in progress],
            color="grey",
            lw=0.8,
            ls=":",
            label="learning rate",
        )
        rate.set_ylabel("learning rate")
    if checks:
        top.plot([r["step"] for r in checks], [r["val_loss"] for r in checks], "o-", label="validation loss")
        for key, label in (
            ("val_token_acc", "token accuracy"),
            ("val_exact", "exact match"),
            ("val_semantic", "verified by the engine"),
        ):
            points = [(r["step"], r[key]) for r in checks if key in r]
            if points:
                bottom.plot(*zip(*points), "o-", label=label)
        bottom.set_ylim(0, 1.02)
        bottom.legend(fontsize=8)
    top.set_ylabel("loss")
    top.legend(loc="upper right", fontsize=8)
    bottom.set_xlabel("step")
    bottom.set_ylabel("validation")
    top.set_title(title or "training")
    _save(plt, fig, path)


def _save(plt: Any, fig: Any, path: str | os.PathLike) -> None:
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)
