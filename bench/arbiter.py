"""The N-client arbiter: a textbook specification that should be instant, timed end
to end through `ltlwit solve` and `ltlwit check --vacuity`.

    python bench/arbiter.py                      # N = 4, 8, 12, 16, 20, 40, 100; --timeout 60
    python bench/arbiter.py --n 12,40 --timeout 20
    python bench/arbiter.py --print 3            # the formula for N = 3, and its spec file
    python bench/arbiter.py --realize 2,3,4,5,6 --n ''   # realizability: a controller, and all cores

Every client i: `G(req_i -> F grant_i)` (served) and `G F req_i` (asks forever); every pair:
`G !(grant_i & grant_j)` (mutual exclusion). Satisfiable by granting round robin: a lasso of
about N steps. The spec file (for `check --vacuity`) has the mutex, the N responses, N "no
spurious grant" specs `G(grant_i -> req_i)` and the N fairness specs, one per line. Each run is
its own process (`ltlwit solve --model none --format json`), so the time includes start-up.

`--realize N,...`: the arbiter as a game, the requests the environment's (`ltlwit realize`):
the mutex and the N responses (realizable: round robin), then the same with client 0 and 1
granted at once when they ask (`immediate0`, `immediate1`; unrealizable), `--diagnose`d: the
time to every minimal conflict, and how many there are. The states column: the controller's,
or AIGER where it is a circuit (a GR(1) strategy too large to list).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def arbiter(n: int) -> str:
    """The arbiter's specification as one formula."""
    parts = [f"G(req{i} -> F grant{i})" for i in range(n)] + [f"G F req{i}" for i in range(n)]
    parts += [f"G !(grant{i} & grant{j})" for i in range(n) for j in range(i + 1, n)]
    return " & ".join(parts)


def spec_file(n: int) -> str:
    """The arbiter as a spec file for `ltlwit check`: one named spec a line."""
    mutex = " & ".join(f"!(grant{i} & grant{j})" for i in range(n) for j in range(i + 1, n))
    lines = [f"mutex: G({mutex})"]
    lines += [f"response{i}: G(req{i} -> F grant{i})" for i in range(n)]
    lines += [f"no_spurious{i}: G(grant{i} -> req{i})" for i in range(n)]
    lines += [f"fair{i}: G F req{i}" for i in range(n)]
    return "\n".join(lines) + "\n"


def game_file(n: int, immediate: bool) -> str:
    """The arbiter for `realize`: its requests are inputs; `immediate` adds the two requirements
    that make it unrealizable."""
    mutex = " & ".join(f"!(grant{i} & grant{j})" for i in range(n) for j in range(i + 1, n))
    lines = ["input " + ", ".join(f"req{i}" for i in range(n)), f"mutex: G({mutex})"]
    lines += [f"response{i}: G(req{i} -> F grant{i})" for i in range(n)]
    if immediate:
        lines += ["immediate0: G(req0 -> grant0)", "immediate1: G(req1 -> grant1)"]
    return "\n".join(lines) + "\n"


def timed(cmd: list[str], stdin: str | None, timeout: float) -> tuple[float, str, int]:
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, "killed", -9
    return time.perf_counter() - start, out.stdout, out.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="4,8,12,16,20,40,100", help="client counts, comma-separated")
    ap.add_argument("--timeout", type=float, default=60.0, help="ltlwit's --timeout per run")
    ap.add_argument("--vacuity", default="8,12", help="client counts for check --vacuity ('' for none)")
    ap.add_argument("--realize", default="", help="client counts for realize (module docstring; '' for none)")
    ap.add_argument("--command", default=f"{sys.executable} -m ltlwit", help="the program to run")
    ap.add_argument("--print", type=int, metavar="N", help="print the formula and spec file for N and stop")
    args = ap.parse_args()
    if args.print is not None:
        print(arbiter(args.print))
        print(spec_file(args.print), end="")
        return
    program = args.command.split()
    if args.n:
        print(f"{'N':>4} {'solve s':>8} {'status':>8} {'verified':>8} {'lasso':>6}")
    for n in [int(x) for x in args.n.split(",") if x]:
        wall, out, _ = timed(
            program + ["solve", "--model", "none", "--format", "json", "--timeout", str(args.timeout), "-F", "-"],
            arbiter(n) + "\n",
            args.timeout + 30,
        )
        row = json.loads(out) if out and out != "killed" else {"status": "killed", "verified": None, "witness": None}
        steps = row["witness"].count(";") + 1 if row.get("witness") else ""
        print(f"{n:>4} {wall:>8.2f} {row['status']:>8} {str(row['verified']):>8} {steps:>6}", flush=True)
    if args.vacuity:
        print(f"{'N':>4} {'check --vacuity s':>18} {'exit':>5}")
        for n in [int(x) for x in args.vacuity.split(",") if x]:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / f"arbiter{n}.spec"
                path.write_text(spec_file(n))
                wall, _, rc = timed(
                    program + ["check", "--vacuity", "--model", "none", "--timeout", str(args.timeout), str(path)],
                    None,
                    20 * args.timeout,
                )
            print(f"{n:>4} {wall:>18.2f} {rc:>5}", flush=True)
    if args.realize:
        print(
            f"{'N':>4} {'realize s':>10} {'verdict':>12} {'states':>7} {'diagnose s':>11} {'conflicts':>10} {'all':>5}"
        )
        for n in [int(x) for x in args.realize.split(",") if x]:
            cells = []
            for immediate in (False, True):
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / f"arbiter{n}.spec"
                    path.write_text(game_file(n, immediate))
                    extra = ["--diagnose"] if immediate else []
                    cmd = program + ["realize", "--format", "json", "--timeout", str(args.timeout), "-F", str(path)]
                    wall, out, _ = timed(cmd + extra, None, 3 * args.timeout + 30)
                rows = (
                    [json.loads(line) for line in out.splitlines() if line.startswith("{")] if out != "killed" else []
                )
                row = rows[0] if rows else {"status": "killed"}
                cells.append((wall, row))
            (w1, r1), (w2, r2) = cells
            controller = r1.get("controller") or {}
            states = len(controller.get("states", [])) or ("AIGER" if "aiger" in controller else "")
            conflicts = len(r2.get("conflicts") or [])
            print(
                f"{n:>4} {w1:>10.2f} {r1['status']:>12} {states!s:>7} {w2:>11.2f} {conflicts:>10} "
                f"{str(r2.get('conflicts_complete')):>5}",
                flush=True,
            )


if __name__ == "__main__":
    main()
