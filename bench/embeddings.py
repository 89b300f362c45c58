"""score_5 of embeddings on unseen equivalence classes: those that need no training (the bar), and trained ones.

    python bench/embeddings.py                         # LTL and prop, 1,000 classes each
    python bench/embeddings.py --logic ltl --classes 300 --seed 2
    python bench/embeddings.py --data classes.jsonl.gz # a file of `ltlwit data equiv`
    python bench/embeddings.py --data classes.jsonl.gz --model runs/e/model.pt --model runs/a/model.pt --beam 1 10

With --model (an ExpEmb model, `ltlwit train --arch expemb-e|expemb-a`), a column of its score_5,
and with --beam its rewriting accuracy on the test formulas (the paper's Table 2: some output of
the beam proved equivalent and not the input for ExpEmb-E, the input itself for ExpEmb-A) and
the share of its outputs that are no formula.

The classes come from `ltlwit data equiv` (made here, seeded, unless --data names a file); the
queries are the formulas of the test split (classes never seen in training: the paper's
UnseenEqClass), the neighbours sought among them. Prints, per logic, the classes, formulas and
score_5 (%) of the bag of tokens and of the semantic fingerprint (`ltlwit.eval.embeddings`).
"""

from __future__ import annotations

import argparse
import time

from ltlwit.eval.embeddings import BASELINES, learned, rewriting_accuracy, score_k
from ltlwit.train.equiv import EquivConfig, equivalence_classes, read_classes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logic", choices=("prop", "ltl", "ltlf"), action="append")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--aps", type=int, help="APs (a, b, ...) [default: 3 for LTL, 5 for prop: 3 APs have 256 classes]")
    ap.add_argument("--max-size", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--data", help="a JSON Lines file of `ltlwit data equiv` instead")
    ap.add_argument("--model", action="append", default=[], help="a trained embedding model (name or weights file)")
    ap.add_argument("--beam", type=int, nargs="*", default=[], help="beam widths for the rewriting accuracy")
    args = ap.parse_args()
    embeddings = dict(BASELINES, **{m: learned(m) for m in args.model})
    print(f"| logic | test classes | formulas | {' | '.join(embeddings)} |")
    print("|---|---|---|" + "---|" * len(embeddings))
    if args.data:
        by_logic: dict[str, list] = {}
        for logic, found in read_classes(args.data):
            if found.split == "test":
                by_logic.setdefault(logic, []).append(list(found.members))
        for logic, classes in by_logic.items():
            _row(logic, classes, args.k, embeddings)
        for logic, classes in by_logic.items():
            _rewriting(logic, classes, args.model, args.beam)
        return
    for logic in args.logic or ["ltl", "prop"]:
        aps = args.aps or (5 if logic == "prop" else 3)
        config = EquivConfig(logic=logic, n_aps=aps, max_size=args.max_size, classes=args.classes, seed=args.seed)
        started = time.perf_counter()
        classes = [list(c.members) for c in equivalence_classes(config) if c.split == "test"]
        print(f"<!-- {logic}: classes made in {time.perf_counter() - started:.0f} s -->")
        _row(logic, classes, args.k, embeddings)
        _rewriting(logic, classes, args.model, args.beam)


def _row(logic: str, classes: list, k: int, embeddings: dict) -> None:
    formulas = [f for members in classes for f in members]
    labels = [n for n, members in enumerate(classes) for _ in members]
    semantics = "finite" if logic == "ltlf" else "infinite"
    scores = [score_k(embed(formulas, semantics), labels, k) for embed in embeddings.values()]
    print(f"| {logic} | {len(classes)} | {len(formulas)} | " + " | ".join(f"{s:.1f}" for s in scores) + " |")


def _rewriting(logic: str, classes: list, models: list[str], beams: list[int]) -> None:
    formulas = [f for members in classes for f in members]
    semantics = "finite" if logic == "ltlf" else "infinite"
    for model in models:
        for beam in beams:
            right, malformed = rewriting_accuracy(model, formulas, beam, semantics)
            print(f"<!-- {logic} {model} beam {beam}: {right:.1f}% right, {malformed:.1f}% of outputs no formula -->")


if __name__ == "__main__":
    main()
