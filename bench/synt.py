"""SYNTCOMP's labelled TLSF benchmarks through `ltlwit realize`, family by family.

    python bench/synt.py                                   # the basic-format LTL benchmarks, --timeout 60
    python bench/synt.py --timeout 10 --jobs 2 --out r.jsonl
    python bench/synt.py --format all                      # the parameterised ones too
    python bench/synt.py --families amba,lily --sample 5   # chosen families, at most 5 each (seeded)
    python bench/synt.py --data ../shared/data/synt/ltlf-shared.jsonl.gz
    python bench/synt.py --compare old.jsonl new.jsonl     # two earlier runs, benchmark by benchmark
    python bench/synt.py --command "env PYTHONPATH=../old python -m ltlwit"   # another version
    python bench/synt.py --engine spot --out spot.jsonl    # Spot's ltlsynt (on PATH), its answers checked
    python bench/synt.py --markdown                        # the table as docs/benchmarks.md shows it
    python bench/synt.py --timeout 60 --unanswered-in r10.jsonl --out r60.jsonl   # only what r10 left open

Each benchmark runs in its own `ltlwit realize -F - --format json --timeout T` process (the TLSF
text on stdin), so a row's time is what a user waits for: start-up, reading, the games and the
engine's check of the strategy. A process still running at T + `--grace` is killed.

Per family: benchmarks, answered right (realizable / unrealizable), wrong (a verdict against the
label: must be 0; every verdict printed carries a strategy the engine verified), unknown (with
the most frequent reason below the table), err (no answer: parameterised TLSF ltlwit does not
read yet, a crash), the median time of the answered ones.

`--engine spot` asks Spot's ltlsynt instead of the games (`realize --engine spot`: its controllers
checked, its UNREALIZABLE proved by the games' counter-strategy or left UNKNOWN naming the claim);
`--compare` of such a run with the games' is the side-by-side table, benchmark by benchmark.

`--unanswered-in RUN` runs only the benchmarks an earlier run (`--out` at a shorter --timeout)
did not answer right, families interleaved, and counts RUN's answers with its own (a verdict
within a shorter timeout is one within this one); --out then holds both. The data files and their labels are
described in ../shared/data/synt/README.md.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import random
import shlex
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "synt" / "ltl-shared.jsonl.gz"


def load(path: Path, fmt: str, families: set[str] | None, sample: int | None, seed: int) -> list[dict]:
    rows = [json.loads(line) for line in gzip.open(path, "rt")]
    rows = [r for r in rows if (fmt == "all" or r.get("format") == fmt) and (not families or r["family"] in families)]
    if sample:
        by: dict[str, list[dict]] = collections.defaultdict(list)
        for r in rows:
            by[r["family"]].append(r)
        rng = random.Random(seed)
        rows = [r for fam in sorted(by) for r in (rng.sample(by[fam], sample) if len(by[fam]) > sample else by[fam])]
    return rows


def run_one(row: dict, program: list[str], timeout: float, grace: float, engine: str = "builtin") -> dict:
    cmd = [*program, "realize", "-F", "-", "--format", "json", "--timeout", str(timeout)]
    cmd += ["--engine", engine] if engine != "builtin" else []  # older versions, through --command, lack it
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, input=row["tlsf"], capture_output=True, text=True, timeout=timeout + grace)
    except subprocess.TimeoutExpired:
        return {"verdict": "killed", "seconds": timeout + grace, "reason": "killed"}
    seconds = time.perf_counter() - started
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if not lines:
        message = proc.stderr.strip().splitlines()
        return {
            "verdict": "err",
            "seconds": seconds,
            "reason": message[0][:160] if message else f"exit {proc.returncode}",
        }
    answer = json.loads(lines[0])
    return {
        "verdict": answer["status"],
        "seconds": seconds,
        "reason": answer.get("reason"),
        "bound": answer.get("bound"),
    }


def interleaved(rows: list[dict]) -> list[dict]:
    """`rows` one family at a time in turn, so that a run cut short has sampled every family."""
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for r in rows:
        by[r["family"]].append(r)
    queues = [collections.deque(v) for v in by.values()]
    out = []
    while any(queues):
        out += [q.popleft() for q in queues if q]
    return out


def run_all(
    rows: list[dict],
    program: list[str],
    timeout: float,
    grace: float,
    jobs: int,
    out: str | None,
    kept: list[dict] | None = None,
    engine: str = "builtin",
) -> list[dict]:
    kept = kept or []
    results: list[dict | None] = [None] * len(rows)
    lock = threading.Lock()
    sink = open(out, "w") if out else None
    for r in kept:  # an earlier run's answers, counted as they are
        if sink:
            sink.write(json.dumps(r) + "\n")
    todo = iter(range(len(rows)))

    def work() -> None:
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            r = rows[i]
            res = run_one(r, program, timeout, grace, engine) | {
                "name": r["name"],
                "family": r["family"],
                "status": r["status"],
            }
            with lock:
                results[i] = res
                if sink:
                    sink.write(json.dumps(res) + "\n")
                    sink.flush()

    threads = [threading.Thread(target=work) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if sink:
        sink.close()
    return list(kept) + [r for r in results if r is not None]


def wrong(r: dict) -> bool:
    return r["verdict"] in ("realizable", "unrealizable") and r["verdict"] != r["status"]


def right(r: dict) -> bool:
    return r["verdict"] == r["status"]


def report(results: list[dict], markdown: bool) -> None:
    by: dict[str, list[dict]] = collections.defaultdict(list)
    for r in results:
        by[r["family"]].append(r)
    head = ("family", "n", "right", "real", "unreal", "wrong", "unknown", "err", "median s")
    rows = []
    for fam in sorted(by) + ["all"]:
        rs = results if fam == "all" else by[fam]
        answered = [r["seconds"] for r in rs if right(r)]
        rows.append(
            (
                fam,
                len(rs),
                sum(right(r) for r in rs),
                sum(right(r) and r["status"] == "realizable" for r in rs),
                sum(right(r) and r["status"] == "unrealizable" for r in rs),
                sum(wrong(r) for r in rs),
                sum(r["verdict"] in ("unknown", "killed") for r in rs),
                sum(r["verdict"] == "err" for r in rs),
                f"{statistics.median(answered):.2f}" if answered else "-",
            )
        )
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for row in rows:
            print("| " + " | ".join(str(x) for x in row) + " |")
    else:
        width = max(len(r[0]) for r in rows)
        print(f"{head[0]:<{width}} " + " ".join(f"{h:>8}" for h in head[1:]))
        for row in rows:
            print(f"{row[0]:<{width}} " + " ".join(f"{x!s:>8}" for x in row[1:]))
    reasons = collections.Counter(
        (r.get("reason") or "")[:70] for r in results if r["verdict"] in ("unknown", "killed", "err")
    )
    if reasons:
        print("\nno answer, by reason:")
        for reason, n in reasons.most_common(6):
            print(f"  {n:4}  {reason}")
    total = len(results)
    print(
        f"\nanswered right: {sum(right(r) for r in results)} of {total}"
        + (f" ({100 * sum(right(r) for r in results) / total:.1f}%)" if total else "")
    )
    bad = [r["name"] for r in results if wrong(r)]
    print(f"wrong verdicts: {len(bad)}" + (f": {', '.join(bad)}" if bad else ""))


def compare(old_path: str, new_path: str) -> None:
    def read(p: str) -> dict:
        return {r["name"]: r for r in map(json.loads, open(p))}

    old, new = read(old_path), read(new_path)
    gained = sorted(n for n in new if right(new[n]) and n in old and not right(old[n]))
    lost = sorted(n for n in new if not right(new[n]) and n in old and right(old[n]))
    both = [n for n in new if n in old and right(new[n]) and right(old[n])]
    print(f"right: {sum(right(r) for r in old.values())} -> {sum(right(r) for r in new.values())}")
    print(f"gained {len(gained)}: {', '.join(gained)}")
    print(f"lost {len(lost)}: {', '.join(lost)}")
    if both:
        ratio = sum(new[n]["seconds"] for n in both) / max(1e-9, sum(old[n]["seconds"] for n in both))
        print(f"time on the {len(both)} both answer: new/old = {ratio:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--format", default="basic", choices=("basic", "full", "all"), help="TLSF form (default basic)")
    ap.add_argument("--families", help="comma-separated families (default: all)")
    ap.add_argument("--sample", type=int, help="at most N benchmarks per family (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60.0, help="ltlwit's --timeout (seconds)")
    ap.add_argument("--grace", type=float, default=10.0, help="kill a child at timeout + grace")
    ap.add_argument("--jobs", type=int, default=1, help="children at a time (timings contend)")
    ap.add_argument("--command", help="how to run ltlwit (default: this interpreter, -m ltlwit)")
    ap.add_argument("--engine", default="builtin", choices=("builtin", "spot"), help="realize's --engine")
    ap.add_argument("--out", help="write one JSON row per benchmark here")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two --out files")
    ap.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    ap.add_argument("--unanswered-in", metavar="RUN", help="run only what RUN (an earlier --out) left unanswered")
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    rows = load(
        args.data, args.format, set(args.families.split(",")) if args.families else None, args.sample, args.seed
    )
    program = shlex.split(args.command) if args.command else [sys.executable, "-m", "ltlwit"]
    kept: list[dict] = []
    if args.unanswered_in:
        earlier = {r["name"]: r for r in map(json.loads, open(args.unanswered_in))}
        kept = [earlier[r["name"]] for r in rows if r["name"] in earlier and right(earlier[r["name"]])]
        rows = interleaved([r for r in rows if not (r["name"] in earlier and right(earlier[r["name"]]))])
    results = run_all(rows, program, args.timeout, args.grace, args.jobs, args.out, kept, args.engine)
    report(results, args.markdown)


if __name__ == "__main__":
    main()
