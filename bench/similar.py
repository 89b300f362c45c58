"""`ltlwit similar --top 5` on a requirement file of N specs (default 1,000), wall time and relations.

    python bench/similar.py                       # 1,000 specs over 40 propositions
    python bench/similar.py --specs 200 --keep f.spec
    python bench/similar.py --command "env PYTHONPATH=../old python -P -m ltlwit"
    python bench/similar.py --index --specs 20000 --queries 200    # a library in a faiss index

The file is drawn from requirement patterns (response, precedence, absence, invariance, bounded
response, until; Dwyer's), seeded, each spec over random propositions of a pool, with a tenth of
them restated (an equivalent spelling of the spec before it: `G(!p | F q)` for `G(p -> F q)`) so
that equivalences exist to be found. Prints the wall time, the relations found and how many
restatements have their original among their nearest, decided equivalent.

With --index, the specs are a library: `embed -F LIB --index DIR` builds its index (timed: the
fingerprints, formulas a second), then `similar --index DIR -F QUERIES --top K` looks up
--queries specs drawn with the next seed (timed: seconds a query, relations decided), and faiss's
scan alone is timed on a million random fingerprints, to say what a larger library costs.
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


#: Requirement patterns as engineers write them: a premise over inputs (p), responses over
#: outputs (q, r); each with a restatement, and some with a weaker version that they imply.
ROLES = [
    ("G({p} -> F {q})", "G(!{p} | F {q})", None),
    ("G({p} -> X {q})", "!F({p} & X !{q})", "G({p} -> F {q})"),
    ("G !({q} & {r})", "G(!{q} | !{r})", None),
    ("G({p} -> ({q} U {r}))", "!F({p} & !({q} U {r}))", "G({p} -> F {r})"),
    ("F {p} -> (!{q} U {p})", "G !{p} | (!{q} U {p})", None),
    ("G({p} -> {q})", "!F({p} & !{q})", "G({p} -> F {q})"),
    ("G({p} -> X X {q})", "G(!{p} | X X {q})", "G({p} -> F {q})"),
]


def draw_roles(n: int, names: int, seed: int) -> tuple[list[tuple[str, str]], set[int]]:
    """A requirement set (name, formula) over `names` inputs and as many outputs, and the
    places of the specs the others imply: a tenth restate the spec before them, a tenth weaken it."""
    rng = random.Random(seed)
    inputs, outputs = [f"i{k}" for k in range(names)], [f"o{k}" for k in range(names)]
    specs: list[tuple[str, str]] = []
    implied: set[int] = set()
    while len(specs) < n:
        plain, restated, weaker = rng.choice(ROLES)
        words = {"p": rng.choice(inputs), "q": rng.choice(outputs), "r": rng.choice(outputs)}
        if words["q"] == words["r"]:
            continue
        specs.append((f"r{len(specs)}", plain.format(**words)))
        draw = rng.random()
        extra = restated if draw < 0.1 else weaker if draw < 0.2 else None
        if extra is not None and len(specs) < n:
            implied.add(len(specs))
            specs.append((f"r{len(specs)}", extra.format(**words)))
    return specs, implied


def redundancy(args: argparse.Namespace) -> None:
    """--redundancy: `check --redundancy` on a requirement set drawn by `draw_roles`."""
    specs, implied = draw_roles(args.specs, args.names, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "reqs.spec"
        path.write_text("".join(f"{name}: {formula}\n" for name, formula in specs))
        if args.keep:
            Path(args.keep).write_text(path.read_text())
        start = time.perf_counter()
        done = subprocess.run(
            [*shlex.split(args.command), "check", "--redundancy", "--format", "json", str(path)],
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - start
    records = [json.loads(line) for line in done.stdout.splitlines()]
    states = collections.Counter(r["redundancy"] for r in records if r["kind"] == "spec")
    found = sum(
        1 for r in records if r["kind"] == "spec" and int(r["name"][1:]) in implied and r["redundancy"] == "redundant"
    )
    minimal = sum(1 for r in records if r["kind"] == "spec" and r["redundancy"] == "redundant" and r["core_minimal"])
    print(f"{len(specs)} specs, check --redundancy: {wall:.1f} s wall, exit {done.returncode}")
    print("redundancy: " + ", ".join(f"{k} {v}" for k, v in states.most_common()) + f" ({minimal} with a minimal set)")
    print(f"restated or weakened copies found redundant: {found} of {len(implied)}")
    if done.returncode not in (0, 1):
        print(done.stderr[-2000:], file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--specs", type=int, default=1000)
    ap.add_argument("--names", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--keep", help="also write the spec file here")
    ap.add_argument("--command", default=f"{sys.executable} -m ltlwit")
    ap.add_argument("--index", action="store_true", help="the specs a library in an index (module docstring)")
    ap.add_argument("--queries", type=int, default=100, help="with --index: specs looked up")
    ap.add_argument(
        "--redundancy", action="store_true", help="check --redundancy on a set drawn with roles (module docstring)"
    )
    args = ap.parse_args()
    if args.index:
        library(args)
        return
    if args.redundancy:
        redundancy(args)
        return
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


def library(args: argparse.Namespace) -> None:
    """--index: build an index of the drawn specs, look up others in it, time faiss's scan."""
    specs, _ = draw(args.specs, args.names, args.seed)
    queries, _ = draw(args.queries, args.names, args.seed + 1)
    command = shlex.split(args.command)
    with tempfile.TemporaryDirectory() as tmp:
        lib, asked, where = Path(tmp) / "lib.spec", Path(tmp) / "queries.spec", Path(tmp) / "idx"
        lib.write_text("".join(f"{name}: {formula}\n" for name, formula in specs))
        asked.write_text("".join(f"q{name[1:]}: {formula}\n" for name, formula in queries))
        start = time.perf_counter()
        built = subprocess.run(
            [*command, "embed", "-F", str(lib), "--index", str(where)], capture_output=True, text=True
        )
        build = time.perf_counter() - start
        size = sum(f.stat().st_size for f in where.iterdir())
        start = time.perf_counter()
        done = subprocess.run(
            [*command, "similar", "--index", str(where), "-F", str(asked), "--top", str(args.top), "--format", "json"],
            capture_output=True,
            text=True,
        )
        lookup = time.perf_counter() - start
    records = [json.loads(line) for line in done.stdout.splitlines()]
    relations = collections.Counter(n["relation"] for r in records for n in r["neighbours"])
    print(
        f"index of {len(specs)} specs: {build:.1f} s ({len(specs) / build:.0f} formulas/s), {size / 2**20:.1f} MiB, exit {built.returncode}"
    )
    print(
        f"{len(records)} queries, --top {args.top}: {lookup:.1f} s ({lookup / max(len(records), 1):.3f} s a query), exit {done.returncode}"
    )
    print("relations: " + ", ".join(f"{k} {v}" for k, v in relations.most_common()))
    for out in (built, done):
        if out.returncode not in (0, 1):
            print(out.stderr[-2000:], file=sys.stderr)
    import faiss
    import numpy as np

    codes = np.random.default_rng(args.seed).integers(0, 256, (1_000_000, 32), dtype=np.uint8)
    index = faiss.IndexBinaryFlat(256)
    index.add(codes)
    start = time.perf_counter()
    for q in range(100):
        index.search(codes[q : q + 1], args.top)
    scan = (time.perf_counter() - start) / 100
    print(f"faiss alone, one query over 1,000,000 fingerprints of 256 bits: {scan * 1000:.1f} ms (32 MB of codes)")


if __name__ == "__main__":
    main()
