"""Benchmark of the whole `ltlwit solve` pipeline, end to end, as a user runs it.

    python bench/pipeline.py throughput [--sets ltl35,grid] [--models none,si,dual,both] [--limit N]
    python bench/pipeline.py startup [--repeat 5]     # bench/startup.py's table (cold `ltlwit` runs)
    python bench/pipeline.py memory [--lines 100000]  # peak RSS streaming 10k, 50k, 100k lines
    python bench/pipeline.py jobs [--sets ltl35,rozier] [--jobs 1,2] [--repeat 3] [--extra "--timeout 10"]
    python bench/pipeline.py all                      # throughput, startup, memory, as in docs/benchmarks.md

Throughput runs `ltlwit solve --format json -F FILE --model M` in a subprocess over the formula
lines of ../shared/data/ltl35/test.txt.gz (39,415 formulas, Polish) and the `formula` field of
../shared/data/ltl-grid-val.jsonl (3,870 formulas, up to 10 APs), and reports formulas/s
(wall clock, process start and model loading included), the share of answers per source
(`model:si-ltl`, `model:dual-ltl`, `engine`, ...) and how many answers were sat/unsat/unknown. A model
row whose weights are not installed (`ltlwit models list`) is printed as pending; re-run the
command once they are. Prints Markdown tables for docs/benchmarks.md, and the load average (the
machine is shared).

Jobs runs `ltlwit solve --format json --model none --jobs J -F FILE` for each J side by side, on
ltl35 test (Polish) and on the rozier family of ../shared/data/black/black.jsonl.gz (1,320
formulas in Spot syntax, from milliseconds to minutes each), and reports formulas/s, wall and
CPU seconds (the process and its workers: what the run cost the machine, whatever else ran
beside it), the speed-up over the first J, and whether the output is the first J's (the JSON
records less `time_ms`). On a shared machine the wall clock depends on the other jobs: a
scheduler that shares the cores out per session (Linux autogroups) caps a run at its share, so
read the CPU column too (CPU seconds at J=2 over J=1: the cost of going parallel).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))


def ltlwit() -> list[str]:
    """The installed console script when there is one (what users run), else `python -m ltlwit`."""
    script = Path(sys.executable).with_name("ltlwit")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ltlwit"]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def write_set(name: str, folder: Path, limit: int | None) -> Path:
    path = folder / f"{name}.txt"
    with open(path, "w") as out:
        if name == "rozier":
            with gzip.open(DATA / "black" / "black.jsonl.gz", "rt") as f:
                rows = (json.loads(line) for line in f)
                formulas = [row["formula"] for row in rows if row["family"] == "rozier"]
            out.writelines(formula + "\n" for formula in formulas[:limit])
        elif name == "ltl35":
            with gzip.open(DATA / "ltl35" / "test.txt.gz", "rt") as f:
                lines = (line for i, line in enumerate(f) if i % 2 == 0)
                for n, line in enumerate(lines):
                    if limit is not None and n >= limit:
                        break
                    out.write(line)
        else:
            with open(DATA / "ltl-grid-val.jsonl") as f:
                for n, line in enumerate(f):
                    if limit is not None and n >= limit:
                        break
                    out.write(json.loads(line)["formula"] + "\n")
    return path


def installed(model: str) -> str | None:
    """None when the model family's LTL weights are installed, else the missing name."""
    from ltlwit.neural import registry

    for family in {"si": ("si",), "dual": ("dual",), "both": ("si", "dual")}.get(model, ()):
        try:
            registry.resolve(f"{family}-ltl")
        except registry.RegistryError:
            return f"{family}-ltl"
    return None


