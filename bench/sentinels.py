"""The sentinel set: a fixed list of formulas from every suite that the engine answers today,
the slowest ones, run against their recorded results so that a lost answer or a slowdown is
seen before a change lands, not at the next full run.

    python bench/sentinels.py                      # run the list; exit 1 if anything is listed
    python bench/sentinels.py --jobs 2             # two at a time (timings contend)
    python bench/sentinels.py --command "env PYTHONPATH=../other python -m ltlwit"   # another version
    python bench/sentinels.py --update             # run the list and record its results, on purpose
    python bench/sentinels.py --select finite=finite.jsonl future=future.jsonl ...
                                                   # choose a new list from full runs, run it, record

Run it before landing any change to the engine (ltlwit/logic: rewriting, encodings, searches,
proofs, theories), on an otherwise idle machine. It lists every formula whose verdict was lost
(unknown, killed, an error) or changed (a wrong answer), and every one whose wall time grew
beyond twice its recorded time and by more than `SLOWER_BY` seconds. A listed formula is either
a regression to fix or, when the change means it (a slower proof traded for many more answers),
a reason to record the new results with `--update` and say so in the commit. The full suites
(bench/black.py) stay the measure for docs/benchmarks.md; they take an hour, this takes minutes.

Times are compared at this machine's pace (`pace`: the median ratio of this run's times to the
recorded ones), so that a slower machine does not list every formula; a pace beyond twice the
record is listed itself (a slowdown of everything, or a much slower machine). Formulas recorded
near the timeout may still be lost on a slower machine: there, record the commit you compare
with first, in a file of your own, and run against that (both on this machine, side by side):

    python bench/sentinels.py --command "env PYTHONPATH=../base python -m ltlwit" --update --reference base.json
    python bench/sentinels.py --reference base.json

The list (`SENTINELS`, with the results it was recorded with) holds, for each suite of
bench/black.py, every family's slowest answered formula, the formulas that regressed once
(`PINNED`), and then the slowest answered formulas of the whole suite, each within `CAP` seconds (a slower one would be lost to noise as often as to
a regression), up to `QUOTA` per suite and `BUDGET` seconds for the whole list. `--select` takes
the per-formula rows of full runs (`black.py --out FILE`, one per suite, `SUITE=FILE`).
Each formula runs as black.py runs it: its own `ltlwit solve --model none --format json
--timeout 10` process, the suite's options (`--semantics finite`, the row's `--domain`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import black  # noqa: E402  (bench/black.py: the suites and the child-process runner)

SENTINELS = Path(__file__).resolve().parent / "sentinels.json"
TIMEOUT = 10.0
#: A formula is slower when its wall time is more than `SLOWER_RATIO` times its recorded one and
#: more than `SLOWER_BY` seconds above it (start-up alone varies by a tenth of a second).
SLOWER_RATIO = 2.0
SLOWER_BY = 1.0
#: The pace is taken over the formulas answered both times that took at least `PACE_FLOOR`
#: seconds when recorded (start-up dominates the quicker ones), when there are `PACE_MIN` of them.
PACE_FLOOR = 1.0
PACE_MIN = 5
#: Selection: formulas answered within `CAP` seconds, at most `QUOTA` per suite, `BUDGET`
#: seconds of recorded wall time for the whole list (under five minutes with start-up).
CAP = 6.0
QUOTA = {"future": 45, "past": 25, "finite": 40, "tdllite": 10, "ltlfmt": 30}
BUDGET = 200.0
#: Formulas that regressed once stay in the list, whatever their time: the finite-trace rozier
#: counters, whose loss (UNSAT in 1-2 s, then UNKNOWN at 10 s) no sample of the suite held.
PINNED = {
    "finite": [
        "future_only/rozier/counter/counter/counter12",
        "future_only/rozier/counter/counterCarry/counterCarry14",
        "future_only/rozier/counter/counterLinear/counterLinear18",
    ],
}

ANSWERED = frozenset({"sat", "unsat"})


def answered(row: dict) -> bool:
    return row["status"] in ANSWERED and not black.wrong(row)


def select(runs: dict[str, Path]) -> list[dict]:
    """Per suite: every family's slowest answered formula within `CAP` and the `PINNED` ones, then
    the suite's slowest, up to its quota; then the slowest of the additions dropped until the
    list fits `BUDGET`."""
    chosen: list[dict] = []
    for suite, path in runs.items():
        rows = [json.loads(line) for line in open(path)]
        pool = sorted((r for r in rows if answered(r) and r["wall"] <= CAP), key=lambda r: -r["wall"])
        picked: dict[str, dict] = {}
        for r in pool:  # slowest first: the first of each family is its hardest
            if not any(p["family"] == r["family"] for p in picked.values()):
                picked[r["name"]] = {**r, "hardest": True}
        for name in PINNED.get(suite, ()):
            row = next((r for r in rows if r["name"] == name), None)
            if row is not None:
                picked.setdefault(name, {**row, "hardest": True})  # kept within the budget, as the hardest are
        for r in pool:
            if len(picked) >= QUOTA.get(suite, 20):
                break
            picked.setdefault(r["name"], {**r, "hardest": False})
        chosen += [{"suite": suite, **p} for p in picked.values()]
    extra = sorted((c for c in chosen if not c["hardest"]), key=lambda c: -c["wall"])
    while sum(c["wall"] for c in chosen) > BUDGET and extra:
        chosen.remove(extra.pop(0))
    return [{"suite": c["suite"], "name": c["name"], "family": c["family"]} for c in chosen]


def formulas(entries: list[dict]) -> dict[tuple[str, str], dict]:
    """The suite data rows of `entries`, by (suite, name)."""
    out = {}
    for suite in dict.fromkeys(e["suite"] for e in entries):
        wanted = {e["name"] for e in entries if e["suite"] == suite}
        for row in black.load(black.SUITES[suite].data, None, None, None, 0):
            if row["name"] in wanted:
                out[suite, row["name"]] = row
    missing = [e for e in entries if (e["suite"], e["name"]) not in out]
    if missing:
        raise SystemExit(f"sentinels: {len(missing)} formulas not in the suites' data, e.g. {missing[0]}")
    return out


def run(entries: list[dict], args: argparse.Namespace) -> list[dict]:
    rows = formulas(entries)
    results: list[dict] = [{}] * len(entries)

    def work(i: int) -> None:
        e = entries[i]
        row = rows[e["suite"], e["name"]]
        cmd = black.command(TIMEOUT, [], args.command, black.SUITES[e["suite"]].options)
        if row.get("domain"):
            cmd += ["--domain", row["domain"]]
        r = black.run_one(row, cmd, TIMEOUT, 5.0)
        results[i] = {
            "suite": e["suite"],
            "name": e["name"],
            "family": e["family"],
            "status": r["status"],
            "wall": r["wall"],
            "unverified": r["status"] == "sat" and r["verified"] is not True,
            "reason": r["reason"] or r["error"],
        }

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, range(len(entries))))
    return results


def pace(recorded: list[dict], now: list[dict]) -> float:
    """This run's times over the recorded ones, as a median: the machine's speed against the
    one that recorded them (1.0 when too few formulas tell)."""
    ratios = [
        new["wall"] / old["wall"]
        for old, new in zip(recorded, now)
        if old["status"] in ANSWERED and new["status"] == old["status"] and old["wall"] >= PACE_FLOOR
    ]
    return statistics.median(ratios) if len(ratios) >= PACE_MIN else 1.0


def findings(recorded: list[dict], now: list[dict]) -> list[str]:
    """One line per formula lost, changed or slower at this run's `pace`, and one for the pace
    itself beyond `SLOWER_RATIO`; none when the run matches the record."""
    speed = pace(recorded, now)
    lines = []
    if speed > SLOWER_RATIO:
        lines.append(
            f"slower every formula: {speed:.2f} times the recorded times (median); "
            "on another machine, record the base commit here with --reference"
        )
    for old, new in zip(recorded, now):
        label = f"{old['suite']}/{old['name']}"
        if new["unverified"] or (ANSWERED >= {new["status"], old["status"]} and new["status"] != old["status"]):
            lines.append(
                f"WRONG  {label}: {old['status']} recorded, {new['status']} now"
                + (" (witness not verified)" if new["unverified"] else "")
            )
        elif old["status"] in ANSWERED and new["status"] != old["status"]:
            why = f" ({new['reason']})" if new["reason"] else ""
            lines.append(
                f"lost   {label}: {old['status']} in {old['wall']:.2f} s -> {new['status']} in {new['wall']:.2f} s{why}"
            )
        elif new["wall"] > SLOWER_RATIO * speed * old["wall"] and new["wall"] - speed * old["wall"] > SLOWER_BY:
            at = f", {speed * old['wall']:.2f} s at this run's pace" if abs(speed - 1) >= 0.05 else ""
            lines.append(f"slower {label}: {old['wall']:.2f} s{at} -> {new['wall']:.2f} s ({new['status']})")
    return lines


def commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def record(results: list[dict], args: argparse.Namespace) -> None:
    keep = [{k: r[k] for k in ("suite", "name", "family", "status", "wall")} for r in results]
    # another checkout's results (--command) are not this checkout's commit's
    made = {"command": args.command} if args.command else {"commit": commit()}
    head = json.dumps({**made, "jobs": args.jobs, "timeout": TIMEOUT})[:-1]
    rows = ",\n".join("  " + json.dumps(k) for k in keep)  # a formula per line: diffs read per formula
    args.reference.write_text(f'{head}, "formulas": [\n{rows}\n]}}\n')
    print(f"recorded {len(keep)} formulas in {args.reference}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--jobs", type=int, default=1, help="children at a time (timings contend)")
    ap.add_argument("--command", help="the ltlwit to run (default: the installed one)")
    ap.add_argument("--update", action="store_true", help="record this run's results as the reference")
    ap.add_argument("--select", nargs="+", metavar="SUITE=FILE", help="choose a new list from full runs")
    ap.add_argument(
        "--reference",
        type=Path,
        default=SENTINELS,
        help="the recorded results to read (to write, with --update): default bench/sentinels.json",
    )
    args = ap.parse_args()
    if args.select:
        runs = {}
        for item in args.select:
            suite, _, path = item.partition("=")
            if suite not in black.SUITES or not path:
                ap.error(f"--select takes SUITE=FILE with SUITE one of {', '.join(black.SUITES)}: {item}")
            runs[suite] = Path(path)
        entries = select(runs)
    else:
        if not args.reference.exists() and not args.update:
            ap.error(f"--reference {args.reference}: no such file (record one with --update)")
        # a reference not yet recorded takes the committed list
        entries = json.loads((args.reference if args.reference.exists() else SENTINELS).read_text())["formulas"]
    began = time.perf_counter()
    results = run(entries, args)
    took = time.perf_counter() - began
    counts = {s: sum(1 for e in entries if e["suite"] == s) for s in dict.fromkeys(e["suite"] for e in entries)}
    print(
        f"{len(entries)} formulas ({', '.join(f'{s} {n}' for s, n in counts.items())}) in {took:.0f} s, "
        f"--jobs {args.jobs}, --timeout {TIMEOUT:g}"
        + ("" if args.select or args.update else f", at {pace(entries, results):.2f} times the recorded pace")
    )
    if args.select:  # a formula the full run answered but this one did not is no sentinel
        dropped = [r for r in results if r["status"] not in ANSWERED or r["unverified"]]
        for r in dropped:
            print(f"left out {r['suite']}/{r['name']}: {r['status']} in {r['wall']:.2f} s here")
        results = [r for r in results if r not in dropped]
    if args.select or args.update:
        record(results, args)
        return
    lines = findings(entries, results)
    for line in lines:
        print(line)
    print(f"{len(lines)} listed" if lines else "nothing listed: every verdict kept, no formula slower")
    sys.exit(1 if lines else 0)


if __name__ == "__main__":
    main()
