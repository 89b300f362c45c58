"""Benchmark of the validators: milliseconds per check, builtin against aiger.

    python bench/validators.py                # 300 formulas of ../shared/data/ltl35/test.txt.gz
    python bench/validators.py --limit 1000

For each formula (all satisfiable) it checks two witnesses with every validator: the engine's
own (`ltlwit.logic.ltl.solve`) and the set's Spot label. The builtin checker's caches are
cleared before each of its checks (`clear_caches`), as in bench/engine.py, so that the label
and evaluator `solve` left behind do not answer for it; the aiger validator keeps nothing
between calls. Prints median and p99 per validator and witness kind, how many verdicts were
"valid" only up to the aiger validator's bounded search (`Validation.exact` False), and the
disagreements (there must be none: every witness holds).
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from pathlib import Path
from typing import Iterable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ltlwit.logic.ltl import Budget, clear_caches, solve  # noqa: E402
from ltlwit.logic.result import Sat  # noqa: E402
from ltlwit.logic.syntax import parse_formula, parse_trace  # noqa: E402
from ltlwit.logic.validators import VALIDATORS, Validation  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
NAMES = ("builtin", "aiger")


def quantile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] * 1000


def main(argv: Iterable[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=300, help="first N formulas of the test set")
    args = ap.parse_args(argv)
    with gzip.open(DATA / "ltl35" / "test.txt.gz", "rt") as fh:
        lines = fh.read().split("\n")
    pairs = list(zip(lines[0::2], lines[1::2]))[: args.limit]
    VALIDATORS["aiger"](parse_formula("a"), parse_trace("cycle{a}"))  # py-aiger's imports, before any clock
    times: dict[tuple[str, str], list[float]] = {(n, k): [] for n in NAMES for k in ("own", "label")}
    bounded = wrong = 0
    print("load average %.2f %.2f %.2f" % os.getloadavg(), f"(cores: {os.cpu_count()})")
    for ftext, ttext in pairs:
        formula = parse_formula(ftext, "polish")
        result = solve(formula, Budget(seconds=10))
        witnesses = {"label": parse_trace(ttext)}
        if isinstance(result, Sat):
            witnesses["own"] = result.witness
        for kind, witness in witnesses.items():
            for name in NAMES:
                clear_caches()
                start = time.perf_counter()
                verdict: Validation = VALIDATORS[name](formula, witness, "infinite")
                times[name, kind].append(time.perf_counter() - start)
                wrong += not verdict.valid
                bounded += not verdict.exact
    print(f"ltl35 test, {len(pairs)} formulas; wrong verdicts: {wrong}; aiger 'valid' within its bound only: {bounded}")
    print(f"{'validator':<10}{'witness':<9}{'n':>6}{'median ms':>11}{'p99 ms':>9}")
    for (name, kind), xs in times.items():
        print(f"{name:<10}{kind:<9}{len(xs):>6}{quantile(xs, 0.5):>11.2f}{quantile(xs, 0.99):>9.2f}")
    print("load average %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
