"""Two checkouts of ltlwit side by side: the cold `solve` time per formula of each on the same
ltl35 test formulas, measured in alternating rounds so that both see the same machine load.

    git worktree add /tmp/base 6bf0105
    python bench/versions.py /tmp/base .            # 3,000 formulas, 3 rounds, min per checkout
    python bench/versions.py /tmp/base . --formulas 10000 --rounds 5

Each checkout is timed in its own child process (`python -P`, the checkout first on sys.path),
so the two never share imports. Prints the mean milliseconds per formula of each checkout's
best round and their ratio. On a shared machine only the ratio is worth comparing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ltl35" / "test.txt.gz"

CHILD = """
import gzip, sys, time
sys.path.insert(0, sys.argv[1])
from ltlwit.logic.ltl import clear_caches, solve
from ltlwit.logic.syntax import parse_formula
formulas = []
with gzip.open(sys.argv[2], "rt") as f:
    for i, line in enumerate(f):
        if len(formulas) >= int(sys.argv[3]):
            break
        if i % 2 == 0:  # formula lines (the odd ones are their labels)
            formulas.append(parse_formula(line.strip(), "polish"))
start = time.perf_counter()
for formula in formulas:
    clear_caches()
    solve(formula)
print((time.perf_counter() - start) / len(formulas) * 1000)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs=2, type=Path, help="two repository roots (old, new)")
    parser.add_argument("--formulas", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best = {c: float("inf") for c in args.checkouts}
    for _ in range(args.rounds):
        for checkout in args.checkouts:
            out = subprocess.run(
                [sys.executable, "-P", "-c", CHILD, str(checkout.resolve()), str(DATA), str(args.formulas)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            best[checkout] = min(best[checkout], float(out))
    old, new = args.checkouts
    print(f"{old}: {best[old]:.3f} ms per formula (best of {args.rounds} rounds, {args.formulas} formulas)")
    print(f"{new}: {best[new]:.3f} ms per formula")
    print(f"ratio new/old: {best[new] / best[old]:.2f}")


if __name__ == "__main__":
    main()
