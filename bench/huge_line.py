"""`--max-memory` and `--timeout` on one huge formula line: wall time and peak resident memory.

The line is generated deterministically into the scratch directory (nothing is written into the
repository): a conjunction of small temporal clauses over many APs, `G(p1 -> F p2) & (p3 U p4)
& ...` (`--shape clauses`), or BLACK's tdllite specifications joined with `&`, each with its
APs renamed apart (`--shape tdllite`), up to `--mib` MiB. Then `ltlwit solve -F LINE` runs under
`/usr/bin/time -v` with LTLWIT_MAX_LINE_MIB raised so that the line is read, in the checkout
`--tree` (default: this one); printed: the answer and its message, when the answer came, the
process's wall seconds and its peak RSS (targets for 50 MB under `--timeout 60 --max-memory
4096`: wall at most 60.5 s, peak at most 4.2 GiB).

    python bench/huge_line.py /tmp/huge --mib 50 --max-memory 4096 --timeout 60
    python bench/huge_line.py /tmp/huge --mib 50 --tree /tmp/old     # another checkout's ltlwit
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "black" / "tdllite-tuning.jsonl.gz"

#: Clause shapes of `--shape clauses`; {0}..{3} are AP names.
CLAUSES = (
    "G({0} -> F {1})",
    "({0} U {1})",
    "F G !{0}",
    "G F ({0} | {1})",
    "X({0} | !{1})",
    "({0} R ({1} | X {2}))",
    "G({0} -> X({1} U {2}))",
    "(!{0} W {3})",
)


def clauses(size: int, aps: int, seed: int = 1) -> str:
    """`size` bytes (about) of `CLAUSES` joined with ` & `, over `aps` APs."""
    rnd = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        names = [f"p{rnd.randrange(aps)}" for _ in range(4)]
        part = rnd.choice(CLAUSES).format(*names)
        parts.append(part)
        total += len(part) + 3
    return " & ".join(parts)


def tdllite(size: int) -> str:
    """BLACK's tdllite specifications, each in parentheses with its APs suffixed `_N`, joined
    with ` & ` up to `size` bytes (cycling through the file with new suffixes)."""
    rows = [json.loads(line)["formula"] for line in gzip.open(DATA, "rt")]
    word = re.compile(r"\b([a-z_][a-zA-Z0-9_]*)\b")
    keep = {"G", "F", "X", "U", "R", "W", "M", "true", "false"}
    parts: list[str] = []
    total, n = 0, 0
    while total < size:
        text = rows[n % len(rows)]
        part = "(" + word.sub(lambda m: m[1] if m[1] in keep else f"{m[1]}_{n}", text) + ")"
        parts.append(part)
        total += len(part) + 3
        n += 1
    return " & ".join(parts)


def make_line(directory: Path, shape: str, mib: float, aps: int) -> Path:
    path = directory / f"{shape}_{mib:g}mib.txt"
    if not path.exists():
        size = int(mib * (1 << 20))
        text = clauses(size, aps) if shape == "clauses" else tdllite(size)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        tmp.rename(path)
    return path


def measure(line: Path, max_memory: int, timeout: float, extra: list[str], tree: Path) -> dict:
    env = dict(os.environ, LTLWIT_MAX_LINE_MIB=str(max(64, line.stat().st_size // (1 << 20) + 1)))
    command = [sys.executable, "-m", "ltlwit", "solve", "--max-memory", str(max_memory), "--timeout", str(timeout)]
    command += [*extra, "-F", str(line)]
    began = time.perf_counter()
    with subprocess.Popen(
        ["/usr/bin/time", "-v", *command],
        env=env,
        cwd=tree,  # `python -m ltlwit` imports the checkout it runs in
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        answer = process.stdout.readline()  # type: ignore[union-attr]
        answered = time.perf_counter() - began
        rest, errors = process.communicate()
    wall = time.perf_counter() - began
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", errors)
    return {
        "command": " ".join(["LTLWIT_MAX_LINE_MIB=" + env["LTLWIT_MAX_LINE_MIB"], "ltlwit", *command[3:]]),
        "exit": process.returncode,
        "answer": (answer + rest).strip()[:200],
        "message": [x for x in errors.splitlines() if x.startswith("ltlwit")][:3],
        "answered_s": round(answered, 2),
        "wall_s": round(wall, 2),
        "peak_rss_gib": round(int(peak[1]) / (1 << 20), 3) if peak else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scratch", type=Path, help="directory for the generated line (created)")
    ap.add_argument("--mib", type=float, default=50.0, help="the line's size in MiB (default 50)")
    ap.add_argument("--shape", choices=("clauses", "tdllite"), default="clauses")
    ap.add_argument("--aps", type=int, default=20000, help="APs of --shape clauses (default 20000)")
    ap.add_argument("--max-memory", type=int, default=4096, help="MiB (default 4096)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1], help="checkout to run")
    ap.add_argument("extra", nargs="*", help="more solve options (after --)")
    args = ap.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    line = make_line(args.scratch, args.shape, args.mib, args.aps)
    print(f"line: {line} ({line.stat().st_size / 1e6:.1f} MB)")
    print(json.dumps(measure(line, args.max_memory, args.timeout, args.extra, args.tree.resolve()), indent=1))


if __name__ == "__main__":
    main()