def throughput(sets: list[str], models: list[str], limit: int | None, extra: list[str]) -> None:
    print(f"## throughput (load average before: {load()})\n")
    print("| set | formulas | --model | formulas/s | wall s | answers by source | sat / unsat / unknown / error |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            path = write_set(name, Path(tmp), limit)
            count = sum(1 for _ in open(path))
            for model in models:
                missing = installed(model)
                if missing:
                    print(f"| {name} | {count} | {model} | pending: no weights ({missing}) | | | |")
                    continue
                command = ltlwit() + [
                    "solve",
                    "--format",
                    "json",
                    "--syntax",
                    "polish",
                    "--model",
                    model,
                    *extra,
                    "-F",
                    str(path),
                ]
                start = time.perf_counter()
                proc = subprocess.run(command, capture_output=True, text=True, env=env())
                wall = time.perf_counter() - start
                records = [json.loads(line) for line in proc.stdout.splitlines()]
                if len(records) != count:
                    raise SystemExit(f"{name}/{model}: {len(records)} answers for {count} formulas\n{proc.stderr}")
                sources = collections.Counter(r["source"] for r in records)
                statuses = collections.Counter(r["status"] for r in records)
                share = ", ".join(f"{s} {100 * n / count:.1f}%" for s, n in sources.most_common())
                print(
                    f"| {name} | {count} | {model} | {count / wall:.0f} | {wall:.1f} | {share} | "
                    f"{statuses['sat']} / {statuses['unsat']} / {statuses['unknown']} / {statuses['error']} |",
                    flush=True,
                )
    print(f"\nload average after: {load()}\n")


def timed(command: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the finished process, wall seconds, CPU seconds of it and its descendants)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=env())
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return proc, seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def jobs_throughput(sets: list[str], jobs: list[int], limit: int | None, extra: list[str], repeat: int) -> None:
    print(
        f"## --jobs (load average before: {load()}; {os.cpu_count()} cores; min and median of {repeat} "
        "rounds, the --jobs values alternating)\n"
    )
    print(
        "| set | formulas | --jobs | formulas/s (best) | wall s min / median | CPU s (median) | speed-up (min) "
        "| output as with the first |"
    )
    print("|---|---|---|---|---|---|---|---|")
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            path = write_set(name, Path(tmp), limit)
            count = sum(1 for _ in open(path))
            syntax = ["--syntax", "polish"] if name == "ltl35" else []
            runs: dict[int, list[tuple[float, float]]] = {j: [] for j in jobs}
            first: tuple[list[dict], str] | None = None
            same = {j: 0 for j in jobs}
            for _ in range(repeat):
                for j in jobs:
                    command = ltlwit() + [
                        "solve",
                        "--format",
                        "json",
                        "--model",
                        "none",
                        *syntax,
                        "--jobs",
                        str(j),
                        *extra,
                        "-F",
                        str(path),
                    ]
                    proc, seconds, cpu = timed(command)
                    records = [json.loads(line) for line in proc.stdout.splitlines()]
                    if len(records) != count:
                        raise SystemExit(
                            f"{name} --jobs {j}: {len(records)} answers for {count} formulas\n{proc.stderr}"
                        )
                    for record in records:
                        record.pop("time_ms")
                    first = first or (records, proc.stderr)
                    differ = [
                        (a["line"], a["status"], a["reason"], b["status"], b["reason"])
                        for a, b in zip(first[0], records)
                        if a != b
                    ]
                    same[j] += not differ and proc.stderr == first[1]
                    notes += [
                        f"{name} line {line}: first run {s1} ({r1}), --jobs {j} {s2} ({r2})"
                        for line, s1, r1, s2, r2 in differ[:10]
                    ]
                    runs[j].append((seconds, cpu))
            base = min(w for w, _ in runs[jobs[0]])
            for j in jobs:
                walls, cpus = sorted(w for w, _ in runs[j]), sorted(c for _, c in runs[j])
                rate = count / walls[0]
                print(
                    f"| {name} | {count} | {j} | {rate:.0f}{'' if rate >= 10 else f'{rate:.2f}'[1:]} | "
                    f"{walls[0]:.1f} / {statistics.median(walls):.1f} | {statistics.median(cpus):.1f} | "
                    f"{base / walls[0]:.2f}x | {'yes' if same[j] == repeat else f'{same[j]} of {repeat} runs'} |",
                    flush=True,
                )
    print(f"\nload average after: {load()}\n")
    if notes:
        print("Records that differ from the first run's (at most 10 a run):\n")
        print("\n".join(f"- {note}" for note in notes) + "\n")


def peak_rss_kib(command: list[str]) -> int:
    """Peak RSS of one process (measured from a fresh parent, so earlier children don't count)."""
    probe = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
        "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, env=env())
    return int(out.stdout.strip())


def memory(lines: int) -> None:
    print("## memory: peak RSS streaming LTLRandom35 test formulas (repeated), `--model none`\n")
    print("| lines | peak RSS MiB | wall s |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        source = write_set("ltl35", Path(tmp), None).read_text().splitlines()
        for n in (lines // 10, lines // 2, lines):
            path = Path(tmp) / f"lines{n}.txt"
            path.write_text("\n".join(source[i % len(source)] for i in range(n)) + "\n")
            start = time.perf_counter()
            rss = peak_rss_kib(ltlwit() + ["solve", "--model", "none", "--syntax", "polish", "-F", str(path)])
            print(f"| {n} | {rss / 1024:.1f} | {time.perf_counter() - start:.1f} |", flush=True)
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("throughput", "jobs", "startup", "memory", "all"))
    parser.add_argument("--sets", default="ltl35,grid")
    parser.add_argument("--models", default="none,si,dual,both")
    parser.add_argument("--limit", type=int, help="first N formulas of each set")
    parser.add_argument("--repeat", type=int, default=5, help="startup: runs per command; jobs: rounds")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--extra", default="", help="more solve options, e.g. '--device cuda --batch-size 256'")
    parser.add_argument("--jobs", default="1,2", help="jobs: the --jobs values to compare, the first the baseline")
    args = parser.parse_args()
    if shutil.which(ltlwit()[0]) is None and not Path(ltlwit()[0]).exists():
        raise SystemExit("ltlwit not found")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}\n")
    if args.what in ("throughput", "all"):
        throughput(args.sets.split(","), args.models.split(","), args.limit, args.extra.split())
    if args.what == "jobs":
        jobs_throughput(
            args.sets.split(",") if args.sets != "ltl35,grid" else ["ltl35", "rozier"],
            [int(j) for j in args.jobs.split(",")],
            args.limit,
            args.extra.split(),
            args.repeat,
        )
    if args.what in ("startup", "all"):
        from startup import startup  # bench/startup.py

        startup(args.repeat)
    if args.what in ("memory", "all"):
        memory(args.lines)


if __name__ == "__main__":
    main()
