"""`data stats`: how a data set is spread over AP counts and formula sizes.

The AP count is the number of distinct APs of the formula, the size its Polish token count
(`Formula.size`), the two axes of the papers' generalisation grids.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ltlwit.train.pairs import read_samples


@dataclass
class DataStats:
    path: str
    counts: Counter = field(default_factory=Counter)  # (n_aps, size) -> samples
    unlabelled: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def ap_counts(self) -> list[int]:
        return sorted({a for a, _ in self.counts})

    @property
    def sizes(self) -> list[int]:
        return sorted({s for _, s in self.counts})

    def by_aps(self) -> Counter:
        out: Counter = Counter()
        for (a, _), n in self.counts.items():
            out[a] += n
        return out

    def by_size(self) -> Counter:
        out: Counter = Counter()
        for (_, s), n in self.counts.items():
            out[s] += n
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "samples": self.total,
            "unlabelled": self.unlabelled,
            "by_aps": {str(a): n for a, n in sorted(self.by_aps().items())},
            "by_size": {str(s): n for s, n in sorted(self.by_size().items())},
            "cells": [{"aps": a, "size": s, "count": n} for (a, s), n in sorted(self.counts.items())],
        }


def dataset_stats(path: str | os.PathLike) -> DataStats:
    """Counts per (AP count, size) of a two-line file or a JSON Lines grid."""
    from ltlwit.logic.syntax import ParseError, parse_formula

    stats = DataStats(str(path))
    for sample in read_samples(path):
        try:
            formula = parse_formula(sample.formula, sample.formula_syntax)
        except ParseError as e:
            raise ValueError(f"{path}:{sample.line}: {e}") from None
        stats.counts[len(formula.aps()), formula.size] += 1
        if sample.label is None:
            stats.unlabelled += 1
    return stats


def render_stats(console: Any, stats: DataStats) -> None:
    """Counts as a rich table: one row per size, one column per AP count, totals last."""
    from rich.table import Table

    aps = stats.ap_counts
    console.print(f"{stats.path}: {stats.total} samples by formula size (rows) and AP count (columns)",
                  highlight=False, soft_wrap=True)
    table = Table()
    table.add_column("size", justify="right", style="bold")
    for a in aps:
        table.add_column(f"{a} AP" if a == 1 else f"{a} APs", justify="right")
    table.add_column("all", justify="right", style="bold")
    for size in stats.sizes:
        row = [stats.counts.get((a, size), 0) for a in aps]
        table.add_row(str(size), *[str(n) if n else "" for n in row], str(sum(row)))
    by_aps = stats.by_aps()
    table.add_row("all", *[str(by_aps[a]) for a in aps], str(stats.total), style="bold")
    console.print(table)
    if stats.unlabelled:
        console.print(f"{stats.unlabelled} samples have no label")
