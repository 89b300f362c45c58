"""Evaluation results for people (rich tables), spreadsheets (CSV grid), error analysis (one
JSON line per sample) and machines (one JSON object); the pictures are in `ltlwit.eval.plots`."""

from __future__ import annotations

import csv
import os
from typing import Any, Sequence

from ltlwit.eval.alpha import AlphaCovariance
from ltlwit.eval.metrics import Accuracy, Judgement, Sample
from ltlwit.logic.rename import Renaming
from ltlwit.logic.witness import Invalid, Prediction, invert

GRID_FIELDS = ("aps", "size_from", "size_to", "samples", "correct", "accuracy", "top_n", "top_n_accuracy")


def grid_rows(acc: Accuracy) -> list[dict[str, Any]]:
    return [
        {
            "aps": aps,
            "size_from": lo,
            "size_to": hi,
            "samples": c.samples,
            "correct": c.correct,
            "accuracy": round(c.correct / c.samples, 6),
            "top_n": c.top_n,
            "top_n_accuracy": round(c.top_n / c.samples, 6),
        }
        for (aps, (lo, hi)), c in acc.grid().items()
    ]


def write_grid_csv(acc: Accuracy, path: str | os.PathLike) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=GRID_FIELDS)
        writer.writeheader()
        writer.writerows(grid_rows(acc))


def prediction_record(
    sample: Sample, renaming: Renaming, candidates: Sequence[Prediction], verdict: Judgement
) -> dict[str, Any]:
    """One line of `eval --predictions`: the sample as the data file has it and the model's
    candidates renamed back to the formula's own APs, each with its verdict, so that errors
    can be read and grouped without running the model again."""
    return {
        "line": sample.line,
        "formula": sample.formula.to_str(),
        "label": sample.label.to_str() if sample.label is not None else None,
        "asked": renaming.apply(sample.formula).to_str(),
        "aps": verdict.n_aps,
        "size": verdict.size,
        "candidates": [_candidate(renaming, c, ok) for c, ok in zip(candidates, verdict.verified)],
        "correct": verdict.correct,
        "rank": verdict.rank,
        "exact": verdict.exact,
        "invalid": verdict.invalid,
    }


def _candidate(renaming: Renaming, prediction: Prediction, verified: bool) -> dict[str, Any]:
    """The candidate in the formula's own APs; one naming an AP slot the formula lacks has no
    such form, so it is given as the model wrote it, over the slots of `asked`."""
    back = invert(renaming, prediction)
    if isinstance(back, Invalid) and not isinstance(prediction, Invalid):
        return {"witness": None, "output": prediction.to_str(), "verified": verified}
    return {"witness": _text(back), "verified": verified}


def _text(prediction: Prediction) -> str:
    return " ".join(prediction.tokens) if isinstance(prediction, Invalid) else prediction.to_str()


def to_json(
    acc: Accuracy, alpha: AlphaCovariance | None, meta: dict[str, Any], paper_alpha: AlphaCovariance | None = None
) -> dict[str, Any]:
    """`alpha_covariance`: per formula, over renamings of its own APs (or `--alpha-pool`);
    `alpha_covariance_paper`: the papers' way, renamings into the whole AP pool."""
    return {
        **meta,
        **acc.summary(),
        "grid": grid_rows(acc),
        "alpha_covariance": alpha.summary() if alpha is not None else None,
        "alpha_covariance_paper": paper_alpha.summary() if paper_alpha is not None else None,
    }


def timings(
    acc: Accuracy, alpha: AlphaCovariance | None, paper_alpha: AlphaCovariance | None, meta: dict[str, Any]
) -> list[tuple[str, str]]:
    """Where the time went: a rate of the accuracy pass alone hides the alpha-covariance copies,
    which can be most of a run."""
    rows = [
        (
            "time, accuracy",
            f"{acc.seconds:.1f} s ({acc.samples / acc.seconds:.1f} formulas/s)"
            if acc.seconds
            else f"{acc.seconds:.1f} s",
        )
    ]
    for cov, what in ((alpha, "time, alpha-covariance"), (paper_alpha, "time, papers' way")):
        if cov is not None and cov.samples:
            inputs = sum(r.variants for r in cov.rows.values())
            rows.append((what, f"{cov.seconds:.1f} s ({inputs} renamed copies)"))
    if "wall_seconds" in meta:
        rows.append(("wall time (model loading included)", f"{meta['wall_seconds']:.1f} s"))
    return rows


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def render(
    console: Any,
    acc: Accuracy,
    alpha: AlphaCovariance | None,
    meta: dict[str, Any],
    paper_alpha: AlphaCovariance | None = None,
) -> None:
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
    for text in timings(acc, alpha, paper_alpha, meta):
        head.add_row(*text)
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
        table.add_row(
            str(aps), *[f"{100 * c.correct / c.samples:.1f}" if c else "" for c in cells], f"{100 * k / n:.1f}"
        )
    console.print(table)

    for cov, title in ((alpha, "alpha-covariance"), (paper_alpha, "alpha-covariance, papers' way")):
        if cov is None or not cov.samples:
            continue
        t = Table(
            title=f"{title} ({'permutations' if not cov.pool else f'renamings into {cov.pool} AP slots'}, "
            f"at most {cov.max_variants} variants a formula)"
        )
        for name in ("APs", "formulas", "variants", "alpha-covariance", "fully invariant"):
            t.add_column(name, justify="right")
        for row in sorted(cov.rows.values(), key=lambda r: r.n_aps):
            t.add_row(
                str(row.n_aps), str(row.samples), str(row.variants), _pct(row.alpha), _pct(row.invariant / row.samples)
            )
        console.print(t)
