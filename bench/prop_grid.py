"""Build the propositional generalisation grid that `ltlwit eval` scores the prop models on.

The LTL side has Spot's 10-AP grid in ../shared/data; for propositional formulas ltlwit makes
its own, the same shape: for every AP count k in 1..10 and size in 1..50, up to PER_CELL
formulas over *exactly* k APs (a..), drawn with the prop35 operator priorities and labelled by
ltlwit's SAT path (subset-minimal partial assignment; unsat formulas and tautologies dropped).
Deterministic for a given seed:

    python bench/prop_grid.py bench/data/prop-grid10.txt.gz   # --per-cell 2 --seed 10
"""

from __future__ import annotations

import argparse
import gzip
import random

from ltlwit.train.generate import RandomFormulas
from ltlwit.train.label import label


def build(per_cell: int, seed: int, max_aps: int = 10, max_size: int = 50, tries: int = 400) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    samples: list[tuple[str, str]] = []
    seen: set[str] = set()
    for k in range(1, max_aps + 1):
        gen = RandomFormulas(k, "prop")
        for size in range(1, max_size + 1):
            if not gen.feasible(size):
                continue
            got = 0
            for _ in range(tries):
                if got == per_cell:
                    break
                f = gen.formula(size, rng)
                text = f.to_str("polish")
                if len(f.aps()) != k or text in seen:
                    continue
                answer = label("prop", f)
                if answer is None:
                    continue
                seen.add(text)
                samples.append((text, answer))
                got += 1
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output")
    parser.add_argument("--per-cell", type=int, default=2)
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()
    samples = build(args.per_cell, args.seed)
    opener = gzip.open if args.output.endswith(".gz") else open
    with opener(args.output, "wt", encoding="utf-8") as fh:
        for formula, answer in samples:
            fh.write(f"{formula}\n{answer}\n")
    print(f"{args.output}: {len(samples)} samples")


if __name__ == "__main__":
    main()
