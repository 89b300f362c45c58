"""Evaluation results for people (rich tables), spreadsheets (CSV grid), eyes (PNG heatmap, when
matplotlib is installed) and machines (one JSON object)."""

from __future__ import annotations

import csv
import os
from typing import Any

from ltlwit.eval.alpha import AlphaCovariance
from ltlwit.eval.metrics import Accuracy

GRID_FIELDS = ("aps", "size_from", "size_to", "samples", "correct", "accuracy", "top_n", "top_n_accuracy")


def grid_rows(acc: Accuracy) -> list[dict[str, Any]]:
    return [{"aps": aps, "size_from": lo, "size_to": hi, "samples": c.samples, "correct": c.correct,
             "accuracy": round(c.correct / c.samples, 6), "top_n": c.top_n,
             "top_n_accuracy": round(c.top_n / c.samples, 6)}
            for (aps, (lo, hi)), c in acc.grid().items()]


def write_grid_csv(acc: Accuracy, path: str | os.PathLike) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=GRID_FIELDS)
        writer.writeheader()
        writer.writerows(grid_rows(acc))


def write_grid_png(acc: Accuracy, path: str | os.PathLike, title: str = "") -> bool:
    """A heatmap of top-1 accuracy (AP count x size); False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    grid = acc.grid()
    aps = sorted({a for a, _ in grid})
    buckets = sorted({b for _, b in grid})
    values = [[(grid[a, b].correct / grid[a, b].samples) if (a, b) in grid else float("nan") for b in buckets]
              for a in aps]
    fig, ax = plt.subplots(figsize=(1 + 0.6 * len(buckets), 1 + 0.45 * len(aps)))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
    ax.set_xticks(range(len(buckets)), [f"{lo}-{hi}" for lo, hi in buckets], rotation=45, ha="right")
    ax.set_yticks(range(len(aps)), [str(a) for a in aps])
    ax.set_xlabel("formula size")
    ax.set_ylabel("APs")
    ax.set_title(title or "accuracy")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def to_json(acc: Accuracy, alpha: AlphaCovariance | None, meta: dict[str, Any],
            paper_alpha: AlphaCovariance | None = None) -> dict[str, Any]:
    """`alpha_covariance`: per formula, over renamings of its own APs (or `--alpha-pool`);
    `alpha_covariance_paper`: the papers' way, renamings into the whole AP pool."""
    return {**meta, **acc.summary(), "grid": grid_rows(acc),
            "alpha_covariance": alpha.summary() if alpha is not None else None,
            "alpha_covariance_paper": paper_alpha.summary() if paper_alpha is not None else None}


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def render(console: Any, acc: Accuracy, alpha: AlphaCovariance | None, meta: dict[str, Any],
           paper_alpha: AlphaCovariance | None = None) -> None:
    """Summary, accuracy grid and alpha-covariance as rich tables on `console`."""
    from rich.table import Table

    s = acc.summary()
    head = Table(title=f"{meta.get('model', '')} on {meta.get('data', '')}", show_header=False)
    head.add_column(style="bold")
    head.add_column(justify="right")
    head.add_row("samples", str(s["samples"]))
    head.add_row("correct (best candidate verified)", _pct(s["correct"]))
    head.add_row(f"top-{acc.top} (one of {acc.top} verified)", _pct(s[f"top{acc.top}"]))
    head.add_row(f"exact match (of {s['exact_over']} labelled)", _pct(s["exact"]))
    head.add_row("invalid outputs", _pct(s["invalid"]))
    if alpha is not None and alpha.samples:
        head.add_row("alpha-covariance (mean)", _pct(alpha.mean))
    if paper_alpha is not None and paper_alpha.samples:
        head.add_row(f"alpha-covariance, papers' way ({paper_alpha.pool}-AP pool, mean)", _pct(paper_alpha.mean))
    if s["per_second"]:
        head.add_row("samples / s", f"{s['per_second']:.1f}")
    console.print(head)

    grid = acc.grid()
    buckets = sorted({b for _, b in grid})
    table = Table(title="accuracy by AP count (rows) and formula size (columns)")
    table.add_column("APs", justify="right", style="bold")
    for lo, hi in buckets:
        table.add_column(f"{lo}-{hi}", justify="right")
    table.add_column("all", justify="right", style="bold")
    for aps in sorted({a for a, _ in grid}):
        cells = [grid.get((aps, b)) for b in buckets]
        n = sum(c.samples for c in cells if c)
        k = sum(c.correct for c in cells if c)
        table.add_row(str(aps), *[f"{100 * c.correct / c.samples:.1f}" if c else "" for c in cells],
                      f"{100 * k / n:.1f}")
    console.print(table)

    for cov, title in ((alpha, "alpha-covariance"), (paper_alpha, "alpha-covariance, papers' way")):
        if cov is None or not cov.samples:
            continue
        t = Table(title=f"{title} ({'permutations' if not cov.pool else f'renamings into {cov.pool} AP slots'}, "
                        f"at most {cov.max_variants} variants a formula)")
        for name in ("APs", "formulas", "variants", "alpha-covariance", "fully invariant"):
            t.add_column(name, justify="right")
        for row in sorted(cov.rows.values(), key=lambda r: r.n_aps):
            t.add_row(str(row.n_aps), str(row.samples), str(row.variants), _pct(row.alpha),
                      _pct(row.invariant / row.samples))
        console.print(t)
