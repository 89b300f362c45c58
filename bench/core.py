"""Unsat cores on BLACK's suite: `ltlwit solve --core` on the unsatisfiable formulas, each in its
own process (bench/black.py's runner), against the targets.

    python bench/core.py --results black.jsonl                  # the formulas a black.py run proved unsat
    python bench/core.py --results black.jsonl --sample 5       # 5 per family
    python bench/core.py --results black.jsonl --timeout 60 --out cores.jsonl
    python bench/core.py --results black.jsonl --sample 5 --fine   # --fine-core: subformulas too

`--results` is the `--out` file of a `bench/black.py` run (future suite): the formulas it answered
unsat within `--within` seconds (10) are asked again with `--core --timeout T` (60). Per family
it prints how many got a core, how many a proven-minimal one within T, the median time, and the
distribution of core size against conjunct count; then whether at least 90% got a proven
minimal core. Every core is checked here too: its members must be a subset of the formula's
conjuncts and, when minimal, carry a witness each. With `--fine` (`--fine-core`), also how much
of the core's members the fine core keeps: the share of their nodes not weakened to a constant.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from black import DATA, command, load, run_one  # noqa: E402

TARGET = 0.9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True, help="a bench/black.py --out file (future suite)")
    ap.add_argument("--within", type=float, default=10.0, help="unsat answers within this many seconds")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--sample", type=int, help="at most this many formulas per family")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--command", help="the program to run instead of `ltlwit`")
    ap.add_argument("--out", help="write one JSON line per formula here")
    ap.add_argument("--fine", action="store_true", help="ask for the fine core (--fine-core)")
    args = ap.parse_args()

    proved = {
        r["name"] for r in map(json.loads, open(args.results)) if r["status"] == "unsat" and r["wall"] <= args.within
    }
    rows = [r for r in load(DATA, None, None, None, args.seed) if r["name"] in proved]
    if args.sample:
        rng = random.Random(args.seed)
        by_family: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            by_family[r["family"]].append(r)
        rows = [
            r
            for family in sorted(by_family)
            for r in (
                by_family[family]
                if len(by_family[family]) <= args.sample
                else rng.sample(by_family[family], args.sample)
            )
        ]
    cmd = command(args.timeout, ["--fine-core" if args.fine else "--core"], args.command)

    def one(row: dict) -> dict:
        result = run_one(row, cmd, args.timeout, 5.0, keep=("core", "core_minimal"))
        result["conjuncts"] = _conjuncts(row["formula"])
        core = result["core"] or []
        if args.fine and core:
            result["kept"] = _kept(core)
        result["bad"] = bool(core) and (
            any(not 1 <= m["conjunct"] <= result["conjuncts"] for m in core)
            or result["core_minimal"]
            and any(m["witness"] is None for m in core)
        )
        return result

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, rows))
    if args.out:
        with open(args.out, "w") as fh:
            for r in results:
                fh.write(json.dumps(r) + "\n")
    report(results, args)


def _conjuncts(text: str) -> int:
    from ltlwit.logic.core import top_conjuncts
    from ltlwit.logic.syntax import parse_formula

    return len(top_conjuncts(parse_formula(text, "spot")))


def _kept(core: list[dict]) -> float:
    """The share of the core members' nodes (constants aside) that the fine core keeps."""
    from ltlwit.logic.syntax import parse_formula

    def nodes(text: str) -> int:
        return sum(1 for n in parse_formula(text, "spot").walk() if not n.is_constant)

    return sum(nodes(m["fine"]) for m in core) / sum(nodes(m["formula"]) for m in core)


def report(results: list[dict], args: argparse.Namespace) -> None:
    by_family: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_family[r["family"]].append(r)
    print(f"{'family':10} {'n':>5} {'core':>5} {'minimal':>8} {'median s':>9} {'conjuncts':>10} {'core size':>10}")
    for family, rs in sorted(by_family.items()):
        cored = [r for r in rs if r["core"]]
        minimal = [r for r in cored if r["core_minimal"]]
        median = statistics.median(r["wall"] for r in rs) if rs else 0.0
        conj = statistics.median(r["conjuncts"] for r in rs) if rs else 0
        size = statistics.median(len(r["core"]) for r in cored) if cored else 0
        print(f"{family:10} {len(rs):>5} {len(cored):>5} {len(minimal):>8} {median:>9.2f} {conj:>10} {size:>10}")
    sizes = defaultdict(int)
    for r in results:
        if r["core"]:
            sizes[(len(r["core"]), r["conjuncts"])] += 1
    print("core size / conjuncts (count):", ", ".join(f"{k}/{n}: {c}" for (k, n), c in sorted(sizes.items())))
    kept = [r["kept"] for r in results if r.get("kept") is not None]
    if kept:
        print(
            f"fine core: median {statistics.median(kept):.0%} of the members' nodes kept "
            f"(min {min(kept):.0%}, max {max(kept):.0%}, {len(kept)} cores)"
        )
    bad = [r["name"] for r in results if r["bad"]]
    print(f"{'met' if not bad else 'NOT MET':8} malformed cores: {len(bad)} {bad[:5]}")
    minimal = sum(1 for r in results if r["core"] and r["core_minimal"])
    share = minimal / len(results) if results else 1.0
    print(
        f"{'met' if share >= TARGET else 'NOT MET':8} proven-minimal cores within {args.timeout:g} s: "
        f"{minimal}/{len(results)} = {share:.0%} (target {TARGET:.0%})"
    )


if __name__ == "__main__":
    main()
