"""Fit the generator's operator priorities so that labelled formulas look like a reference set's.

    python bench/fit_alphabet.py --task ltl      # -> PRIORITIES["ltl35-matched"] in ltlwit/train/generate.py
    python bench/fit_alphabet.py --task prop     # -> PRIORITIES["prop-matched"]

Spot's randltl simplifies whole random trees (they shrink to about 45%) and DeepLTL gates the
size that remains; ltlwit's generator instead redraws any node one of Spot's trivial identities
would rewrite, which keeps sizes exact and costs well under a millisecond a formula, but shifts
the operator mix (more `X` and `!`, fewer `U`, APs and `1` with randltl's own priorities). This
script measures the share of every node kind (each operator, constants, AP leaves) over labelled
formulas of sizes 7..35 (where sizes are uniform in both sets and none is exhausted) and
multiplies each priority by (reference share / our share)^0.8 until they agree, starting from
randltl's priorities. Seeded, so it prints the same numbers every time.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltlwit.logic.syntax import parse_formula  # noqa: E402
from ltlwit.train.generate import PRIORITIES, RandomFormulas  # noqa: E402
from ltlwit.train.label import label  # noqa: E402
from ltlwit.train.pairs import iter_pairs  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def shares(formulas) -> dict[str, float]:
    nodes: Counter = Counter()
    for f in formulas:
        nodes.update(node.op for node in f.walk())
    total = sum(nodes.values())
    return {op: n / total for op, n in nodes.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--task", choices=["ltl", "prop"], required=True)
    p.add_argument("--samples", type=int, default=6000, help="labelled formulas per iteration")
    p.add_argument("--reference", type=int, default=60000, help="reference samples read")
    p.add_argument("--iterations", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    start = "ltl35" if a.task == "ltl" else "prop"
    ref_path = DATA / f"{a.task}35" / "train.txt.gz"
    reference = [
        f
        for f in (parse_formula(t, "polish") for t, _ in itertools.islice(iter_pairs(ref_path), a.reference))
        if f.size >= 7
    ]
    target = shares(reference)
    weights = dict(PRIORITIES[start])
    rng = random.Random(a.seed)
    for it in range(a.iterations + 1):
        gen = RandomFormulas(5, weights)
        drawn = []
        while len(drawn) < a.samples:
            f = gen.normal_formula(rng.randint(7, 35), rng)
            if f is not None and label(a.task, f, 0.5) is not None:
                drawn.append(f)
        ours = shares(drawn)
        worst = max(abs(ours.get(k, 0) - v) for k, v in target.items())
        print(
            f"iteration {it}: largest share difference {100 * worst:.2f} points; "
            + "  ".join(f"{k} {100 * ours.get(k, 0):.2f}/{100 * v:.2f}" for k, v in sorted(target.items())),
            flush=True,
        )
        if it == a.iterations:
            break
        for op in weights:
            key = "ap" if op == "ap" else op
            if weights[op] > 0 and target.get(key, 0) > 0 and ours.get(key, 0) > 0:
                weights[op] *= (target[key] / ours[key]) ** 0.8
        norm = weights["ap"] / PRIORITIES[start]["ap"]  # keep `ap` at randltl's 3: only ratios matter
        weights = {k: v / norm for k, v in weights.items()}
    print("{" + ", ".join(f'"{k}": {round(v, 3)}' for k, v in weights.items()) + "}")


if __name__ == "__main__":
    main()
