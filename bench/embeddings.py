"""score_5 of embeddings on unseen equivalence classes: those that need no training (the bar), and trained ones.

    python bench/embeddings.py                         # LTL and prop, 1,000 classes each
    python bench/embeddings.py --logic ltl --classes 300 --seed 2
    python bench/embeddings.py --source random         # classes of random formulas the engine groups
    python bench/embeddings.py --data classes.jsonl.gz # a file of `ltlwit data equiv`
    python bench/embeddings.py --data classes.jsonl.gz --model runs/e/model.pt --model runs/a/model.pt --beam 1 10
    python bench/embeddings.py --data classes.jsonl.gz --model runs/e/model.pt --closest --analogies

With --model (an ExpEmb model, `ltlwit train --arch expemb-e|expemb-a`), a column of its score_5,
and with --beam its rewriting accuracy on the test formulas (the paper's Table 2: some output of
the beam proved equivalent and not the input for ExpEmb-E, the input itself for ExpEmb-A) and
the share of its outputs that are no formula. --closest prints the paper's Table 3 (the five
test formulas nearest to a few queries, per embedding), --analogies its Table 4 (a : b :: c : ?
answered by the test formula nearest to b - a + c, right when the engine proves it equivalent to
the expected one; `ltlwit.eval.embeddings.ANALOGIES`).

The classes come from `ltlwit data equiv` (made here, seeded, unless --data names a file); the
queries are the formulas of the test split (classes never seen in training: the paper's
UnseenEqClass), the neighbours sought among them. Prints, per logic, the classes, formulas and
score_5 (%) of the bag of tokens and of the semantic fingerprint (`ltlwit.eval.embeddings`).
"""

from __future__ import annotations

import argparse
import time

from ltlwit.eval.embeddings import ANALOGIES, BASELINES, analogies, learned, nearest, rewriting_accuracy, score_k
from ltlwit.logic.syntax import parse_formula
from ltlwit.train.equiv import SOURCES, EquivConfig, equivalence_classes, read_classes

#: The queries of --closest, per logic.
QUERIES = {"ltl": ["G(a -> F b)", "a U (b & c)", "F G a"], "prop": ["a & (b | c)", "!(a -> b)", "a <-> b"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logic", choices=("prop", "ltl", "ltlf"), action="append")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--aps", type=int, help="APs (a, b, ...) [default: 3 for LTL, 5 for prop: 3 APs have 256 classes]")
    ap.add_argument("--max-size", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--source", choices=SOURCES, default="identities", help="where the members come from")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--data", help="a JSON Lines file of `ltlwit data equiv` instead")
    ap.add_argument("--model", action="append", default=[], help="a trained embedding model (name or weights file)")
    ap.add_argument("--beam", type=int, nargs="*", default=[], help="beam widths for the rewriting accuracy")
    ap.add_argument("--closest", action="store_true", help="the five closest test formulas to a few queries")
    ap.add_argument("--analogies", action="store_true", help="analogies by vector arithmetic")
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
            _tables(logic, classes, embeddings, args)
        return
    for logic in args.logic or ["ltl", "prop"]:
        aps = args.aps or (5 if logic == "prop" else 3)
        config = EquivConfig(
            logic=logic, n_aps=aps, max_size=args.max_size, classes=args.classes, seed=args.seed, source=args.source
        )
        started = time.perf_counter()
        classes = [list(c.members) for c in equivalence_classes(config) if c.split == "test"]
        print(f"<!-- {logic}: classes made in {time.perf_counter() - started:.0f} s -->")
        _row(logic, classes, args.k, embeddings)
        _rewriting(logic, classes, args.model, args.beam)
        _tables(logic, classes, embeddings, args)


def _tables(logic: str, classes: list, embeddings: dict, args: argparse.Namespace) -> None:
    """--closest and --analogies for one logic's test formulas."""
    pool = [f for members in classes for f in members]
    semantics = "finite" if logic == "ltlf" else "infinite"
    if args.closest:
        print(f"\n| {logic} query | embedding | the five closest test formulas |\n|---|---|---|")
        for text in QUERIES.get(logic, QUERIES["ltl"]):
            query = parse_formula(text)
            for name, embed in embeddings.items():
                vectors = embed([*pool, query], semantics)
                found = nearest(vectors[:-1], vectors[-1], 5)
                print(f"| `{text}` | {name} | " + ", ".join(f"`{pool[i]}`" for i in found) + " |")
    if args.analogies:
        quads = [tuple(parse_formula(t) for t in quad) for quad in ANALOGIES.get(logic, ANALOGIES["ltl"])]
        answers = {name: analogies(embed, pool, quads, semantics) for name, embed in embeddings.items()}
        print(f"\n| {logic}: a : b :: c : d | " + " | ".join(answers) + " |\n|---|" + "---|" * len(answers))
        for k, (a, b, c, d) in enumerate(quads):
            cells = [f"`{found}`" + (" ✓" if right else "") for found, right in (answers[n][k] for n in answers)]
            print(f"| `{a}` : `{b}` :: `{c}` : `{d}` | " + " | ".join(cells) + " |")
        print("| right | " + " | ".join(f"{sum(r for _, r in answers[n])} of {len(quads)}" for n in answers) + " |")


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
