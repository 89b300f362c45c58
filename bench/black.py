"""BLACK's benchmark suites through `ltlwit solve --model none`, family by family, against the peers.

    python bench/black.py                                  # every formula, --timeout 10
    python bench/black.py --suite past                     # the LTL+past suite (Y Z S T O H)
    python bench/black.py --suite finite                   # finite traces (LTLf)
    python bench/black.py --suite past --sample 20 --out past.jsonl    # 20 per family, rows kept
    python bench/black.py --data other.jsonl.gz            # any file with the same fields
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
against `expected`, or a sat answer whose witness is not verified), unknown, killed, err (no
answer: a parse or usage error, a crash; counted as not solved, the messages grouped below the
table), the median and p90 wall time of the solved ones, the largest overrun of T (wall - T),
peak memory, each peer's count within `--limit` on the same formulas (the published results read
from the file; the peers are the keys of the rows' `peers`), the best peer's count (`best`,
named in the last column), the virtual best (`vbest`: formulas any peer solves within the
limit) and `margin` = solved - best. Below the table it checks the targets: 0 wrong, every sat
answer verified, no family below its best peer, largest wall - T at most +0.5 s. Formulas whose
`expected` is `disputed` or null are listed with ltlwit's answer and its proof (a verified
witness, or the engine's unsat reason).

Suites (`--suite`, default future; `--data PATH` reads another file with the same fields, with
the chosen suite's options):
  future  ../shared/data/black/black.jsonl.gz: 2,469 future-only formulas, eight peers.
  past    ../shared/data/black-past/past.jsonl.gz: 770 LTL+past formulas (families crscounter,
          random) in BLACK's letters (Y Z S T O H), peers black, nuxmv-sbmc, nuxmv-klive.
  finite  ../shared/data/black-finite/finite.jsonl.gz: 3,224 formulas read over finite traces
          (LiEtAl2020's Declare-style families, random, and the future families), `X` strong and
          `wX` weak next, peers aalta-f, black-f, ltl2sat; run with `--semantics finite`.
  ltlfmt  ../shared/data/ltlfmt/ltlfmt.jsonl.gz: 758 formulas of LTLf modulo theories (families
          EUF, EUFLIA, LIA, LRA, rts: half of BLACK's suite) in BLACK's syntax, over finite traces,
          each with its row's `domain` as `--domain` (BLACK's -d); peer black (IJCAI 2022).
  tdllite ../shared/data/black/tdllite-tuning.jsonl.gz: 51 temporal description-logic encodings
          of 56 KB to 4 MB (every 8th of BLACK's tdllite family), the future suite's peers; with
          `--parse-time` (or -v) each row also gets the time this process takes to parse the
          formula (`parse_s`) and its size (`mb`), printed per formula.
A suite is a data file plus the `ltlwit solve` options its formulas need (see SUITES). The files are described in ../shared/data/README.md; results and commands are
recorded in docs/benchmarks.md.
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
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"


@dataclass(frozen=True)
class Suite:
    data: Path  # JSON Lines (gzip): name, family, formula, expected, peers
    options: tuple[str, ...] = ()  # more `ltlwit solve` options its formulas need


SUITES = {
    "future": Suite(DATA_DIR / "black" / "black.jsonl.gz"),
    "past": Suite(DATA_DIR / "black-past" / "past.jsonl.gz"),
    "finite": Suite(DATA_DIR / "black-finite" / "finite.jsonl.gz", ("--semantics", "finite")),
    "tdllite": Suite(DATA_DIR / "black" / "tdllite-tuning.jsonl.gz"),
    "ltlfmt": Suite(DATA_DIR / "ltlfmt" / "ltlfmt.jsonl.gz", ("--semantics", "finite")),
}
DATA = SUITES["future"].data
OVERRUN_TARGET = 0.5  # seconds of wall time past --timeout


def peers_of(rows: list[dict]) -> list[str]:
    """The peers named in the rows' `peers`, in the file's order."""
    return list(dict.fromkeys(p for r in rows for p in r["peers"]))


def within(row: dict, peer: str, limit: float) -> bool:
    t = row["peers"].get(peer)
    return t is not None and t <= limit


def load(path: Path, families: set[str] | None, names: str | None, sample: int | None, seed: int) -> list[dict]:
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


def program(given: str | None = None) -> list[str]:
    """The ltlwit to run: `given` (--command), else the installed one."""
    if given:
        return shlex.split(given)
    exe = shutil.which("ltlwit")
    return [exe] if exe else [sys.executable, "-m", "ltlwit"]


def command(timeout: float, extra: list[str], given: str | None = None, options: tuple[str, ...] = ()) -> list[str]:
    return program(given) + [
        "solve",
        "--model",
        "none",
        "--format",
        "json",
        "--syntax",
        "spot",
        "--timeout",
        str(timeout),
        "-F",
        "-",
        *options,
        *extra,
    ]


def run_one(row: dict, cmd: list[str], timeout: float, grace: float, keep: tuple[str, ...] = ()) -> dict:
    """One child process: its wall time, peak RSS (MiB, from its own rusage) and JSON answer
    (the fields used here, and the answer's `keep` keys as they are)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    chunks: dict[str, bytes] = {}

    def feed() -> None:
        try:
            proc.stdin.write(row["formula"].encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass

    def drain(name: str, stream) -> None:
        chunks[name] = stream.read()

    threads = [
        threading.Thread(target=feed),
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
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
        "name": row["name"],
        "family": row["family"],
        "expected": row["expected"],
        "status": state,
        "wall": round(wall, 3),
        "rc": proc.returncode,
        "rss_mib": round(usage.ru_maxrss / 1024),
        "verified": answer.get("verified"),
        "reason": answer.get("reason"),
        "error": answer.get("error"),
        "witness": (answer.get("witness") or "")[:2000] or None,
        "_witness": answer.get("witness"),  # whole, for `refuting`; not written to --out
        "stderr": chunks.get("err", b"").decode(errors="replace")[-300:] or None,
        **{key: answer.get(key) for key in keep},
    }


def run_all(rows: list[dict], args: argparse.Namespace) -> list[dict]:
    cmd = command(args.timeout, args.extra.split() if args.extra else [], args.command, SUITES[args.suite].options)
    results: list[dict | None] = [None] * len(rows)
    done = 0

    def work(i: int) -> None:
        nonlocal done
        domain = ["--domain", rows[i]["domain"]] if rows[i].get("domain") else []
        results[i] = run_one(rows[i], cmd + domain, args.timeout, args.grace)
        done += 1
        r = results[i]
        r["refutes"] = refuting(rows[i], r.pop("_witness"), args)
        if args.parse_time:
            r.update(_parse_time(rows[i]["formula"]))
        if args.verbose or r["status"] not in ("sat", "unsat") or r["wall"] > args.limit:
            sizes = f" parse {r['parse_s']:.2f}s of {r['mb']:.2f} MB, {r['rss_mib']} MiB" if args.parse_time else ""
            print(
                f"[{done}/{len(rows)}] {r['name']}: {r['status']} {r['wall']:.2f}s{sizes} "
                f"(expected {r['expected']}){' ' + note if (note := r['reason'] or r['error']) else ''}",
                file=sys.stderr,
                flush=True,
            )

    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(work, range(len(rows))))
    return results  # type: ignore[return-value]


#: Who re-checks a witness that contradicts the file's `expected` verdict: a checker that shares
#: no code with ltlwit's own (the `aiger` extra), beside it (`ltlwit verify --validator`).
REFUTING_VALIDATOR = "aiger"


def refuting(row: dict, witness: str | None, args: argparse.Namespace) -> str | None:
    """For a sat answer against an `expected` unsat (the peers that answered said unsat), the
    validator that confirms its witness (`REFUTING_VALIDATOR`, with ltlwit's checker), else
    None. The expected verdict is then refuted, not ltlwit's: ltl2sat alone answered four of
    LiEtAl2020's Declare models, unsat, which LTLf's traces satisfy with instants of three
    events or none; over process traces (one event per instant, ltl2sat's setting) the first
    of them is unsat for ltlwit too (docs/benchmarks.md)."""
    if row["expected"] != "unsat" or witness is None:
        return None
    check = program(args.command) + [
        "verify",
        "--format",
        "text",
        "--syntax",
        "spot",
        "--validator",
        REFUTING_VALIDATOR,
        "-F",
        "-",
        *SUITES[args.suite].options,
    ]
    try:
        out = subprocess.run(
            check,
            input=f"{row['formula']}\t{witness}\n",
            capture_output=True,
            text=True,
            timeout=max(60.0, 10 * args.timeout),
        )
    except subprocess.TimeoutExpired:
        return None
    return REFUTING_VALIDATOR if out.returncode == 0 and "HOLDS" in out.stdout else None


def _parse_time(text: str) -> dict:
    """How long ltlwit's infix parser takes on the formula here (`parse_s`), and its size (`mb`):
    reading a multi-MB formula must not be the slow part of answering it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from ltlwit.logic.syntax import parse_formula

    start = time.perf_counter()
    parse_formula(text, "spot")
    return {"parse_s": round(time.perf_counter() - start, 3), "mb": round(len(text.encode()) / 1e6, 3)}


def wrong(r: dict) -> bool:
    if r["status"] not in ("sat", "unsat"):
        return False
    if r["status"] == "sat" and r["verified"] is not True:
        return True
    if r.get("refutes"):  # a witness two checkers accept: the expected verdict was wrong
        return False
    return r["expected"] in ("sat", "unsat") and r["status"] != r["expected"]


def credited(row: dict, result: dict, peer: str, limit: float) -> bool:
    """A peer solved the formula within `limit`, with a verdict no witness refuted."""
    return within(row, peer, limit) and not result.get("refutes")


def quantile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


ANSWERS = ("sat", "unsat", "unknown", "killed")


def failure(r: dict) -> str:
    """Why a row has no answer (status error, none, ...), with positions left out so that rows
    failing the same way group together."""
    if r.get("error"):
        message = r["error"]
    elif r["stderr"]:
        message = r["stderr"].strip().splitlines()[-1]
    else:
        message = f"no answer (rc {r['rc']})"
    return re.sub(r"\b(column|line|col) \d+:? ?", "", message)


def report(rows: list[dict], results: list[dict], args: argparse.Namespace) -> None:
    by_name = {r["name"]: r for r in rows}
    peer_names = peers_of(rows)
    families = sorted({r["family"] for r in results})
    head = (
        f"{'family':10} {'n':>5} {'solved':>7} {'wrong':>5} {'unk':>5} {'killed':>6} {'err':>5} "
        f"{'median':>7} {'p90':>7} {'overrun':>7} {'MiB':>5}  "
        + " ".join(f"{p[:8]:>8}" for p in peer_names)
        + f" {'best':>6} {'vbest':>6} {'margin':>6}  best peer"
    )
    print(
        f"suite {args.suite} ({args.data}); ltlwit solve --model none --timeout {args.timeout}"
        f"{' ' + ' '.join(SUITES[args.suite].options) if SUITES[args.suite].options else ''}"
        f"{' ' + args.extra if args.extra else ''}"
    )
    print(
        f"solved = answered sat/unsat within {args.limit} s wall, not wrong; peers: count within "
        f"{args.limit} s on the same formulas; best: the best peer's count; vbest: any peer "
        f"within {args.limit} s; margin = solved - best"
    )
    print(head)
    below = []
    for family in families + ["total"]:
        rs = results if family == "total" else [r for r in results if r["family"] == family]
        solved = [r for r in rs if r["status"] in ("sat", "unsat") and r["wall"] <= args.limit and not wrong(r)]
        times = [r["wall"] for r in solved]
        peers = {p: sum(1 for r in rs if credited(by_name[r["name"]], r, p, args.limit)) for p in peer_names}
        best_peer = max(peer_names, key=lambda p: peers[p], default="-")
        best = peers.get(best_peer, 0)
        vbest = sum(1 for r in rs if any(credited(by_name[r["name"]], r, p, args.limit) for p in peer_names))
        overrun = max((r["wall"] - args.timeout for r in rs), default=0.0)
        margin = len(solved) - best
        if margin < 0 and family != "total":
            below.append(f"{family} {margin:+d}")
        print(
            f"{family:10} {len(rs):>5} {len(solved):>7} {sum(map(wrong, rs)):>5} "
            f"{sum(r['status'] == 'unknown' for r in rs):>5} "
            f"{sum(r['status'] == 'killed' for r in rs):>6} "
            f"{sum(r['status'] not in ANSWERS for r in rs):>5} "
            f"{quantile(times, 0.5):>7.2f} {quantile(times, 0.9):>7.2f} {overrun:>+7.2f} "
            f"{max((r['rss_mib'] for r in rs), default=0):>5}  "
            + " ".join(f"{peers[p]:>8}" for p in peer_names)
            + f" {best:>6} {vbest:>6} {margin:>+6d}  {best_peer if best else '-'}"
        )
    others = [r for r in results if r["status"] not in ANSWERS]
    if others:
        groups = Counter(failure(r) for r in others)
        print(f"not an answer (err): {len(others)} formula(s), {len(groups)} kind(s):")
        for message, n in groups.most_common():
            first = next(r for r in others if failure(r) == message)
            print(f"  {n:>5} x {message[:160]}  (e.g. {first['name']}: status {first['status']} rc {first['rc']})")
    for r in results:
        if wrong(r):
            print(f"  WRONG: {r['name']}: {r['status']} (expected {r['expected']}, verified {r['verified']})")
    refuted = [r for r in results if r.get("refutes")]
    if refuted:
        print(
            f"expected verdicts refuted (a witness that ltlwit's checker and {REFUTING_VALIDATOR} "
            "accept; the peers that gave them are not credited):"
        )
        for r in refuted:
            print(
                f"  {r['name']}: expected {r['expected']}, sat in {r['wall']:.2f}s, witness {(r['witness'] or '')[:80]}"
            )
    open_rows = [r for r in results if r["expected"] not in ("sat", "unsat")]
    if open_rows:
        print("formulas without an agreed verdict (expected disputed or null):")
        for r in open_rows:
            proof = (
                f"witness {r['witness'][:80]}"
                if r["status"] == "sat" and r["witness"]
                else f"reason {r['reason']}"
                if r["status"] == "unsat"
                else failure(r)
                if r["status"] not in ANSWERS
                else ""
            )
            print(f"  {r['name']} ({r['expected']}): {r['status']} in {r['wall']:.2f}s {proof}")
    targets(results, below, args)


def targets(results: list[dict], below: list[str], args: argparse.Namespace) -> None:
    """The suite's targets, one line each: met or NOT MET."""

    def line(ok: bool, text: str) -> None:
        print(f"  {'met    ' if ok else 'NOT MET'}  {text}")

    print("targets:")
    n_wrong = sum(map(wrong, results))
    line(n_wrong == 0, f"wrong verdicts: {n_wrong} (target 0)")
    unverified = [r for r in results if r["status"] == "sat" and r["verified"] is not True]
    line(
        not unverified,
        f"sat answers without verified = true: {len(unverified)} (target 0)"
        + "".join(f"\n             {r['name']} (verified {r['verified']})" for r in unverified[:10]),
    )
    line(not below, f"families below their best peer within {args.limit} s: {', '.join(below) or 'none'} (target none)")
    worst = max(results, key=lambda r: r["wall"], default=None)
    if worst is None:
        line(True, "largest wall - timeout: no rows")
    else:
        over = worst["wall"] - args.timeout
        line(
            over <= OVERRUN_TARGET,
            f"largest wall - timeout over all rows: {over:+.2f} s ({worst['name']}: "
            f"{worst['status']} in {worst['wall']:.2f} s) (target <= +{OVERRUN_TARGET:.2f} s)",
        )


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
    ap.add_argument(
        "--suite",
        choices=sorted(SUITES),
        default="future",
        help="which data set, with the solve options its formulas need (default future)",
    )
    ap.add_argument(
        "--data",
        type=Path,
        help="another data file with the same fields (default: the suite's; the suite's options still apply)",
    )
    ap.add_argument("--families", help="comma-separated families (default: all)")
    ap.add_argument("--names", help="regular expression on the formula's name")
    ap.add_argument("--sample", type=int, help="at most N formulas per family (seeded)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=10.0, help="ltlwit's --timeout (seconds)")
    ap.add_argument("--limit", type=float, default=10.0, help="'solved within' limit (seconds)")
    ap.add_argument("--grace", type=float, default=5.0, help="kill a child at timeout + grace")
    ap.add_argument("--jobs", type=int, default=1, help="children at a time (timings contend)")
    ap.add_argument("--extra", help="more `ltlwit solve` options, space-separated")
    ap.add_argument(
        "--command",
        help="the program to run instead of `ltlwit` (e.g. another checkout: 'env PYTHONPATH=../old python -m ltlwit')",
    )
    ap.add_argument("--out", help="write one JSON row per formula here")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="compare two --out files")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every formula's answer")
    ap.add_argument(
        "--parse-time",
        action="store_true",
        help="time this process's parse of each formula too (parse_s, mb; default for tdllite)",
    )
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare, args.limit)
        return
    args.data = args.data or SUITES[args.suite].data
    args.parse_time = args.parse_time or args.suite == "tdllite"
    rows = load(args.data, set(args.families.split(",")) if args.families else None, args.names, args.sample, args.seed)
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
    print(
        f"{len(rows)} formulas in {elapsed:.0f} s with {args.jobs} job(s); load average "
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after; largest child RSS {peak:.0f} MiB"
    )


if __name__ == "__main__":
    main()
