"""BLACK's benchmark suite through `ltlwit solve --model none`, family by family, against the peers.

    python bench/black.py                                  # every formula, --timeout 10
    python bench/black.py --families forobots,acacia       # chosen families
    python bench/black.py --sample 40 --seed 1             # at most 40 per family (seeded)
    python bench/black.py --jobs 2 --out results.jsonl     # two at a time; per-formula rows
    python bench/black.py --compare old.jsonl new.jsonl    # two earlier runs, formula by formula
    python bench/black.py --command "env PYTHONPATH=../old python -m ltlwit"   # another version

Each formula runs in its own `ltlwit solve --model none --format json --timeout T` process (the
formula on stdin), so a row's wall time covers start-up, parsing, rewriting, search, witness
minimisation and the final check, exactly what a user waits for; its peak memory is the child's
`ru_maxrss`. A process still running at T + `--grace` seconds is killed and counted as killed.

Per family it prints: solved within `--limit` seconds (default 10) of wall time, wrong (a verdict
against `expected`), unknown, killed, the median and p90 wall time of the solved ones, the
largest overrun of T, peak memory, and each peer's count within `--limit` on the same formulas
(BLACK's published results, read from the file). Formulas whose `expected` is `disputed` or null
are listed with ltlwit's answer and its proof (a verified witness, or the engine's unsat reason).

Data: ../shared/data/black/black.jsonl.gz (its README: ../shared/data/README.md). Results and
commands are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "black" / "black.jsonl.gz"
PEERS = ("aalta", "black", "leviathan", "ls4", "nuxmv-sbmc", "nuxmv-klive", "pltl-tree", "pltl-graph")


def load(path: Path, families: set[str] | None, names: str | None, sample: int | None,
         seed: int) -> list[dict]:
    rows = [json.loads(line) for line in gzip.open(path, "rt")]
    if families:
        rows = [r for r in rows if r["family"] in families]
    if names:
        pattern = re.compile(names)
        rows = [r for r in rows if pattern.search(r["name"])]
    if sample:
        rng = random.Random(seed)
        picked = []
        for family in sorted({r["family"] for r in rows}):
            members = [r for r in rows if r["family"] == family]
            picked.extend(members if len(members) <= sample else rng.sample(members, sample))
        order = {id(r): i for i, r in enumerate(rows)}
        rows = sorted(picked, key=lambda r: order[id(r)])
    return rows


def command(timeout: float, extra: list[str], program: str | None = None) -> list[str]:
    if program:
        base = shlex.split(program)
    else:
        exe = shutil.which("ltlwit")
        base = [exe] if exe else [sys.executable, "-m", "ltlwit"]
    return base + ["solve", "--model", "none", "--format", "json", "--syntax", "spot",
                   "--timeout", str(timeout), "-F", "-", *extra]


def run_one(row: dict, cmd: list[str], timeout: float, grace: float) -> dict:
    """One child process: its wall time, peak RSS (MiB, from its own rusage) and JSON answer."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    chunks: dict[str, bytes] = {}

    def feed() -> None:
        try:
            proc.stdin.write(row["formula"].encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass

    def drain(name: str, stream) -> None:
        chunks[name] = stream.read()

    threads = [threading.Thread(target=feed),
               threading.Thread(target=drain, args=("out", proc.stdout)),
               threading.Thread(target=drain, args=("err", proc.stderr))]
    for t in threads:
        t.start()
    killed = False
    while True:  # reap the child ourselves: wait4 gives its own peak memory
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout + grace and not killed:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.005)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    answer: dict = {}
    for line in chunks.get("out", b"").decode(errors="replace").splitlines():
        try:
            answer = json.loads(line)
        except ValueError:
            continue
    state = "killed" if killed else answer.get("status") or ("error" if proc.returncode else "none")
    return {
        "name": row["name"], "family": row["family"], "expected": row["expected"],
        "status": state, "wall": round(wall, 3), "rc": proc.returncode,
        "rss_mib": round(usage.ru_maxrss / 1024),
        "verified": answer.get("verified"), "reason": answer.get("reason"),
        "witness": (answer.get("witness") or "")[:2000] or None,
        "stderr": chunks.get("err", b"").decode(errors="replace")[-300:] or None,
    }


def run_all(rows: list[dict], args: argparse.Namespace) -> list[dict]:
    cmd = command(args.timeout, args.extra.split() if args.extra else [], args.command)
    results: list[dict | None] = [None] * len(rows)
    done = 0

    def work(i: int) -> None:
        nonlocal done
        results[i] = run_one(rows[i], cmd, args.timeout, args.grace)
        done += 1
        r = results[i]
        if args.verbose or r["status"] not in ("sat", "unsat") or r["wall"] > args.limit:
            print(f"[{done}/{len(rows)}] {r['name']}: {r['status']} {r['wall']:.2f}s "
                  f"(expected {r['expected']}){' ' + r['reason'] if r['reason'] else ''}",
                  file=sys.stderr, flush=True)

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, range(len(rows))))
    return results  # type: ignore[return-value]


def wrong(r: dict) -> bool:
    if r["status"] not in ("sat", "unsat"):
        return False
    if r["status"] == "sat" and r["verified"] is not True:
        return True
    return r["expected"] in ("sat", "unsat") and r["status"] != r["expected"]


