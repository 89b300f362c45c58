"""`ltlwit similar --top 5` on a requirement file of N specs (default 1,000), wall time and relations.

    python bench/similar.py                       # 1,000 specs over 40 propositions
    python bench/similar.py --specs 200 --keep f.spec
    python bench/similar.py --command "env PYTHONPATH=../old python -P -m ltlwit"

The file is drawn from requirement patterns (response, precedence, absence, invariance, bounded
response, until; Dwyer's), seeded, each spec over random propositions of a pool, with a tenth of
them restated (an equivalent spelling of the spec before it: `G(!p | F q)` for `G(p -> F q)`) so
that equivalences exist to be found. Prints the wall time, the relations found and how many
restatements have their original among their nearest, decided equivalent.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PATTERNS = [
    ("G({p} -> F {q})", "G(!{p} | F {q})"),
    ("G({p} -> X {q})", "!F({p} & X !{q})"),
    ("G !({p} & {q})", "G(!{p} | !{q})"),
    ("G({p} -> ({q} U {r}))", "!F({p} & !({q} U {r}))"),
    ("F {p} -> (!{q} U {p})", "G !{p} | (!{q} U {p})"),
    ("G({p} -> {q})", "!F({p} & !{q})"),
    ("G F {p}", "!F G !{p}"),
    ("G({p} -> X X {q})", "G(!{p} | X X {q})"),
]


def draw(n: int, names: int, seed: int) -> tuple[list[tuple[str, str]], set[int]]:
    """The specs (name, formula), and the places of the restatements (each of the spec before it)."""
    rng = random.Random(seed)
    pool = [f"s{i}" for i in range(names)]
    specs: list[tuple[str, str]] = []
    restatements: set[int] = set()
    while len(specs) < n:
        plain, restated = rng.choice(PATTERNS)
        p, q, r = rng.sample(pool, 3)
        specs.append((f"r{len(specs)}", plain.format(p=p, q=q, r=r)))
        if rng.random() < 0.1 and len(specs) < n:
            restatements.add(len(specs))
            specs.append((f"r{len(specs)}", restated.format(p=p, q=q, r=r)))
    return specs, restatements


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", type=int, default=1000)
    ap.add_argument("--names", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--keep", help="also write the spec file here")
    ap.add_argument("--command", default=f"{sys.executable} -m ltlwit")
    args = ap.parse_args()
    specs, restatements = draw(args.specs, args.names, args.seed)
    text = "".join(f"{name}: {formula}\n" for name, formula in specs)
    if args.keep:
        Path(args.keep).write_text(text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reqs.spec"
        path.write_text(text)
        start = time.perf_counter()
        done = subprocess.run(
            [*shlex.split(args.command), "similar", "-F", str(path), "--top", str(args.top), "--format", "json"],
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
    records = [json.loads(line) for line in done.stdout.splitlines()]
    relations = collections.Counter(n["relation"] for r in records for n in r["neighbours"])
    near = {r["name"]: {n["name"]: n["relation"] for n in r["neighbours"]} for r in records}
    found = sum(1 for k in restatements if near.get(f"r{k}", {}).get(f"r{k - 1}") == "equivalent")
    print(f"{len(records)} specs, --top {args.top}: {wall:.1f} s wall, exit {done.returncode}")
    print("relations: " + ", ".join(f"{k} {v}" for k, v in relations.most_common()))
    print(f"restatements with their original among the nearest, decided equivalent: {found} of {len(restatements)}")
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)


if __name__ == "__main__":
    main()
