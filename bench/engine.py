"""Benchmark of the built-in LTL engine: `solve` and `holds` latencies.

    python bench/engine.py ltl35 [--limit N]     # ../shared/data/ltl35/test.txt.gz
    python bench/engine.py grid                  # ../shared/data/ltl-grid-val.jsonl (vs spot_seconds)
    python bench/engine.py families              # genltl-style parametric families
    python bench/engine.py labels                # truth tables vs dd.cudd vs dd.autoref

Reports median / p90 / p99 / max per set, the load average before and after (the machine is
shared), and verdict mismatches against Spot's labels (there must be none). Every witness is
re-checked inside `solve` already; `--verify` additionally re-checks it in the benchmark.
Results and commands are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The SAT solver and the searches on it load when a formula first needs them (a cold `ltlwit
# solve` of a small formula never does): here, before any clock starts, so no time includes them.
import ltlwit.logic.ltl.searches.bounded  # noqa: E402,F401
import ltlwit.logic.ltl.searches.explore
import ltlwit.logic.ltl.searches.liveness
import ltlwit.logic.prop  # noqa: E402,F401
from ltlwit.logic.formula import And, Formula, Not, Or, ap, binop, unop  # noqa: E402
from ltlwit.logic.ltl import Budget, clear_caches, holds, solve  # noqa: E402
from ltlwit.logic.result import Sat, Unknown  # noqa: E402
from ltlwit.logic.syntax import parse_formula, parse_trace  # noqa: E402
from ltlwit.logic.trace import Trace  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def stats(xs: list[float]) -> str:
    xs = sorted(xs)
    n = len(xs)
    if not n:
        return "n=0"

    def q(p: float) -> float:
        return xs[min(n - 1, int(p * n))] * 1000

    return (
        f"n={n} median={q(0.5):.3f}ms p90={q(0.9):.3f}ms p99={q(0.99):.3f}ms "
        f"max={xs[-1] * 1000:.1f}ms mean={statistics.fmean(xs) * 1000:.3f}ms"
    )


REPEAT = 1


def timed(fn: Callable, *args) -> tuple[float, object]:
    """Cold time of one call: every engine cache is cleared first. With --repeat k, the
    minimum of k cold runs (filters out the other users' processes on a shared machine)."""
    best = float("inf")
    for _ in range(REPEAT):
        clear_caches()
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def freeze() -> None:
    """Move the loaded data set out of the garbage collector's sight: a full collection scans
    every live object, and the benchmark's own data would otherwise add ~50 ms pauses that a
    `ltlwit solve` process does not have. The engine's caches stay collectable."""
    gc.collect()
    gc.freeze()


def mutate(trace: Trace, rng: random.Random) -> Trace:
    """A near miss: one step negated or replaced by `1` (what a wrong candidate looks like)."""
    steps = list(trace.steps)
    i = rng.randrange(len(steps))
    steps[i] = Formula("1") if rng.random() < 0.5 else Not(steps[i])
    k = len(trace.prefix)
    return Trace(tuple(steps[:k]), tuple(steps[k:]))


def bench_ltl35(args: argparse.Namespace) -> None:
    with gzip.open(DATA / "ltl35" / "test.txt.gz", "rt") as fh:
        lines = fh.read().split("\n")
    pairs = list(zip(lines[0::2], lines[1::2]))[: args.limit]
    freeze()
    rng = random.Random(0)
    solve_t, check_label, check_mut, check_own, wrong = [], [], [], [], 0
    for ftext, ttext in pairs:
        f = parse_formula(ftext, "polish")
        label = parse_trace(ttext)
        dt, res = timed(solve, f, Budget(seconds=args.timeout))
        solve_t.append(dt)
        if not isinstance(res, Sat):
            wrong += 1  # the set holds satisfiable formulas only
            continue
        dt, ok = timed(holds, f, label)
        check_label.append(dt)
        wrong += not ok
        dt, _ = timed(holds, f, mutate(label, rng))
        check_mut.append(dt)
        dt, ok = timed(holds, f, res.witness)
        check_own.append(dt)
        wrong += not ok
    print(f"ltl35 test ({len(pairs)} formulas), wrong verdicts: {wrong}")
    print("  solve              ", stats(solve_t))
    print("  check Spot label   ", stats(check_label))
    print("  check near miss    ", stats(check_mut))
    print("  check own witness  ", stats(check_own))
    print("  check (all three)  ", stats(check_label + check_mut + check_own))


def bench_grid(args: argparse.Namespace) -> None:
    rows = [json.loads(line) for line in open(DATA / "ltl-grid-val.jsonl")][: args.limit]
    freeze()
    solve_t, spot_t, check_t, slow, slow_checks = [], [], [], [], []
    mismatch = unknown = 0
    for row in rows:
        f = parse_formula(row["formula"], "polish")
        dt, res = timed(solve, f, Budget(seconds=args.timeout))
        solve_t.append(dt)
        if isinstance(res, Unknown):
            unknown += 1
        elif row["sat"] is not None and isinstance(res, Sat) != row["sat"]:
            mismatch += 1
        spot_t.append(row["spot_seconds"] if row["spot_seconds"] is not None else 5.0)
        slow.append((dt, row["spot_seconds"], row["spot"]))
        if row["witness"]:
            dt, ok = timed(holds, f, parse_trace(row["witness"]))
            check_t.append(dt)
            slow_checks.append((dt, row["spot"], row["witness"]))
            mismatch += not ok
    print(
        f"10-AP grid ({len(rows)} formulas, {sum(r['sat'] is None for r in rows)} past Spot's 5 s), "
        f"mismatches: {mismatch}, unknown: {unknown}"
    )
    print("  solve (ltlwit)     ", stats(solve_t))
    print("  Spot (spot_seconds)", stats(spot_t), "(rows past 5 s counted as 5 s)")
    print("  check Spot witness ", stats(check_t))
    hard = [s for s, sp, _ in slow if sp is None or sp > 1.0]
    print(f"  solve on the {len(hard)} rows where Spot took > 1 s or timed out:", stats(hard))
    for dt, sp, text in sorted(slow, key=lambda r: r[0], reverse=True)[:5]:
        print(f"    slowest solve: {dt * 1000:.1f} ms (Spot {sp}) {text[:100]}")
    for dt, text, word in sorted(slow_checks, key=lambda r: r[0], reverse=True)[:3]:
        print(f"    slowest check: {dt * 1000:.1f} ms {text[:90]} on {word[:60]}")


# -- genltl-style families --------------------------------------------------------------------


def p(i: int) -> Formula:
    return ap(f"p{i}")


def xs(f: Formula, n: int) -> Formula:
    for _ in range(n):
        f = unop("X", f)
    return f


def G(f: Formula) -> Formula:  # noqa: N802
    return unop("G", f)


def F(f: Formula) -> Formula:  # noqa: N802
    return unop("F", f)


def counter(n: int, reach_max: bool = True) -> Formula:
    """An n-bit binary counter, bits serialised least significant first (Rozier & Vardi's
    counter-with-carry idea, our formulation): m marks each value's first bit, b is the bit,
    c the carry. The only model counts 0, 1, 2, ... (period n·2^n). With reach_max=False the
    all-ones value is forbidden, which makes the formula unsatisfiable."""
    m, b, c = ap("m"), ap("b"), ap("c")
    marker = And(m, G(binop("->", m, And(*[xs(Not(m), k) for k in range(1, n)], xs(m, n)))))
    zero = And(*[xs(Not(b), k) for k in range(n)])
    carry_in = G(binop("->", m, c))
    update = G(binop("<->", binop("xor", b, c), xs(b, n)))
    carry = G(binop("->", unop("X", Not(m)), binop("<->", unop("X", c), And(b, c))))
    f = And(marker, zero, carry_in, update, carry)
    if not reach_max:
        f = And(f, G(binop("->", m, Not(And(*[xs(b, k) for k in range(n)])))))
    return f


FAMILIES: dict[str, Callable[[int], Formula]] = {
    "and-gf (GFp1 & ... & GFpn)": lambda n: And(*[G(F(p(i))) for i in range(n)]),
    "and-fg (FGp1 & ... & FGpn)": lambda n: And(*[F(G(p(i))) for i in range(n)]),
    "gf-alt (and-gf & G(p0 -> X!p0))": lambda n: And(
        *[G(F(p(i))) for i in range(n)], G(binop("->", p(0), unop("X", Not(p(0)))))
    ),
    "gh-r (&(GFpi | FGpi+1))": lambda n: And(*[Or(G(F(p(i))), F(G(p(i + 1)))) for i in range(n)]),
    "u-left (((p1 U p2) U ...) U pn)": lambda n: _fold_left("U", n),
    "u-right (p1 U (p2 U ... pn)) & G!pn": lambda n: And(_fold_right("U", n), G(Not(p(n - 1)))),
    "x-chain (X^n p & X^(n+1) !p)": lambda n: And(xs(p(0), n), xs(Not(p(0)), n + 1)),
    "counter (n bits)": counter,
    "counter-unsat (never all ones)": lambda n: counter(n, reach_max=False),
}
SIZES = {
    "counter (n bits)": (2, 3, 4, 5, 6, 7),
    "counter-unsat (never all ones)": (2, 4, 6),
    "gf-alt (and-gf & G(p0 -> X!p0))": (2, 4, 8, 12, 14),
    "x-chain (X^n p & X^(n+1) !p)": (10, 100, 1000),
}


def _fold_left(op: str, n: int) -> Formula:
    f = p(0)
    for i in range(1, n):
        f = binop(op, f, p(i))
    return f


def _fold_right(op: str, n: int) -> Formula:
    f = p(n - 1)
    for i in range(n - 2, -1, -1):
        f = binop(op, p(i), f)
    return f


def bench_families(args: argparse.Namespace) -> None:
    print("| family | n | verdict | solve | witness steps | check own witness |")
    print("|---|---|---|---|---|---|")
    for name, make in FAMILIES.items():
        for n in SIZES.get(name, (2, 4, 8, 16)):
            f = make(n)
            dt, res = timed(solve, f, Budget(seconds=args.timeout))
            verdict = type(res).__name__
            steps = check = ""
            if isinstance(res, Sat):
                steps = str(len(res.witness.prefix) + len(res.witness.cycle))
                ct, ok = timed(holds, f, res.witness)
                check = f"{ct * 1000:.1f} ms" + ("" if ok else " (REJECTED)")
            print(f"| {name} | {n} | {verdict} | {dt * 1000:.1f} ms | {steps} | {check} |")


def bench_labels(args: argparse.Namespace) -> None:
    """An and/or/negate round on random labels, per representation and AP count."""
    import timeit

    from ltlwit.logic.ltl.encoding.labels import Bdds, TruthTables

    rng = random.Random(0)
    for n in (3, 5, 8, 10, 12, 14, 16):
        names = [f"v{i}" for i in range(n)]
        row = [f"{n:2d} APs"]
        for cls in (TruthTables, Bdds):
            L = cls(names)
            x = L.cube([(i, rng.random() < 0.5) for i in range(0, n, 2)]) | L.var(1)
            y = L.cube([(i, rng.random() < 0.5) for i in range(1, n, 3)]) | L.var(0, False)
            k = 20000
            t = timeit.timeit(lambda: (x & y) | L.neg(x), number=k) / k
            row.append(f"{cls.__name__} {t * 1e9:.0f} ns")
        print("  ".join(row))


def main(argv: Iterable[str] | None = None) -> None:
    ap_ = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap_.add_argument("set", choices=["ltl35", "grid", "families", "labels"])
    ap_.add_argument("--limit", type=int, default=None, help="first N formulas only")
    ap_.add_argument("--timeout", type=float, default=10.0, help="per-formula budget (s)")
    ap_.add_argument("--repeat", type=int, default=1, help="report the min of k cold runs per call")
    args = ap_.parse_args(argv)
    global REPEAT
    REPEAT = args.repeat
    print(f"cold timings (caches cleared before each call), min of {REPEAT} run(s)")
    print(load(), f"(cores: {os.cpu_count()})")
    {"ltl35": bench_ltl35, "grid": bench_grid, "families": bench_families, "labels": bench_labels}[args.set](args)
    print(load())


if __name__ == "__main__":
    main()
