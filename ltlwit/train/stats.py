"""`data stats`: how a data set is spread over AP counts and formula sizes, what its formulas
are made of and how long its labels are; and two data sets side by side (`compare`), which is
how `data generate`'s output is held against the Spot-made reference sets (ltl35, prop35).

The AP count is the number of distinct APs of the formula, the size its Polish token count
(`Formula.size`), the two axes of the papers' generalisation grids. Operator shares are over all
formula nodes (`ap` for every AP leaf). `X0` and `1U` are the shares of formulas holding a
subformula `X 0` or `1 U f`: what randltl's trivial-identity rewriting leaves of the constants.
Labels: tokens in DeepLTL's Polish layout, and for lasso traces the steps (prefix + cycle) and
cycle length, for partial assignments the number of APs set.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ltlwit.train.pairs import read_samples

FEATURES = ("X0", "1U", "constants")


@dataclass
class DataStats:
    path: str
    counts: Counter = field(default_factory=Counter)  # (n_aps, size) -> samples
    unlabelled: int = 0
    ops: Counter = field(default_factory=Counter)  # formula node operator -> nodes
    features: Counter = field(default_factory=Counter)  # FEATURES -> formulas
    label_tokens: int = 0
    traces: int = 0  # labels that are lasso traces
    steps: int = 0
    cycle: int = 0
    assignments: int = 0  # labels that are partial assignments
    assigned: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def labelled(self) -> int:
        return self.total - self.unlabelled

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

    def mean_size(self) -> float:
        return sum(s * n for s, n in self.by_size().items()) / self.total if self.total else 0.0

    def op_shares(self) -> dict[str, float]:
        nodes = sum(self.ops.values())
        return {op: n / nodes for op, n in sorted(self.ops.items())} if nodes else {}

    def labels(self) -> dict[str, float]:
        """Mean label figures over the labelled samples."""
        out = {"tokens": self.label_tokens / self.labelled if self.labelled else 0.0}
        if self.traces:
            out.update(steps=self.steps / self.traces, cycle=self.cycle / self.traces)
        if self.assignments:
            out.update(assigned=self.assigned / self.assignments)
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "samples": self.total,
            "unlabelled": self.unlabelled,
            "by_aps": {str(a): n for a, n in sorted(self.by_aps().items())},
            "by_size": {str(s): n for s, n in sorted(self.by_size().items())},
            "cells": [{"aps": a, "size": s, "count": n} for (a, s), n in sorted(self.counts.items())],
            "mean_size": self.mean_size(),
            "operators": self.op_shares(),
            "features": {k: self.features[k] / self.total if self.total else 0.0 for k in FEATURES},
            "labels": self.labels(),
        }


def _label_tokens(text: str, syntax: str) -> int:
    """Tokens of a label in DeepLTL's layout: one a character (single-letter APs, and labels
    use no multi-character operator); 0 for labels in other syntaxes (grids)."""
    return len(text) if syntax == "polish" else 0


def polish_size(text: str) -> int:
    """Tokens of a formula in DeepLTL's Polish (single-letter APs; `<->`, `xor`, `->` one token
    each), without parsing it."""
    return len(text) - 2 * (text.count("<->") + text.count("xor")) - (text.count("->") - text.count("<->"))


def size_histogram(path: str | os.PathLike) -> Counter:
    """Samples per formula size of a two-line file (fast: no parsing), e.g. for `data generate
    --size-shares`."""
    from ltlwit.train.pairs import iter_pairs

    return Counter(polish_size(f) for f, _ in iter_pairs(path))


def dataset_stats(path: str | os.PathLike, limit: int | None = None) -> DataStats:
    """Counts per (AP count, size), operators, features and label lengths of a two-line file or a
    JSON Lines grid (the first `limit` samples when given)."""
    from ltlwit.logic.syntax import ParseError, parse_assignment, parse_formula, parse_trace

    stats = DataStats(str(path))
    for i, sample in enumerate(read_samples(path)):
        if limit is not None and i >= limit:
            break
        try:
            formula = parse_formula(sample.formula, sample.formula_syntax)
        except ParseError as e:
            raise ValueError(f"{path}:{sample.line}: {e}") from None
        stats.counts[len(formula.aps()), formula.size] += 1
        found: set[str] = set()
        for node in formula.walk():
            stats.ops[node.op] += 1
            if node.op in ("0", "1"):
                found.add("constants")
            elif node.op == "X" and node.children[0].op == "0":
                found.add("X0")
            elif node.op == "U" and node.children[0].op == "1":
                found.add("1U")
        stats.features.update(found)
        if sample.label is None:
            stats.unlabelled += 1
            continue
        stats.label_tokens += _label_tokens(sample.label, sample.label_syntax)
        try:
            if ";" in sample.label or "{" in sample.label or "cycle" in sample.label:
                trace = parse_trace(sample.label, sample.label_syntax)
                stats.traces += 1
                stats.steps += len(trace.steps)
                stats.cycle += len(trace.cycle)
            else:
                stats.assigned += len(parse_assignment(sample.label, sample.label_syntax).values)
                stats.assignments += 1
        except ParseError as e:
            raise ValueError(f"{path}:{sample.line + 1}: {e}") from None
    return stats


def render_stats(console: Any, stats: DataStats) -> None:
    """Counts as a rich table: one row per size, one column per AP count, totals last."""
    from rich.table import Table

    aps = stats.ap_counts
    console.print(
        f"{stats.path}: {stats.total} samples by formula size (rows) and AP count (columns)",
        highlight=False,
        soft_wrap=True,
    )
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


def comparison_rows(a: DataStats, b: DataStats) -> list[tuple[str, str, str, str]]:
    """(measure, a, b, b - a) rows: shares in %, means as numbers."""
    rows: list[tuple[str, str, str, str]] = []

    def share(name: str, x: float, y: float) -> None:
        rows.append((name, f"{100 * x:.2f}", f"{100 * y:.2f}", f"{100 * (y - x):+.2f}"))

    def mean(name: str, x: float, y: float) -> None:
        rows.append((name, f"{x:.2f}", f"{y:.2f}", f"{y - x:+.2f}"))

    rows.append(("samples", str(a.total), str(b.total), ""))
    ta, tb = max(a.total, 1), max(b.total, 1)
    for k in sorted(set(a.by_aps()) | set(b.by_aps())):
        share(f"% {k} AP{'s' * (k != 1)}", a.by_aps()[k] / ta, b.by_aps()[k] / tb)
    mean("mean size", a.mean_size(), b.mean_size())
    sa, sb = a.by_size(), b.by_size()
    for k in sorted(set(sa) | set(sb)):
        share(f"% size {k}", sa[k] / ta, sb[k] / tb)
    oa, ob = a.op_shares(), b.op_shares()
    for op in sorted(set(oa) | set(ob)):
        share(f"% nodes {op}", oa.get(op, 0.0), ob.get(op, 0.0))
    for feature in FEATURES:
        share(f"% formulas with {feature}", a.features[feature] / ta, b.features[feature] / tb)
    la, lb = a.labels(), b.labels()
    for key in ("tokens", "steps", "cycle", "assigned"):
        if key in la or key in lb:
            mean(f"mean label {key}", la.get(key, 0.0), lb.get(key, 0.0))
    return rows


def render_comparison(console: Any, a: DataStats, b: DataStats) -> None:
    from rich.table import Table

    table = Table(title="data sets side by side (shares in %)")
    table.add_column("measure", style="bold")
    for name in (a.path, b.path):
        table.add_column(name, justify="right")
    table.add_column("difference", justify="right")
    for row in comparison_rows(a, b):
        table.add_row(*row)
    console.print(table)
