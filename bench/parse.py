"""Parse speed of the infix reader on BLACK's multi-megabyte tdllite specifications.

Each tree given (a checkout: its `ltlwit` package is imported with PYTHONPATH) parses every
formula of the slice in its own process, `--repeat` times, the processes of the trees
alternating so that both meet the same machine load; per formula the least time is kept (CPU
time of the process, and wall time). Printed: seconds per MB (median over the formulas, and
over all bytes), per tree, and each tree's ratio to the first.

    python bench/parse.py --trees /tmp/base . --repeat 3
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "black" / "tdllite-tuning.jsonl.gz"

#: What each process runs: parse every formula once, print [cpu s, wall s, MB] per formula.
WORKER = """
import gzip, json, sys, time
from ltlwit.logic.syntax import parse_formula
rows = [json.loads(line) for line in gzip.open(sys.argv[1], "rt")]
out = []
for row in rows[int(sys.argv[2]):int(sys.argv[3])]:
    text = row["formula"]
    cpu, wall = time.process_time(), time.perf_counter()
    formula = parse_formula(text, "spot")
    out.append([time.process_time() - cpu, time.perf_counter() - wall, len(text.encode()) / 1e6])
    del formula
print(json.dumps(out))
"""


def run(tree: str, first: int, last: int) -> list[list[float]]:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    done = subprocess.run(
        [sys.executable, "-P", "-c", WORKER, str(DATA), str(first), str(last)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", nargs="+", default=["."], help="checkouts to compare (the first is the baseline)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per tree, alternating (least time kept)")
    ap.add_argument("--limit", type=int, default=None, help="the first N formulas of the slice only")
    args = ap.parse_args()
    n = sum(1 for _ in gzip.open(DATA, "rt"))
    last = min(n, args.limit or n)
    best: dict[str, list[list[float]]] = {}
    for _ in range(args.repeat):
        for tree in args.trees:
            got = run(tree, 0, last)
            mine = best.setdefault(tree, got)
            for i, (cpu, wall, mb) in enumerate(got):
                mine[i] = [min(mine[i][0], cpu), min(mine[i][1], wall), mb]
    base = None
    print(f"{last} formulas, {sum(r[2] for r in next(iter(best.values()))):.1f} MB, least of {args.repeat} runs")
    print(f"{'tree':30} {'cpu s/MB median':>16} {'cpu s/MB all':>13} {'wall s/MB all':>14} {'ratio':>6}")
    for tree, rows in best.items():
        mb = sum(r[2] for r in rows)
        median = statistics.median(r[0] / r[2] for r in rows)
        total = sum(r[0] for r in rows) / mb
        wall = sum(r[1] for r in rows) / mb
        base = base or total
        print(f"{tree:30} {median:16.3f} {total:13.3f} {wall:14.3f} {total / base:6.2f}")


if __name__ == "__main__":
    main()
