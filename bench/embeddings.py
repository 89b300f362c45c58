"""score_5 of the embeddings that need no training on unseen equivalence classes: the bar for learned ones.

    python bench/embeddings.py                         # LTL and prop, 1,000 classes each
    python bench/embeddings.py --logic ltl --classes 300 --seed 2
    python bench/embeddings.py --data classes.jsonl.gz # a file of `ltlwit data equiv`

The classes come from `ltlwit data equiv` (made here, seeded, unless --data names a file); the
queries are the formulas of the test split (classes never seen in training: the paper's
UnseenEqClass), the neighbours sought among them. Prints, per logic, the classes, formulas and
score_5 (%) of the bag of tokens and of the semantic fingerprint (`ltlwit.eval.embeddings`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time

from ltlwit.eval.embeddings import BASELINES, score_k
from ltlwit.logic.syntax import parse_formula
from ltlwit.train.equiv import EquivConfig, equivalence_classes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logic", choices=("prop", "ltl", "ltlf"), action="append")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--aps", type=int, help="APs (a, b, ...) [default: 3 for LTL, 5 for prop: 3 APs have 256 classes]")
    ap.add_argument("--max-size", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--data", help="a JSON Lines file of `ltlwit data equiv` instead")
    args = ap.parse_args()
    print(f"| logic | test classes | formulas | {' | '.join(BASELINES)} |")
    print("|---|---|---|" + "---|" * len(BASELINES))
    if args.data:
        opener = gzip.open if args.data.endswith(".gz") else open
        with opener(args.data, "rt") as f:
            rows = [json.loads(line) for line in f]
        by_logic: dict[str, list] = {}
        for r in rows:
            if r["split"] == "test":
                by_logic.setdefault(r["logic"], []).append([parse_formula(m, "infix") for m in r["members"]])
        for logic, classes in by_logic.items():
            _row(logic, classes, args.k)
        return
    for logic in args.logic or ["ltl", "prop"]:
        aps = args.aps or (5 if logic == "prop" else 3)
        config = EquivConfig(logic=logic, n_aps=aps, max_size=args.max_size, classes=args.classes, seed=args.seed)
        started = time.perf_counter()
        classes = [list(c.members) for c in equivalence_classes(config) if c.split == "test"]
        print(f"<!-- {logic}: classes made in {time.perf_counter() - started:.0f} s -->")
        _row(logic, classes, args.k)


def _row(logic: str, classes: list, k: int) -> None:
    formulas = [f for members in classes for f in members]
    labels = [n for n, members in enumerate(classes) for _ in members]
    semantics = "finite" if logic == "ltlf" else "infinite"
    scores = [score_k(embed(formulas, semantics), labels, k) for embed in BASELINES.values()]
    print(f"| {logic} | {len(classes)} | {len(formulas)} | " + " | ".join(f"{s:.1f}" for s in scores) + " |")


if __name__ == "__main__":
    main()