def quantile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def report(rows: list[dict], results: list[dict], args: argparse.Namespace) -> None:
    by_name = {r["name"]: r for r in rows}
    families = sorted({r["family"] for r in results})
    head = (f"{'family':10} {'n':>5} {'solved':>7} {'wrong':>5} {'unk':>5} {'killed':>6} "
            f"{'median':>7} {'p90':>7} {'overrun':>7} {'MiB':>5}  " + " ".join(f"{p[:8]:>8}" for p in PEERS)
            + f" {'vbest':>6}")
    print(f"ltlwit solve --model none --timeout {args.timeout}; solved = answered sat/unsat within "
          f"{args.limit} s wall; peers: count within {args.limit} s on the same formulas")
    print(head)
    for family in families + ["total"]:
        rs = results if family == "total" else [r for r in results if r["family"] == family]
        solved = [r for r in rs if r["status"] in ("sat", "unsat") and r["wall"] <= args.limit
                  and not wrong(r)]
        times = [r["wall"] for r in solved]
        peers = {p: sum(1 for r in rs if (by_name[r["name"]]["peers"].get(p) or 1e9) <= args.limit)
                 for p in PEERS}
        vbest = sum(1 for r in rs if any((by_name[r["name"]]["peers"].get(p) or 1e9) <= args.limit
                                         for p in PEERS))
        overrun = max((r["wall"] - args.timeout for r in rs), default=0.0)
        print(f"{family:10} {len(rs):>5} {len(solved):>7} {sum(map(wrong, rs)):>5} "
              f"{sum(r['status'] == 'unknown' for r in rs):>5} "
              f"{sum(r['status'] == 'killed' for r in rs):>6} "
              f"{quantile(times, .5):>7.2f} {quantile(times, .9):>7.2f} {overrun:>+7.2f} "
              f"{max((r['rss_mib'] for r in rs), default=0):>5}  "
              + " ".join(f"{peers[p]:>8}" for p in PEERS) + f" {vbest:>6}")
    others = [r for r in results if r["status"] not in ("sat", "unsat", "unknown", "killed")]
    for r in others:
        print(f"  not an answer: {r['name']}: status {r['status']} rc {r['rc']}: {r['stderr']}")
    for r in results:
        if wrong(r):
            print(f"  WRONG: {r['name']}: {r['status']} (expected {r['expected']}, "
                  f"verified {r['verified']})")
    open_rows = [r for r in results if r["expected"] not in ("sat", "unsat")]
    if open_rows:
        print("formulas without an agreed verdict (expected disputed or null):")
        for r in open_rows:
            proof = (f"witness {r['witness'][:80]}" if r["status"] == "sat" else
                     f"reason {r['reason']}" if r["status"] == "unsat" else "")
            print(f"  {r['name']} ({r['expected']}): {r['status']} in {r['wall']:.2f}s {proof}")


def compare(old_path: str, new_path: str, limit: float) -> None:
    def read(p: str) -> dict:
        return {r["name"]: r for r in map(json.loads, open(p))}

    old, new = read(old_path), read(new_path)

    def ok(r: dict) -> bool:
        return r["status"] in ("sat", "unsat") and r["wall"] <= limit and not wrong(r)

    gained = [n for n in new if n in old and ok(new[n]) and not ok(old[n])]
    lost = [n for n in new if n in old and ok(old[n]) and not ok(new[n])]
    print(f"gained {len(gained)}, lost {len(lost)}")
    for n in lost:
        print(f"  lost {n}: {old[n]['status']} {old[n]['wall']}s -> {new[n]['status']} {new[n]['wall']}s")
    for n in gained:
        print(f"  gained {n}: {old[n]['status']} {old[n]['wall']}s -> {new[n]['status']} {new[n]['wall']}s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--families", help="comma-separated families (default: all)")
    ap.add_argument("--names", help="regular expression on the formula's name")
    ap.add_argument("--sample", type=int, help="at most N formulas per family (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0, help="ltlwit's --timeout (seconds)")
    ap.add_argument("--limit", type=float, default=10.0, help="'solved within' limit (seconds)")
    ap.add_argument("--grace", type=float, default=5.0, help="kill a child at timeout + grace")
    ap.add_argument("--jobs", type=int, default=1, help="children at a time (timings contend)")
    ap.add_argument("--extra", help="more `ltlwit solve` options, space-separated")
    ap.add_argument("--command", help="the program to run instead of `ltlwit` (e.g. another "
                    "checkout: 'env PYTHONPATH=../old python -m ltlwit')")
    ap.add_argument("--out", help="write one JSON row per formula here")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two --out files")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every formula's answer")
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare, args.limit)
        return
    rows = load(args.data, set(args.families.split(",")) if args.families else None, args.names,
                args.sample, args.seed)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    results = run_all(rows, args)
    elapsed = time.perf_counter() - start
    if args.out:
        with open(args.out, "w") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")
    report(rows, results, args)
    peak = max((r["rss_mib"] for r in results), default=0)
    print(f"{len(rows)} formulas in {elapsed:.0f} s with {args.jobs} job(s); load average "
          f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after; largest child RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
